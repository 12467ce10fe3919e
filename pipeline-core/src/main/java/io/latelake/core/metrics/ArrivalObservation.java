package io.latelake.core.metrics;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * The appending streams' observation of their arrivals for {@link StreamMetrics}: per micro-batch,
 * the largest {@code enqueued_time} of its rows and of each listed source's rows, taken in the same
 * pass as a named observation ({@value #ARRIVALS}; no state, no change to the rows). Turned on per
 * session by {@link StreamMetrics#install}, through two session settings.
 */
public final class ArrivalObservation {
  /** Session setting that tells the streaming jobs to observe their arrivals. */
  static final String OBSERVING = "spark.latelake.metrics.streams";

  /** Name of the observed metric: the largest enqueued time of a micro-batch's rows. */
  static final String ARRIVALS = "latelake_arrivals";

  /** Session setting listing the sources whose arrivals are observed (one per line). */
  static final String SOURCES = "spark.latelake.metrics.sources";

  private ArrivalObservation() {}

  /** Makes the streams of {@code spark} observe their arrivals and those of {@code sources}. */
  static void turnOn(SparkSession spark, List<String> sources) {
    spark.conf().set(SOURCES, String.join("\n", sources));
    spark.conf().set(OBSERVING, "true");
  }

  /** Undoes {@link #turnOn}. */
  static void turnOff(SparkSession spark) {
    spark.conf().unset(OBSERVING);
    spark.conf().unset(SOURCES);
  }

  /**
   * @return true when the streams of {@code spark} should observe their arrivals ({@link
   *     #observeArrivals}): {@link StreamMetrics} is installed on it
   */
  public static boolean observing(SparkSession spark) {
    return "true".equals(spark.conf().get(OBSERVING, "false"));
  }

  /**
   * @return {@code rows} observed with the largest {@code enqueued_time} of each micro-batch, and
   *     of each listed source's rows (a named observation, {@value #ARRIVALS}; no state, no change
   *     to the rows), or {@code rows} when it has no {@code enqueued_time} column
   */
  public static Dataset<Row> observeArrivals(SparkSession spark, Dataset<Row> rows) {
    List<String> columns = Arrays.asList(rows.columns());
    if (!columns.contains("enqueued_time")) {
      return rows;
    }
    List<Column> more = new ArrayList<>();
    String listed = spark.conf().get(SOURCES, "");
    if (columns.contains("source") && !listed.isEmpty()) {
      int i = 0;
      for (String source : listed.split("\n")) {
        more.add(
            functions
                .max(
                    functions.when(
                        functions.col("source").equalTo(source), functions.col("enqueued_time")))
                .as("source_" + i++));
      }
    }
    return rows.observe(
        ARRIVALS, functions.max("enqueued_time").as("latest"), more.toArray(Column[]::new));
  }
}

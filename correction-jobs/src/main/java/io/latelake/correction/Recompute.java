package io.latelake.correction;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.pmod;
import static org.apache.spark.sql.functions.row_number;
import static org.apache.spark.sql.functions.timestamp_micros;
import static org.apache.spark.sql.functions.unix_micros;

import io.latelake.core.metric.MetricAggregation;
import io.latelake.core.metric.MetricSpec;
import java.time.Duration;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.expressions.Window;

/**
 * Pure functions that recompute gold values from bronze rows (batch, no watermark): the correction
 * path's notion of the true value of a window (DESIGN.md semantics 2 and 4).
 */
public final class Recompute {
  private Recompute() {}

  /**
   * Valid events: bronze rows with {@code error IS NULL} (this excludes MALFORMED,
   * MISSING_EVENT_ID/TIME, INVALID_*, FUTURE_EVENT_TIME) and a non-null {@code event_time}.
   *
   * @param bronze rows with bronze's columns ({@link io.latelake.core.event.BronzeRows})
   */
  public static Dataset<Row> validEvents(Dataset<Row> bronze) {
    return bronze.filter(col("error").isNull().and(col("event_time").isNotNull()));
  }

  /**
   * Exact deduplication on {@code event_id}: of all copies, the one with the earliest
   * {@code enqueued_time} is kept; ties go to the earliest {@code ingested_at}, then the lowest
   * {@code kafka_offset}, then {@code source_file}, then {@code payload} (so the choice is
   * deterministic; nulls last throughout). Same columns out. Input without {@code payload}
   * (tests, projections) is accepted.
   */
  public static Dataset<Row> exactDedup(Dataset<Row> events) {
    java.util.List<org.apache.spark.sql.Column> order = new java.util.ArrayList<>(java.util.List.of(
        col("enqueued_time").asc_nulls_last(), col("ingested_at").asc_nulls_last(),
        col("kafka_offset").asc_nulls_last(), col("source_file").asc_nulls_last()));
    if (java.util.Arrays.asList(events.columns()).contains("payload")) {
      order.add(col("payload").asc_nulls_last());
    }
    var byArrival = Window.partitionBy(col("event_id"))
        .orderBy(order.toArray(org.apache.spark.sql.Column[]::new));
    return events.withColumn("_copy", row_number().over(byArrival))
        .filter(col("_copy").equalTo(1))
        .drop("_copy");
  }

  /**
   * The start of the tumbling window of {@code window} holding {@code eventTime}: the same
   * epoch-aligned start as Spark's {@code window()} (UTC).
   */
  public static Column windowStart(Column eventTime, Duration window) {
    long w = window.toNanos() / 1000;
    Column micros = unix_micros(eventTime);
    return timestamp_micros(micros.minus(pmod(micros, org.apache.spark.sql.functions.lit(w))));
  }

  /**
   * Gold rows recomputed from bronze: valid events, exact dedup, then
   * {@link MetricAggregation#aggregate} without a watermark.
   *
   * @return {@code window_start}, {@code window_end}, group-by columns, measures
   */
  public static Dataset<Row> gold(Dataset<Row> bronze, MetricSpec metric) {
    return MetricAggregation.aggregate(exactDedup(validEvents(bronze)), metric, null);
  }
}

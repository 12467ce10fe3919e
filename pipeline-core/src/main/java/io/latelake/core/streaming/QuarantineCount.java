package io.latelake.core.streaming;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.when;

import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQueryProgress;

/**
 * The bronze rows of a micro-batch that are quarantined (their {@code error} column set: a record
 * that could not be parsed or misses a field), counted with a Spark observation ({@value
 * #OBSERVATION}) as the rows are written: no Spark job of its own. The count is column {@code
 * rows_quarantined} of {@code monitoring.stream_progress}, part of bronze's line per micro-batch
 * and, with the streams' metrics on, the counter {@code <query>.rows_quarantined}. Like every
 * observation it is an accumulator: a task Spark runs again after a lost executor may count its
 * rows twice.
 */
public final class QuarantineCount {
  /** Name of the observation. */
  public static final String OBSERVATION = "latelake_quarantined";

  private QuarantineCount() {}

  /**
   * @param bronzeRows rows of bronze's schema (an {@code error} column, null for a valid row)
   * @return the same rows, observed
   */
  public static Dataset<Row> observe(Dataset<Row> bronzeRows) {
    return bronzeRows.observe(
        OBSERVATION, count(when(col("error").isNotNull(), lit(1))).as("rows"), new Column[0]);
  }

  /**
   * @return the quarantined rows of the micro-batch; null for a query that does not observe them
   *     (silver, gold)
   */
  public static Long of(StreamingQueryProgress progress) {
    Row observed = progress.observedMetrics().get(OBSERVATION);
    return observed == null || observed.isNullAt(0) ? null : observed.getLong(0);
  }
}

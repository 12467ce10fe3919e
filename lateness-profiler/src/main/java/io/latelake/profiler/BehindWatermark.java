package io.latelake.profiler;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.unix_micros;
import static org.apache.spark.sql.functions.when;

import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Which events a watermark would have dropped, in arrival order: the profile's {@code
 * behind_watermark_count} and the advice's {@code configured_dropped_count}. Pure {@code
 * Dataset<Row>} transformation; no I/O.
 */
public final class BehindWatermark {
  private BehindWatermark() {}

  /**
   * Adds {@code _behind} boolean: whether each event would have been behind the watermark in
   * arrival order: its event time is at or before (the largest event time among the same source's
   * events enqueued strictly earlier) − delay. This is Spark's rule (a row is late when event time
   * ≤ watermark, the watermark being max event time seen − delay) with the watermark moved after
   * every arrival, the limit of small micro-batches; it counts what a watermark of {@code delay}
   * drops, while "lateness &gt; delay" only bounds it from above — and misses the on-time events
   * that a future-dated event pushes behind the watermark (case C10). Events enqueued before the
   * rows given are not seen, so the first arrivals of a range have a lower watermark than live.
   *
   * <p>How, without one sorted task per source: the rows are cut into {@value #BUCKET_SECONDS} s
   * buckets of enqueued time. The largest event time enqueued strictly earlier is the larger of (a)
   * the largest among the earlier rows of the same bucket (a window per source and bucket, ordered
   * by enqueued time) and (b) the largest of all earlier buckets of the source (a running maximum
   * over the per-bucket maxima: one row per source and bucket, then joined back). Equal to one
   * window per source over all rows, row for row ({@code LatenessStatsTest}).
   *
   * @param rows rows with {@code source}, {@code enqueued_time}, {@code event_time}
   * @param delaySeconds the watermark delay, seconds
   * @param events which rows are events (they alone move the watermark), e.g. {@link
   *     LatenessStats#measured}; the flag on the other rows is meaningless
   * @return {@code rows}' columns and {@code _behind} (false for a source's first event)
   */
  public static Dataset<Row> flag(Dataset<Row> rows, double delaySeconds, Column events) {
    Column eventMicros = when(events, unix_micros(col("event_time")));
    Dataset<Row> bucketed =
        rows.withColumn(
            "_bucket",
            org.apache.spark.sql.functions.floor(
                unix_micros(col("enqueued_time")).divide(BUCKET_SECONDS * 1_000_000L)));
    Dataset<Row> carried =
        bucketed
            .groupBy(col("source"), col("_bucket"))
            .agg(max(eventMicros).as("_bucket_max"))
            .select(
                col("source").as("_c_source"),
                col("_bucket").as("_c_bucket"),
                max(col("_bucket_max"))
                    .over(
                        org.apache.spark.sql.expressions.Window.partitionBy(col("source"))
                            .orderBy(col("_bucket"))
                            .rowsBetween(
                                org.apache.spark.sql.expressions.Window.unboundedPreceding(), -1))
                    .as("_carried"));
    org.apache.spark.sql.expressions.WindowSpec earlierInBucket =
        org.apache.spark.sql.expressions.Window.partitionBy(col("source"), col("_bucket"))
            .orderBy(unix_micros(col("enqueued_time")))
            .rangeBetween(org.apache.spark.sql.expressions.Window.unboundedPreceding(), -1);
    Column maxEarlier =
        org.apache.spark.sql.functions.greatest(
            col("_carried"), max(eventMicros).over(earlierInBucket));
    List<String> columns = List.of(rows.columns());
    return bucketed
        .join(
            carried,
            col("source")
                .eqNullSafe(col("_c_source"))
                .and(col("_bucket").equalTo(col("_c_bucket"))),
            "left")
        .withColumn(
            "_behind",
            coalesce(
                unix_micros(col("event_time"))
                    .leq(maxEarlier.minus(Math.round(delaySeconds * 1e6))),
                lit(false)))
        .select(
            java.util.stream.Stream.concat(columns.stream(), java.util.stream.Stream.of("_behind"))
                .map(org.apache.spark.sql.functions::col)
                .toArray(Column[]::new));
  }

  /** The width of {@link #flag}'s buckets of enqueued time: one hour. */
  static final long BUCKET_SECONDS = 3_600;
}

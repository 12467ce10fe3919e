package io.latelake.correction.shared;

import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.latelake.core.dedup.ExactDedup;
import io.latelake.core.metric.MetricAggregation;
import io.latelake.core.metric.MetricSpec;
import java.sql.Timestamp;
import java.time.Instant;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

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
   * Exact deduplication on {@code event_id} by the one rule of the batch side ({@link ExactDedup}):
   * of all copies given, the one with the earliest {@code enqueued_time} is kept; ties go to the
   * earliest {@code ingested_at}, the lowest {@code kafka_partition} and {@code kafka_offset}, then
   * {@code source_file} and {@code payload}. Same columns out.
   */
  public static Dataset<Row> exactDedup(Dataset<Row> events) {
    return ExactDedup.firstCopies(events);
  }

  /**
   * The events whose first arrival has an event time in {@code [from, to)}: valid rows, exact dedup
   * over every copy in {@code bronze}, then the range. Read {@code bronze} with {@link
   * LakeReads#bronzeAround} (the range widened by the id horizon on both sides), so a copy outside
   * the range still decides which copy is the event: a retry re-stamped into the range whose first
   * copy lies before it is not counted (case C31).
   */
  public static Dataset<Row> events(Dataset<Row> bronze, Instant from, Instant to) {
    return exactDedup(validEvents(bronze))
        .filter(
            col("event_time")
                .geq(lit(Timestamp.from(from)))
                .and(col("event_time").lt(lit(Timestamp.from(to)))));
  }

  /**
   * Gold rows recomputed from bronze: valid events, exact dedup, then {@link
   * MetricAggregation#aggregate} without a watermark.
   *
   * @return {@code window_start}, {@code window_end}, group-by columns, measures
   */
  public static Dataset<Row> gold(Dataset<Row> bronze, MetricSpec metric) {
    return MetricAggregation.aggregate(exactDedup(validEvents(bronze)), metric);
  }

  /**
   * Gold rows of the windows starting at {@code starts} only, recomputed from bronze read around
   * them: with bronze read over {@code [from − horizon, to + horizon)} ({@link
   * LakeReads#bronzeAround}) the result equals {@link #gold(Dataset, MetricSpec, Instant, Instant)}
   * over {@code [from, to)} restricted to those windows, at a cost that follows the windows rather
   * than the range; {@code correct} reads less, each window widened by the horizon (its plan's
   * {@code readSpans}), so a copy further than the horizon from every window is not seen. The valid
   * rows of the windows name the event ids that can count there; only the copies of those ids (a
   * left semi join on {@code event_id}: no shuffle of the other rows) go through the exact dedup,
   * and the first arrivals in the windows are aggregated. An event whose first copy lies in a
   * window has that copy among the window rows, and every other copy of it in {@code bronze} among
   * the copies, so it is decided as in the full recompute; an event with no copy in the windows
   * counts in neither.
   *
   * @param bronze bronze rows read around the windows (at least each window widened by the id
   *     horizon)
   * @param starts one {@code window_start} timestamp column, the windows to recompute, all in
   *     {@code [from, to)}
   * @param from the first window's start (UTC)
   * @param to the last window's end (UTC)
   * @return {@code window_start}, {@code window_end}, group-by columns, measures; windows of {@code
   *     starts} without events have no row
   */
  public static Dataset<Row> goldOfWindows(
      Dataset<Row> bronze, MetricSpec metric, Dataset<Row> starts, Instant from, Instant to) {
    Dataset<Row> valid = validEvents(bronze);
    Column inRange =
        col("event_time")
            .geq(lit(Timestamp.from(from)))
            .and(col("event_time").lt(lit(Timestamp.from(to))));
    Dataset<Row> ids =
        valid
            .filter(inRange)
            .select(
                col("event_id"),
                MetricAggregation.windowStart(col("event_time"), metric.window()).as("_start"))
            .join(broadcast(starts), col("_start").equalTo(starts.col("window_start")), "left_semi")
            .select("event_id")
            .distinct();
    Dataset<Row> copies = valid.join(ids, new String[] {"event_id"}, "left_semi");
    return MetricAggregation.aggregate(exactDedup(copies).filter(inRange), metric)
        .join(broadcast(starts), "window_start");
  }

  /**
   * Gold rows of the windows in {@code [from, to)} recomputed from bronze read around that range
   * ({@link #events}); {@code from} and {@code to} are window boundaries. The one recompute of
   * {@code correct} and {@code audit}.
   *
   * @return {@code window_start}, {@code window_end}, group-by columns, measures
   */
  public static Dataset<Row> gold(
      Dataset<Row> bronze, MetricSpec metric, Instant from, Instant to) {
    return MetricAggregation.aggregate(events(bronze, from, to), metric);
  }
}

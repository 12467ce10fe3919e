package io.latelake.profiler;

import io.latelake.core.time.DayRange;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The replay of one delay.
 *
 * @param delay the watermark delay
 * @param rows silver input rows replayed
 * @param microBatches micro-batches with rows
 * @param dropped rows behind the watermark
 * @param goldRowsToCorrect gold rows (window and group-by values, over the metrics given) with a
 *     dropped row: at most what the correction path restates (a dropped copy of an event already
 *     counted changes nothing)
 * @param statePeakRows the most event ids silver's dedup would hold in its state at the end of a
 *     micro-batch
 * @param watermarkLagSeconds median lag of the watermark behind the arrivals (null: never moved)
 * @param basis how the rows were cut into micro-batches
 */
public record ReplayOutcome(
    Duration delay,
    long rows,
    long microBatches,
    long dropped,
    long goldRowsToCorrect,
    long statePeakRows,
    Double watermarkLagSeconds,
    String basis) {
  /**
   * @return dropped / rows (0 when nothing was replayed)
   */
  public double droppedShare() {
    return rows == 0 ? 0 : (double) dropped / rows;
  }

  /**
   * Schema of {@code monitoring.watermark_replay}, one row per delay: {@code query_name} string,
   * {@code from_day}, {@code to_day} date (arrival days replayed), {@code delay_s} double (the
   * watermark delay, seconds), {@code configured} boolean (silver's configured delay), {@code
   * recommended} boolean (the smallest delay whose dropped share is at most the target), {@code
   * rows} long (silver's input rows replayed), {@code micro_batches} long (micro-batches with
   * rows), {@code dropped_count} long and {@code dropped_share} double (rows behind the watermark,
   * of {@code rows}), {@code gold_rows_to_correct} long (gold rows — window and group-by values,
   * over every configured metric — holding a dropped row: what the correction path restates),
   * {@code state_rows_peak} long (the most event ids the dedup state holds at the end of a
   * micro-batch), {@code watermark_lag_s} double (the lower median over the micro-batches with rows
   * of the latest enqueued time read so far minus the watermark after the micro-batch: how far the
   * watermark trails the newest arrival; null when it never moved), {@code batch_basis} string
   * ({@link WatermarkReplay#RECORDED}, {@link WatermarkReplay#MIXED} or {@link
   * WatermarkReplay#PER_BRONZE_BATCH}), {@code target_drop_share} double, {@code computed_at}
   * timestamp.
   */
  public static final StructType SCHEMA =
      new StructType()
          .add("query_name", DataTypes.StringType)
          .add("from_day", DataTypes.DateType)
          .add("to_day", DataTypes.DateType)
          .add("delay_s", DataTypes.DoubleType)
          .add("configured", DataTypes.BooleanType)
          .add("recommended", DataTypes.BooleanType)
          .add("rows", DataTypes.LongType)
          .add("micro_batches", DataTypes.LongType)
          .add("dropped_count", DataTypes.LongType)
          .add("dropped_share", DataTypes.DoubleType)
          .add("gold_rows_to_correct", DataTypes.LongType)
          .add("state_rows_peak", DataTypes.LongType)
          .add("watermark_lag_s", DataTypes.DoubleType)
          .add("batch_basis", DataTypes.StringType)
          .add("target_drop_share", DataTypes.DoubleType)
          .add("computed_at", DataTypes.TimestampType);

  /**
   * @return the smallest delay whose dropped share is at most {@code target}, or null when none is
   *     or there is no evidence (no row replayed, or a watermark that never moved)
   */
  public static Duration recommend(List<ReplayOutcome> outcomes, double target) {
    return outcomes.stream()
        .filter(o -> o.rows() > 0 && o.watermarkLagSeconds() != null)
        .filter(o -> o.droppedShare() <= target)
        .map(ReplayOutcome::delay)
        .min(Duration::compareTo)
        .orElse(null);
  }

  /**
   * @return the rows of {@code monitoring.watermark_replay} ({@link #SCHEMA})
   */
  public static List<Row> rows(
      String queryName,
      DayRange range,
      List<ReplayOutcome> outcomes,
      Duration configured,
      double target,
      Instant computedAt) {
    Duration recommended = recommend(outcomes, target);
    List<Row> out = new ArrayList<>();
    for (ReplayOutcome o : outcomes) {
      out.add(
          RowFactory.create(
              queryName,
              java.sql.Date.valueOf(range.from()),
              java.sql.Date.valueOf(range.to()),
              o.delay().toNanos() / 1e9,
              o.delay().equals(configured),
              o.delay().equals(recommended),
              o.rows(),
              o.microBatches(),
              o.dropped(),
              o.droppedShare(),
              o.goldRowsToCorrect(),
              o.statePeakRows(),
              o.watermarkLagSeconds(),
              o.basis(),
              target,
              Timestamp.from(computedAt)));
    }
    return out;
  }
}

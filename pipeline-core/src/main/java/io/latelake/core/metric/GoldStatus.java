package io.latelake.core.metric;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;

import io.latelake.core.table.DeltaTables;
import io.latelake.core.table.TableRegistry;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Where a gold row stands for its readers — the one rule, used by the catalog's {@code
 * <metric>_status} views (their SQL is {@link #sql}) and by Java readers ({@link #withStatus}):
 *
 * <ul>
 *   <li>{@code restated} once a correction changed the row ({@code corrected_at} not null);
 *   <li>else {@code settled} once {@code window_end} + the correction horizon ({@code
 *       lake.correction.horizon}, at least the watermark delay) is at or before the last watermark
 *       the metric's gold stream reported (the largest {@code watermark} of query {@code
 *       gold_<metric>} in {@code monitoring.stream_progress}; watermarks never move back);
 *   <li>else {@code provisional}, also when the stream has reported no watermark yet.
 * </ul>
 *
 * <p>Event time, not wall-clock time: a replayed old dataset shows the windows its stream has not
 * passed by the horizon as provisional, however old they are; an idle stream keeps its windows
 * where they were. A settled window is also closed ({@code window_end <= watermark}).
 */
public final class GoldStatus {
  public static final String RESTATED = "restated";
  public static final String SETTLED = "settled";
  public static final String PROVISIONAL = "provisional";

  private GoldStatus() {}

  /**
   * The rule as SQL.
   *
   * @param correctedAt SQL expression of {@code corrected_at} (e.g. {@code g.corrected_at}; {@code
   *     NULL} for a table without the column)
   * @param windowEnd SQL expression of {@code window_end} (timestamp, UTC)
   * @param lastWatermark SQL expression of the gold stream's last watermark (timestamp, UTC; null
   *     when none was reported)
   * @param horizon {@code lake.correction.horizon}
   * @return a {@code CASE} expression giving {@code restated}, {@code settled} or {@code
   *     provisional}
   */
  public static String sql(
      String correctedAt, String windowEnd, String lastWatermark, Duration horizon) {
    long micros = horizon.toNanos() / 1000;
    return "CASE WHEN "
        + correctedAt
        + " IS NOT NULL THEN '"
        + RESTATED
        + "' WHEN "
        + "timestampadd(MICROSECOND, "
        + micros
        + ", "
        + windowEnd
        + ") <= "
        + lastWatermark
        + " THEN '"
        + SETTLED
        + "' ELSE '"
        + PROVISIONAL
        + "' END";
  }

  /**
   * @param gold rows with {@code window_end} (timestamp) and usually {@code corrected_at}
   *     (timestamp; a table without it has no restated rows)
   * @param lastWatermark the gold stream's last watermark (empty: none reported yet)
   * @return the gold rows with a {@code status} string column
   */
  public static Dataset<Row> withStatus(
      Dataset<Row> gold, Optional<Instant> lastWatermark, Duration horizon) {
    Column wm = lastWatermark.map(w -> lit(Timestamp.from(w))).orElse(lit(null).cast("timestamp"));
    return gold.withColumn("_latelake_last_watermark", wm)
        .withColumn(
            "status",
            expr(
                sql(
                    List.of(gold.columns()).contains("corrected_at") ? "corrected_at" : "NULL",
                    "window_end",
                    "_latelake_last_watermark",
                    horizon)))
        .drop("_latelake_last_watermark");
  }

  /**
   * Reads {@code gold.<metric>} and adds {@code status} for the stream's last watermark now.
   *
   * @return the gold rows with a {@code status} string column
   */
  public static Dataset<Row> withStatus(
      SparkSession spark, TableRegistry tables, MetricSpec metric, Duration horizon) {
    return withStatus(
        spark.read().format("delta").load(tables.gold(metric.name())),
        lastWatermark(spark, tables, metric, Optional.empty()),
        horizon);
  }

  /**
   * One Spark job over {@code gold.<metric>}: its rows by status now.
   *
   * @return rows per status, in the order provisional, settled, restated (0 for a status no row
   *     has)
   */
  public static java.util.Map<String, Long> counts(
      SparkSession spark, TableRegistry tables, MetricSpec metric, Duration horizon) {
    java.util.Map<String, Long> counts = new java.util.LinkedHashMap<>();
    for (String s : List.of(PROVISIONAL, SETTLED, RESTATED)) {
      counts.put(s, 0L);
    }
    for (Row r :
        withStatus(spark, tables, metric, horizon).groupBy("status").count().collectAsList()) {
      counts.put(r.getString(0), r.getLong(1));
    }
    return counts;
  }

  /**
   * The last watermark the gold stream of {@code metric} reported: the largest {@code watermark} of
   * query {@code gold_<metric>} in {@code monitoring.stream_progress} (watermarks never move back).
   * A window with {@code window_end <= watermark} is closed (inclusive, as Spark evicts). The jobs'
   * one reader of it: {@code correct}, {@code audit}, {@code asof} and {@code backfill} ask here
   * (the status views compute the same in SQL beside {@link #sql}).
   *
   * @return the watermark (UTC), empty when the stream has reported none
   */
  public static Optional<Instant> lastWatermark(
      SparkSession spark, TableRegistry tables, MetricSpec metric) {
    return lastWatermark(spark, tables, metric, Optional.empty());
  }

  /**
   * As {@link #lastWatermark(SparkSession, TableRegistry, MetricSpec)}, as it was at {@code asOf}.
   *
   * <p>Two Spark jobs that read what is recent, not the whole history of {@code stream_progress} (a
   * row per micro-batch: about 95 million a year at one-second triggers with three queries). The
   * first takes the largest watermark among the query's micro-batches of the day before {@code
   * asOf} (or now); the second looks for a larger one anywhere, as an older checkpoint's before a
   * {@code backfill} moved it aside may hold. Delta's data skipping on the files' {@code
   * batch_timestamp} and {@code watermark} statistics opens only the files that can hold such rows.
   * The result is the largest watermark whatever the clock says; a query without a watermark in
   * that day, or a table without {@code batch_timestamp}, is read in full.
   *
   * @param asOf only micro-batches that started ({@code batch_timestamp}) at or before it; empty:
   *     all
   * @return the watermark (UTC), empty when the stream has reported none
   */
  public static Optional<Instant> lastWatermark(
      SparkSession spark, TableRegistry tables, MetricSpec metric, Optional<Instant> asOf) {
    if (!DeltaTables.exists(spark, tables.streamProgress())) {
      return Optional.empty();
    }
    Dataset<Row> progress =
        spark
            .read()
            .format("delta")
            .load(tables.streamProgress())
            .filter(col("query_name").equalTo(metric.queryName()));
    if (asOf.isPresent()) {
      progress = progress.filter(col("batch_timestamp").leq(lit(Timestamp.from(asOf.get()))));
    }
    if (!List.of(progress.columns()).contains("batch_timestamp")) {
      // a table without it (written by hand, e.g. a test fixture) is read in full
      return largest(progress);
    }
    Instant recentFrom = asOf.orElseGet(Instant::now).minus(RECENT);
    Optional<Instant> recent =
        largest(progress.filter(col("batch_timestamp").geq(lit(Timestamp.from(recentFrom)))));
    if (recent.isEmpty()) {
      return largest(progress);
    }
    Optional<Instant> above =
        largest(progress.filter(col("watermark").gt(lit(Timestamp.from(recent.get())))));
    return above.isPresent() ? above : recent;
  }

  /** How far back {@link #lastWatermark} looks first: a day of micro-batches. */
  static final Duration RECENT = Duration.ofDays(1);

  private static Optional<Instant> largest(Dataset<Row> progress) {
    Row r = progress.agg(max(col("watermark"))).first();
    return r.isNullAt(0) ? Optional.empty() : Optional.of(r.getTimestamp(0).toInstant());
  }
}

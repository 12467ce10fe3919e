package io.latelake.profiler;

import static org.apache.spark.sql.functions.array;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.element_at;
import static org.apache.spark.sql.functions.explode;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.posexplode;
import static org.apache.spark.sql.functions.slice;
import static org.apache.spark.sql.functions.struct;

import io.latelake.core.time.DayRange;
import java.time.Instant;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;

/**
 * The profile's figures per source over the whole range, from the per-source rows of a {@link
 * LatenessStats#summary}: {@code monitoring.lateness_cdf} and {@code monitoring.watermark_advice}.
 * Pure {@code Dataset<Row>} transformations; no I/O.
 */
public final class RangeFigures {
  private RangeFigures() {}

  /**
   * The lateness distribution per source over the whole range, as quantiles: the rows of {@code
   * monitoring.lateness_cdf}, from the per-source rows of a {@link LatenessStats#summary} made with
   * the same {@code cfg} (sources with measured events).
   *
   * <p>Output: {@code source} string, {@code from_day}, {@code to_day} date, {@code n} long, {@code
   * level} double (i / steps, i = 0..steps, steps = {@code lake.profiler.cdf-steps}), {@code
   * lateness_s} double (the {@link LatenessStats#quantiles} value at that level: {@code
   * percentile_approx}, or {@code percentile_disc} with {@code --exact}), {@code accuracy} int
   * ({@code percentile_approx}'s, null with {@code --exact}), {@code computed_at} timestamp.
   */
  public static Dataset<Row> cdf(
      Dataset<Row> summary, DayRange range, ProfilerConfig cfg, Instant computedAt) {
    int steps = cfg.cdfSteps();
    Column values = slice(col("quantiles"), LatenessStats.LEVELS.length + 1, steps + 1);
    return summary
        .filter(col("arrival_day").isNull().and(col("n").gt(0)))
        .select(col("source"), col("n"), posexplode(values).as(new String[] {"_i", "_v"}))
        .select(
            col("source"),
            lit(java.sql.Date.valueOf(range.from())).as("from_day"),
            lit(java.sql.Date.valueOf(range.to())).as("to_day"),
            col("n"),
            col("_i").cast(DataTypes.DoubleType).divide(steps).as("level"),
            col("_v").as("lateness_s"),
            accuracy(cfg),
            lit(java.sql.Timestamp.from(computedAt)).as("computed_at"));
  }

  /**
   * Watermark and correction advice per source over the whole range: the rows of {@code
   * monitoring.watermark_advice}, from the per-source rows of a {@link LatenessStats#summary} made
   * with the same {@code cfg} (sources with measured events).
   *
   * <p>One row per source and target: {@code source} string, {@code from_day}, {@code to_day} date,
   * {@code n} long, {@code kind} string ({@code watermark} or {@code correction}), {@code coverage}
   * double (the target share), {@code advised_delay_s} double (the {@link LatenessStats#quantiles}
   * lateness at that share: a watermark delay / correction lookback of at least this would have
   * covered the target share of the range's events), {@code configured_delay_s} double (the
   * configured watermark delay, or correction horizon), {@code configured_beyond_count} long and
   * {@code configured_beyond_share} double (events with lateness &gt; the configured value: an
   * upper bound of the watermark's drops, or never corrected), {@code configured_dropped_count}
   * long and {@code configured_dropped_share} double (watermark rows only: behind the configured
   * watermark in arrival order, {@link BehindWatermark#flag} — what it would have dropped; null on
   * the correction row), {@code accuracy} int ({@code percentile_approx}'s, null with {@code
   * --exact}), {@code computed_at} timestamp.
   */
  public static Dataset<Row> advice(
      Dataset<Row> summary, DayRange range, ProfilerConfig cfg, Instant computedAt) {
    List<Double> targets = LatenessStats.adviceTargets(cfg);
    int first = LatenessStats.LEVELS.length + cfg.cdfSteps() + 1;
    double wm = cfg.watermarkDelaySeconds();
    double horizon = cfg.correctionHorizonSeconds();
    Column[] items = new Column[targets.size()];
    for (int i = 0; i < targets.size(); i++) {
      boolean correction = i == targets.size() - 1;
      Column beyond = col(correction ? "beyond_correction_count" : "beyond_watermark_count");
      items[i] =
          struct(
              lit(correction ? "correction" : "watermark").as("kind"),
              lit(targets.get(i)).as("coverage"),
              element_at(col("quantiles"), first + i + 1).as("advised_delay_s"),
              lit(correction ? horizon : wm).as("configured_delay_s"),
              beyond.as("configured_beyond_count"),
              beyond.divide(col("n")).as("configured_beyond_share"),
              (correction ? lit(null).cast(DataTypes.LongType) : col("behind_watermark_count"))
                  .as("configured_dropped_count"),
              (correction
                      ? lit(null).cast(DataTypes.DoubleType)
                      : col("behind_watermark_count").divide(col("n")))
                  .as("configured_dropped_share"));
    }
    return summary
        .filter(col("arrival_day").isNull().and(col("n").gt(0)))
        .select(col("source"), col("n"), explode(array(items)).as("_a"))
        .select(
            col("source"),
            lit(java.sql.Date.valueOf(range.from())).as("from_day"),
            lit(java.sql.Date.valueOf(range.to())).as("to_day"),
            col("n"),
            col("_a.*"),
            accuracy(cfg),
            lit(java.sql.Timestamp.from(computedAt)).as("computed_at"));
  }

  /**
   * @return {@code accuracy} int: the {@code percentile_approx} accuracy the run's values were
   *     computed with (rank error ≤ n / accuracy), null for an {@code --exact} run ({@code
   *     percentile_disc}), as in {@code lateness_stats.accuracy}
   */
  private static Column accuracy(ProfilerConfig cfg) {
    return (cfg.exact() ? lit(null) : lit(cfg.accuracy()))
        .cast(DataTypes.IntegerType)
        .as("accuracy");
  }
}

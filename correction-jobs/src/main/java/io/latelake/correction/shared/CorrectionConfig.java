package io.latelake.correction.shared;

import com.typesafe.config.Config;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.config.Settings;
import io.latelake.core.config.SharedSettings;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.metric.Metrics;
import io.latelake.core.streaming.SourceWatermarks;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;

/**
 * Typed, validated view of {@code lake.correction} plus the metrics the correction jobs work on.
 *
 * @param horizon correction horizon ({@code lake.correction.horizon}): a window is provisional
 *     until its end + horizon ≤ the gold stream's last watermark ({@link
 *     io.latelake.core.metric.GoldStatus})
 * @param auditTolerance largest accepted absolute difference per measure in {@code audit}
 * @param maxCommitAttempts attempts of a Delta commit that loses to a concurrent commit
 * @param retryBackoff wait before the first retry (doubles each time)
 * @param lookbackDays default event-date lookback of rebuild, cascade and audit, in days
 * @param goldWatermarkDelay {@code lake.gold.watermark-delay}
 * @param dedupHorizon id horizon of the exact dedup ({@code lake.correction.dedup-horizon}): a
 *     recompute of event times {@code [from, to)} reads bronze over {@code [from − horizon, to +
 *     horizon)}, so copies of an event this far apart in event time are seen as one
 * @param rollupZone time zone of the days of {@code gold.daily_*} and of the rollups ({@code
 *     lake.correction.rollup-time-zone}, an IANA region or UTC)
 * @param rollups the rollups {@code cascade} keeps over the daily totals ({@code
 *     lake.correction.rollups}: weekly, monthly, yearly; in that order, each once)
 * @param metrics the configured gold metrics (sorted by name)
 * @param sources {@code lake.sources}: the sources with a watermark of their own in the gold
 *     stream, and their idle timeouts ({@link io.latelake.core.streaming.SourceInputs}); {@code
 *     backfill} starts the new checkpoint with them
 */
public record CorrectionConfig(
    Duration horizon,
    double auditTolerance,
    int maxCommitAttempts,
    Duration retryBackoff,
    int lookbackDays,
    Duration goldWatermarkDelay,
    Duration dedupHorizon,
    ZoneId rollupZone,
    List<RollupPeriod> rollups,
    List<MetricSpec> metrics,
    SourceWatermarks sources) {

  /**
   * @throws LakeConfigException naming the first bad key and value; the horizon must be at least
   *     the gold watermark delay
   */
  public static CorrectionConfig fromConfig(Config root) {
    Settings c = Settings.of(root).sub("lake.correction");
    Duration horizon = SharedSettings.correctionHorizon(root);
    Duration delay = SharedSettings.goldWatermarkDelay(root);
    double tolerance = c.number("audit-tolerance");
    if (tolerance < 0) {
      throw LakeConfigException.invalid(
          c.key("audit-tolerance"), tolerance, "expected a finite number >= 0");
    }
    io.latelake.core.config.ConfigChecks.describe(c.key("audit-tolerance"), "number ≥ 0");
    Duration dedupHorizon = SharedSettings.dedupHorizon(root);
    return new CorrectionConfig(
        horizon,
        tolerance,
        c.intBetween("max-commit-attempts", 1, 100),
        c.positiveDuration("retry-backoff"),
        c.intBetween("lookback-days", 1, 3660),
        delay,
        dedupHorizon,
        zone(c),
        rollups(c),
        Metrics.fromConfig(root),
        SourceWatermarks.fromConfig(root));
  }

  /**
   * @throws LakeConfigException unless {@code rollups} is a non-empty list of weekly, monthly and
   *     yearly, each at most once
   */
  static List<RollupPeriod> rollups(Settings c) {
    List<String> names = c.strings("rollups");
    java.util.TreeSet<RollupPeriod> out = new java.util.TreeSet<>();
    for (String n : names) {
      Optional<RollupPeriod> p = RollupPeriod.parse(n);
      if (p.isEmpty()) {
        throw LakeConfigException.invalid(
            c.key("rollups"), n, "expected weekly, monthly or yearly");
      }
      if (!out.add(p.get())) {
        throw LakeConfigException.invalid(c.key("rollups"), n, "is listed twice");
      }
    }
    if (out.isEmpty()) {
      throw LakeConfigException.invalid(
          c.key("rollups"), "[]", "list at least one of weekly, monthly, yearly");
    }
    io.latelake.core.config.ConfigChecks.describe(
        c.key("rollups"), "list of weekly | monthly | yearly, not empty, each once");
    return List.copyOf(out);
  }

  /**
   * @throws LakeConfigException unless {@code rollup-time-zone} is an IANA region id ({@code
   *     America/New_York}) or {@code UTC}: a fixed offset would put the days of half the year an
   *     hour off once daylight saving time changes
   */
  static ZoneId zone(Settings c) {
    String text = c.string("rollup-time-zone");
    ZoneId zone;
    try {
      zone = ZoneId.of(text);
    } catch (java.time.DateTimeException e) {
      throw LakeConfigException.invalid(
          c.key("rollup-time-zone"),
          text,
          "expected an IANA time-zone name such as America/New_York, or UTC");
    }
    if (zone instanceof java.time.ZoneOffset) {
      throw LakeConfigException.invalid(
          c.key("rollup-time-zone"),
          text,
          "a fixed offset does not follow daylight saving time; give an IANA time-zone name "
              + "such as America/New_York, or UTC");
    }
    io.latelake.core.config.ConfigChecks.describe(
        c.key("rollup-time-zone"), "IANA time-zone name, or UTC");
    return zone;
  }

  /**
   * @param name a metric name from the command line
   * @return the metric
   * @throws LakeConfigException when no such metric is configured
   */
  public MetricSpec metric(String name) {
    Optional<MetricSpec> m = metrics.stream().filter(s -> s.name().equals(name)).findFirst();
    return m.orElseThrow(
        () ->
            LakeConfigException.invalid(
                "--metric",
                name,
                "no such metric in lake.gold.metrics; configured: "
                    + metrics.stream().map(MetricSpec::name).toList()));
  }

  /**
   * @param names metric names from the command line; empty means all
   * @return the selected metrics
   * @throws LakeConfigException on an unknown name
   */
  public List<MetricSpec> select(List<String> names) {
    if (names == null || names.isEmpty()) {
      return metrics;
    }
    return names.stream().distinct().map(this::metric).toList();
  }
}

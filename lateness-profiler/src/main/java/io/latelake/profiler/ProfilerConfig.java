package io.latelake.profiler;

import com.typesafe.config.Config;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.config.Settings;
import io.latelake.core.config.SharedSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Typed, validated view of {@code lake.profiler} (see {@code conf/application.conf} for each key).
 *
 * @param lookbackDays arrival days profiled when no {@code --days} is given (1..3660)
 * @param accuracy {@code percentile_approx} accuracy: rank error ≤ n / accuracy
 * @param watermarkDelay the watermark delay compared with ({@code lake.profiler.watermark-delay},
 *     else {@code lake.gold.watermark-delay}, the delay that closes gold windows)
 * @param correctionHorizon {@code lake.correction.horizon}: a window counts as settled this long
 *     after its end; an event later than this restates a settled number
 * @param publishAfter a day's publish time, counted from the start of the event's UTC day
 * @param watermarkCoverage coverage targets of the watermark advice, each in (0, 1)
 * @param correctionCoverage coverage target of the correction lookback advice, in (0, 1)
 * @param cdfSteps quantile steps of {@code monitoring.lateness_cdf}
 * @param rules SLA rules
 * @param dropWindowBatches micro-batches per query checked by the watermark-drop alert
 * @param dropMaxCount drop alert count limit (0: off)
 * @param dropMaxShare drop alert share limit (0: off)
 * @param reportDir folder of the HTML report
 * @param dedupHorizon id horizon of the exact dedup ({@code lake.correction.dedup-horizon}, the
 *     correction path's): copies ingested this long before the profiled days are read to tell a
 *     redelivery from a first arrival
 * @param silverDelay {@code lake.silver.watermark-delay}: the delay of the stream whose drops the
 *     watermark replay predicts ({@link WatermarkReplay})
 * @param candidateDelays {@code lake.profiler.candidate-delays}: further delays the replay tries
 * @param targetDropShare {@code lake.profiler.target-drop-share}: the replay recommends the
 *     smallest delay whose dropped share is at most this, in [0, 1)
 * @param sources {@code lake.sources}: the sources with a watermark of their own, and their idle
 *     timeouts ({@code lake.sources-idle-after}), which the watermark replay replays
 * @param windows the gold metrics' windows and group-by columns ({@code lake.gold.metrics}; empty
 *     when none is configured): the replay counts the gold rows each delay leaves to the correction
 *     path
 * @param silverAuto whether {@code lake.silver.watermark-delay} is {@code auto} ({@code
 *     silverDelay} is then its fallback, and the replay's configured delay the one silver last ran
 *     with)
 * @param exact whether the run's percentiles are exact ({@code latelake profile --exact}, {@link
 *     #withExact}): {@code percentile_disc} instead of {@code percentile_approx}, {@code accuracy}
 *     unused; never from the config file
 */
public record ProfilerConfig(
    int lookbackDays,
    int accuracy,
    Duration watermarkDelay,
    Duration correctionHorizon,
    Duration publishAfter,
    List<Double> watermarkCoverage,
    double correctionCoverage,
    int cdfSteps,
    List<AlertRule> rules,
    int dropWindowBatches,
    long dropMaxCount,
    double dropMaxShare,
    String reportDir,
    Duration dedupHorizon,
    Duration silverDelay,
    List<Duration> candidateDelays,
    double targetDropShare,
    io.latelake.core.streaming.SourceWatermarks sources,
    List<WatermarkReplay.Window> windows,
    boolean silverAuto,
    boolean exact) {

  public ProfilerConfig {
    watermarkCoverage = List.copyOf(watermarkCoverage);
    rules = List.copyOf(rules);
    candidateDelays = List.copyOf(candidateDelays);
    windows = List.copyOf(windows);
  }

  /**
   * @return the delays the watermark replay tries: silver's configured delay and the candidates,
   *     ascending, each once
   */
  public List<Duration> replayDelays() {
    return replayDelays(silverDelay);
  }

  /**
   * @param configured silver's delay to replay beside the candidates
   * @return it and the candidates, ascending, each once
   */
  public List<Duration> replayDelays(Duration configured) {
    java.util.TreeSet<Duration> all = new java.util.TreeSet<>(candidateDelays);
    all.add(configured);
    return List.copyOf(all);
  }

  /**
   * @param root the effective config
   * @return the validated profiler config
   * @throws LakeConfigException naming the first bad key and value (before any Spark work)
   */
  public static ProfilerConfig fromConfig(Config root) {
    Settings s = Settings.of(root).sub("lake.profiler");
    int lookback = s.intBetween("lookback-days", 1, 3660);
    int accuracy = s.intBetween("accuracy", 1, 1_000_000);
    Duration horizon = SharedSettings.correctionHorizon(root);
    Duration watermark =
        s.optionalString("watermark-delay").isEmpty()
            ? SharedSettings.goldWatermarkDelay(root)
            : s.positiveDuration("watermark-delay");
    io.latelake.core.config.ConfigChecks.describe(
        s.key("watermark-delay"), "empty (lake.gold.watermark-delay), or duration > 0");
    if (watermark.compareTo(horizon) > 0) {
      throw LakeConfigException.invalid(
          s.key("watermark-delay"),
          root.getValue(s.key("watermark-delay")).unwrapped(),
          "must not be longer than lake.correction.horizon (" + horizon + ")");
    }
    Duration publish = s.duration("publish-after");
    List<Double> coverage = shares(s, root, "watermark-coverage");
    if (coverage.isEmpty()) {
      throw LakeConfigException.invalid(
          s.key("watermark-coverage"),
          "[]",
          "give at least one coverage target, e.g. [0.99, 0.999]");
    }
    io.latelake.core.config.ConfigChecks.describe(
        s.key("watermark-coverage"), "list of numbers in (0, 1), not empty");
    double correction = share(s, "correction-coverage");
    int steps = s.intBetween("cdf-steps", 10, 100_000);
    List<AlertRule> rules = new ArrayList<>();
    List<? extends Config> ruleConfigs = s.objects("rules");
    for (int i = 0; i < ruleConfigs.size(); i++) {
      rules.add(AlertRule.fromConfig(ruleConfigs.get(i), s.key("rules") + "[" + i + "]"));
    }
    int window = s.intBetween("drop-window-batches", 1, 1_000_000);
    long maxCount = s.longBetween("drop-max-count", 0, Long.MAX_VALUE);
    double maxShare = s.number("drop-max-share");
    if (maxShare < 0 || maxShare > 1) {
      throw LakeConfigException.invalid(
          s.key("drop-max-share"), maxShare, "must be between 0 and 1 (0: off)");
    }
    io.latelake.core.config.ConfigChecks.describe(s.key("drop-max-share"), "number in [0, 1]");
    String dir = s.optionalString("report-dir");
    if (dir.isEmpty()) {
      dir = io.latelake.core.table.TableRegistry.fromConfig(root).root() + "/reports/lateness";
    }
    List<Duration> candidates = s.positiveDurations("candidate-delays");
    double target = s.number("target-drop-share");
    if (target < 0 || target >= 1) {
      throw LakeConfigException.invalid(
          s.key("target-drop-share"), target, "must be a share at least 0 and below 1");
    }
    io.latelake.core.config.ConfigChecks.describe(s.key("target-drop-share"), "number in [0, 1)");
    return new ProfilerConfig(
        lookback,
        accuracy,
        watermark,
        horizon,
        publish,
        coverage,
        correction,
        steps,
        rules,
        window,
        maxCount,
        maxShare,
        dir,
        SharedSettings.dedupHorizon(root),
        SharedSettings.silverWatermarkDelay(root),
        candidates,
        target,
        io.latelake.core.streaming.SourceWatermarks.fromConfig(root),
        windows(root),
        io.latelake.core.streaming.WatermarkDelaySetting.fromConfig(
                Settings.of(root).sub("lake.silver"))
            .auto()
            .isPresent(),
        false);
  }

  /**
   * @param on whether the percentiles are exact ({@code --exact})
   * @return this config with {@link #exact} set to {@code on}
   */
  public ProfilerConfig withExact(boolean on) {
    return new ProfilerConfig(
        lookbackDays,
        accuracy,
        watermarkDelay,
        correctionHorizon,
        publishAfter,
        watermarkCoverage,
        correctionCoverage,
        cdfSteps,
        rules,
        dropWindowBatches,
        dropMaxCount,
        dropMaxShare,
        reportDir,
        dedupHorizon,
        silverDelay,
        candidateDelays,
        targetDropShare,
        sources,
        windows,
        silverAuto,
        on);
  }

  private static List<WatermarkReplay.Window> windows(Config root) {
    return io.latelake.core.metric.Metrics.declared(root).stream()
        .map(m -> new WatermarkReplay.Window(m.window(), m.groupBy()))
        .toList();
  }

  private static List<Double> shares(Settings s, Config root, String path) {
    List<Double> out = s.numbers(path);
    for (double v : out) {
      if (!(v > 0 && v < 1)) {
        throw LakeConfigException.invalid(
            s.key(path),
            root.getValue(s.key(path)).unwrapped(),
            "each coverage must be a share strictly between 0 and 1");
      }
    }
    return out;
  }

  private static double share(Settings s, String path) {
    double v = s.number(path);
    if (!(v > 0 && v < 1)) {
      throw LakeConfigException.invalid(s.key(path), v, "must be a share strictly between 0 and 1");
    }
    io.latelake.core.config.ConfigChecks.describe(s.key(path), "number in (0, 1)");
    return v;
  }

  /**
   * @return the configured watermark delay in seconds
   */
  public double watermarkDelaySeconds() {
    return watermarkDelay.toNanos() / 1e9;
  }

  /**
   * @return the correction horizon in seconds
   */
  public double correctionHorizonSeconds() {
    return correctionHorizon.toNanos() / 1e9;
  }
}

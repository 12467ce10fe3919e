package io.latelake.profiler;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.config.Settings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Typed, validated view of {@code lake.profiler} (see {@code conf/application.conf} for each key).
 *
 * @param lookbackDays arrival days profiled when no {@code --days} is given (1..3660)
 * @param accuracy {@code percentile_approx} accuracy: rank error ≤ n / accuracy
 * @param watermarkDelay the watermark delay compared with ({@code lake.profiler.watermark-delay},
 *     else {@code lake.silver.watermark-delay})
 * @param correctionHorizon how late the correction path still restates a window
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
 *     correction path's): copies ingested this long before the profiled days are read to tell
 *     a redelivery from a first arrival
 */
public record ProfilerConfig(int lookbackDays, int accuracy, Duration watermarkDelay,
    Duration correctionHorizon, Duration publishAfter, List<Double> watermarkCoverage,
    double correctionCoverage, int cdfSteps, List<AlertRule> rules, int dropWindowBatches,
    long dropMaxCount, double dropMaxShare, String reportDir, Duration dedupHorizon) {

  public ProfilerConfig {
    watermarkCoverage = List.copyOf(watermarkCoverage);
    rules = List.copyOf(rules);
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
    Duration watermark = s.optionalString("watermark-delay").isEmpty()
        ? Settings.of(root).positiveDuration("lake.silver.watermark-delay")
        : s.positiveDuration("watermark-delay");
    Duration horizon = s.positiveDuration("correction-horizon");
    if (horizon.compareTo(watermark) < 0) {
      throw LakeConfigException.invalid(s.key("correction-horizon"),
          root.getValue(s.key("correction-horizon")).unwrapped(),
          "must not be shorter than the watermark delay (" + watermark + ")");
    }
    Duration publish = s.duration("publish-after");
    List<Double> coverage = shares(s, root, "watermark-coverage");
    if (coverage.isEmpty()) {
      throw LakeConfigException.invalid(s.key("watermark-coverage"), "[]",
          "give at least one coverage target, e.g. [0.99, 0.999]");
    }
    double correction = share(root, s.key("correction-coverage"));
    int steps = s.intBetween("cdf-steps", 10, 100_000);
    List<AlertRule> rules = new ArrayList<>();
    List<? extends Config> ruleConfigs = s.objects("rules");
    for (int i = 0; i < ruleConfigs.size(); i++) {
      rules.add(AlertRule.fromConfig(ruleConfigs.get(i), s.key("rules") + "[" + i + "]"));
    }
    int window = s.intBetween("drop-window-batches", 1, 1_000_000);
    long maxCount = s.longBetween("drop-max-count", 0, Long.MAX_VALUE);
    double maxShare = number(root, s.key("drop-max-share"));
    if (maxShare < 0 || maxShare > 1) {
      throw LakeConfigException.invalid(s.key("drop-max-share"), maxShare,
          "must be between 0 and 1 (0: off)");
    }
    String dir = s.optionalString("report-dir");
    if (dir.isEmpty()) {
      dir = Settings.of(root).string("lake.root") + "/reports/lateness";
    }
    return new ProfilerConfig(lookback, accuracy, watermark, horizon, publish, coverage,
        correction, steps, rules, window, maxCount, maxShare, dir,
        Settings.of(root).positiveDuration("lake.correction.dedup-horizon"));
  }

  private static List<Double> shares(Settings s, Config root, String path) {
    String key = s.key(path);
    List<Double> out = new ArrayList<>();
    try {
      for (Number n : root.getDoubleList(key)) {
        double v = n.doubleValue();
        if (!(v > 0 && v < 1)) {
          throw LakeConfigException.invalid(key, root.getValue(key).unwrapped(),
              "each coverage must be a share strictly between 0 and 1");
        }
        out.add(v);
      }
    } catch (ConfigException.WrongType e) {
      throw LakeConfigException.invalid(key, root.getValue(key).unwrapped(),
          "expected a list of shares, e.g. [0.99, 0.999]");
    }
    return out;
  }

  private static double share(Config root, String key) {
    double v = number(root, key);
    if (!(v > 0 && v < 1)) {
      throw LakeConfigException.invalid(key, v, "must be a share strictly between 0 and 1");
    }
    return v;
  }

  private static double number(Config root, String key) {
    if (!root.hasPath(key)) {
      throw new LakeConfigException("Missing required key '" + key + "'");
    }
    try {
      return root.getDouble(key);
    } catch (ConfigException.WrongType e) {
      throw LakeConfigException.invalid(key, root.getValue(key).unwrapped(), "expected a number");
    }
  }

  /** @return the configured watermark delay in seconds */
  public double watermarkDelaySeconds() {
    return watermarkDelay.toNanos() / 1e9;
  }

  /** @return the correction horizon in seconds */
  public double correctionHorizonSeconds() {
    return correctionHorizon.toNanos() / 1e9;
  }
}

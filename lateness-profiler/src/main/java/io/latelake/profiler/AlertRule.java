package io.latelake.profiler;

import com.typesafe.config.Config;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.config.Settings;
import java.util.List;

/**
 * An SLA rule on {@code monitoring.lateness_stats}: fires for every (source, arrival day) row whose
 * {@code metric} is strictly above {@code above}.
 *
 * @param metric a numeric column of {@code monitoring.lateness_stats}, one of {@link #METRICS}
 * @param above the limit: seconds for {@code *_s}, a share 0..1 for {@code *_share}, a count for
 *     {@code *_count}
 */
public record AlertRule(String metric, double above) {
  /** Columns a rule may name. */
  public static final List<String> METRICS =
      List.of(
          "p50_s",
          "p90_s",
          "p95_s",
          "p99_s",
          "p999_s",
          "max_s",
          "negative_share",
          "beyond_watermark_share",
          "beyond_correction_share",
          "after_publish_share",
          "negative_count",
          "beyond_watermark_count",
          "beyond_correction_count");

  /**
   * @param rule one object of {@code lake.profiler.rules}
   * @param key the rule's key for messages, e.g. {@code lake.profiler.rules[0]}
   * @return the rule
   * @throws LakeConfigException naming the key and value when the metric is unknown, the limit is
   *     not a number, or a share is outside 0..1
   */
  public static AlertRule fromConfig(Config rule, String key) {
    for (String k : rule.root().keySet()) {
      if (!k.equals("metric") && !k.equals("above")) {
        throw new LakeConfigException(
            "Unknown key '" + key + "." + k + "': a rule has only 'metric' and 'above'");
      }
    }
    if (!rule.hasPath("metric")) {
      throw new LakeConfigException("Missing required key '" + key + ".metric'");
    }
    if (!rule.hasPath("above")) {
      throw new LakeConfigException("Missing required key '" + key + ".above'");
    }
    String metric = rule.getString("metric").trim();
    if (!METRICS.contains(metric)) {
      throw LakeConfigException.invalid(key + ".metric", metric, "expected one of " + METRICS);
    }
    double above = new Settings(rule, key).number("above");
    if (above < 0 || metric.endsWith("_share") && above > 1) {
      throw LakeConfigException.invalid(
          key + ".above",
          rule.getValue("above").unwrapped(),
          metric.endsWith("_share") ? "a share must be between 0 and 1" : "must not be negative");
    }
    return new AlertRule(metric, above);
  }

  /**
   * @return the rule as text, e.g. {@code p99_s > 600.0}
   */
  public String describe() {
    return metric + " > " + above;
  }
}

package io.latelake.core.metrics;

import com.typesafe.config.Config;
import io.latelake.core.config.Settings;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * What {@link StreamMetrics#install(SparkSession, StreamMetricsPlan)} registers, read from the
 * config before Spark starts.
 *
 * @param sources {@code lake.sources}
 * @param goldQueries the configured metrics by gold query name ({@code gold_<metric>}); empty
 *     without {@code lake.gold.metrics}
 * @param tables the lake's tables
 * @param horizon {@code lake.correction.horizon} (unused without metrics)
 * @param interval {@code lake.metrics.gold-interval}
 */
public record StreamMetricsPlan(
    List<String> sources,
    Map<String, io.latelake.core.metric.MetricSpec> goldQueries,
    io.latelake.core.table.TableRegistry tables,
    java.time.Duration horizon,
    java.time.Duration interval) {
  /**
   * @throws io.latelake.core.config.LakeConfigException (exit 2) for a bad {@code lake.sources}
   *     (also two sources with one metric name), {@code lake.metrics.gold-interval}, and, when
   *     metrics are configured, a bad metric definition or {@code lake.correction.horizon}
   */
  public static StreamMetricsPlan fromConfig(Config config) {
    List<String> sources = io.latelake.core.streaming.SourceInputs.fromConfig(config);
    StreamMetrics.checkNames(sources);
    java.time.Duration interval =
        Settings.of(config).sub("lake.metrics").positiveDuration("gold-interval");
    Map<String, io.latelake.core.metric.MetricSpec> gold = new java.util.HashMap<>();
    java.time.Duration horizon = java.time.Duration.ZERO;
    List<io.latelake.core.metric.MetricSpec> metrics =
        io.latelake.core.metric.Metrics.declared(config);
    if (!metrics.isEmpty()) {
      for (io.latelake.core.metric.MetricSpec m : metrics) {
        gold.put(m.queryName(), m);
      }
      horizon = io.latelake.core.config.SharedSettings.correctionHorizon(config);
    }
    return new StreamMetricsPlan(
        List.copyOf(sources),
        Map.copyOf(gold),
        io.latelake.core.table.TableRegistry.fromConfig(config),
        horizon,
        interval);
  }
}

package io.latelake.correction.policy;

import io.latelake.core.metric.LatePolicy;
import io.latelake.core.metric.MetricSpec;
import io.latelake.correction.shared.CorrectionConfig;
import io.latelake.correction.shared.CorrectionTables;
import io.latelake.correction.shared.Drift;
import io.latelake.correction.shared.GoldWriter;
import io.latelake.correction.shared.TouchedWindows;
import java.sql.Timestamp;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * What {@code correct} does with one metric's corrections, chosen once from the metric's {@link
 * LatePolicy} ({@link #of}): {@code restate} logs them in {@code monitoring.corrections_log} and
 * MERGEs them into gold ({@link GoldWriter}); {@code reconcile} stages them in {@code
 * monitoring.pending_<metric>} for {@code apply-corrections} ({@link Reconcile}); {@code ignore}
 * records the drift in {@code monitoring.recompute_audit} and leaves gold as published ({@link
 * Drift}).
 */
public interface LateHandling {
  /**
   * Applies corrections of one run. Idempotent: applying the same rows again changes nothing.
   *
   * @param corrections rows of {@link io.latelake.correction.shared.Corrections#diff}, read at
   *     fixed table versions so every write sees the same rows
   * @param runId the {@code correct} run's id, written beside every row
   * @param correctedAt the run's start (UTC): {@code corrected_at}, {@code staged_at} or {@code
   *     audited_at}
   * @throws io.latelake.core.table.StorageException when a commit keeps conflicting
   */
  void apply(Dataset<Row> corrections, String runId, Timestamp correctedAt);

  /**
   * @return the handling of {@code metric}'s late policy, bound to the metric and its tables
   */
  static LateHandling of(
      SparkSession spark, CorrectionTables tables, CorrectionConfig config, MetricSpec metric) {
    return switch (metric.latePolicy()) {
      case RESTATE -> {
        GoldWriter writer = new GoldWriter(config.maxCommitAttempts(), config.retryBackoff());
        String gold = tables.registry().gold(metric.name());
        yield (corrections, runId, at) -> {
          TouchedWindows windows = TouchedWindows.of(corrections, metric.window());
          writer.log(corrections, tables.log(), metric, runId, "restate", at, windows);
          writer.restate(corrections, gold, metric, at, windows);
        };
      }
      case RECONCILE ->
          (corrections, runId, at) ->
              Reconcile.stage(spark, tables, metric, corrections, runId, at, config);
      case IGNORE ->
          (corrections, runId, at) ->
              Drift.record(spark, tables, metric, corrections, runId, "correct", at, config);
    };
  }
}

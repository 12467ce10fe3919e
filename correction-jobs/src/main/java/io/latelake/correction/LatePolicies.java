package io.latelake.correction;

import io.latelake.core.metric.MetricSpec;
import java.sql.Timestamp;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * What {@code correct} does with a metric's corrections, by its {@link
 * io.latelake.core.metric.LatePolicy}: {@code RESTATE} logs them in {@code
 * monitoring.corrections_log} and MERGEs them into gold ({@link GoldWriter}), {@code RECONCILE}
 * stages them in {@code monitoring.pending_<metric>} ({@link Reconcile}), {@code IGNORE} records
 * the drift in {@code monitoring.recompute_audit} ({@link Drift}).
 */
final class LatePolicies {
  private LatePolicies() {}

  /**
   * @param corrections {@link Corrections#diff} rows, read at fixed table versions so every write
   *     sees the same rows
   */
  static void apply(
      SparkSession spark,
      CorrectionTables tables,
      CorrectionConfig config,
      MetricSpec metric,
      Dataset<Row> corrections,
      String runId,
      Timestamp correctedAt) {
    switch (metric.latePolicy()) {
      case RESTATE -> {
        GoldWriter writer = new GoldWriter(config.maxCommitAttempts(), config.retryBackoff());
        writer.log(corrections, tables.log(), metric, runId, "restate", correctedAt);
        writer.restate(corrections, tables.registry().gold(metric.name()), metric, correctedAt);
      }
      case RECONCILE ->
          Reconcile.stage(spark, tables, metric, corrections, runId, correctedAt, config);
      case IGNORE ->
          Drift.record(spark, tables, metric, corrections, runId, "correct", correctedAt, config);
    }
  }
}

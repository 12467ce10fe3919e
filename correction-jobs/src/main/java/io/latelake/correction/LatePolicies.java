package io.latelake.correction;

import static org.apache.spark.sql.functions.col;

import io.latelake.core.metric.MetricSpec;
import java.sql.Timestamp;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * What {@code correct} does with a metric's corrections, by its {@link
 * io.latelake.core.metric.LatePolicy}: {@code RESTATE} logs them in {@code
 * monitoring.corrections_log} and MERGEs them into gold ({@link GoldWriter}), {@code RECONCILE}
 * stages them in {@code monitoring.pending_<metric>} ({@link Reconcile}), {@code IGNORE} records
 * the drift in {@code monitoring.recompute_audit} ({@link Drift}).
 */
final class LatePolicies {
  /** How many changed rows a {@code correct} result carries per metric. */
  static final int SAMPLE = 50;

  private LatePolicies() {}

  /**
   * What a metric's corrections came to.
   *
   * @param changed the number of gold rows that differ from bronze
   * @param sample the first {@value #SAMPLE} of them, values as JSON
   */
  record Outcome(long changed, List<CorrectResult.Change> sample) {
    static final Outcome NONE = new Outcome(0, List.of());
  }

  /**
   * Recomputes the plan's closed windows from bronze at {@code bronzeVersion}, compares them with
   * gold at its latest version ({@link WindowDiff}) and applies the corrections by the metric's
   * policy, each step under the action's Spark job description.
   *
   * @return {@link Outcome#NONE} when nothing is closed
   */
  static Outcome correct(
      CorrectionAction<?, ?> action,
      MetricSpec metric,
      WindowPlanner.Plan plan,
      long bronzeVersion) {
    if (plan.closed().isEmpty()) {
      return Outcome.NONE;
    }
    Dataset<Row> corrections =
        WindowDiff.corrections(
            action.spark,
            action.registry,
            metric,
            plan,
            bronzeVersion,
            LakeReads.latestVersion(action.spark, action.registry.gold(metric.name())),
            action.config.dedupHorizon());
    // Read several times below (sample, count, log, window bounds, MERGE): computed once.
    corrections.persist(StorageLevel.MEMORY_AND_DISK());
    try {
      List<CorrectResult.Change> sample =
          action.step("recompute " + metric.name(), () -> sample(metric, corrections));
      long changed = sample.size() < SAMPLE ? sample.size() : corrections.count();
      if (changed > 0) {
        action.perform(
            metric.latePolicy().configName() + " " + metric.name(),
            () ->
                apply(
                    action.spark,
                    action.tables,
                    action.config,
                    metric,
                    corrections,
                    action.runId(),
                    action.startedAt()));
      }
      return new Outcome(changed, sample);
    } finally {
      corrections.unpersist();
    }
  }

  private static List<CorrectResult.Change> sample(MetricSpec metric, Dataset<Row> corrections) {
    return corrections
        .select(
            col("window_start"),
            col("window_end"),
            col("keys"),
            Corrections.asJson("old_values"),
            Corrections.asJson("new_values"),
            col("reason"))
        .limit(SAMPLE)
        .collectAsList()
        .stream()
        .map(
            r ->
                new CorrectResult.Change(
                    metric.name(),
                    r.getTimestamp(0).toInstant(),
                    r.getTimestamp(1).toInstant(),
                    r.getString(2),
                    r.getString(3),
                    r.getString(4),
                    r.getString(5)))
        .toList();
  }

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

package io.latelake.correction.shared;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.delta.tables.DeltaTable;
import io.latelake.core.metric.GoldMergePlan;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.DeltaRetry;
import java.sql.Timestamp;
import java.time.Duration;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Idempotent writes of corrections: the gold MERGE and the corrections_log insert. Each commit is
 * retried on a concurrent-commit conflict ({@link DeltaRetry}); re-running either with the same
 * corrections changes nothing.
 */
public final class GoldWriter {
  private final int attempts;
  private final Duration backoff;

  public GoldWriter(int attempts, Duration backoff) {
    this.attempts = attempts;
    this.backoff = backoff;
  }

  /**
   * MERGEs corrections ({@link Corrections#diff} schema) into {@code gold.<metric>} on its key:
   * {@code DELETE} rows remove the gold row; {@code UPSERT} rows update the measures and {@code
   * window_end} and set {@code corrected_at} — only when a measure differs — or insert a new row
   * with {@code updated_at} = {@code corrected_at} = {@code correctedAt} ({@link GoldMergePlan}'s
   * key condition, bounded to the runs of the corrections' windows, so Delta skips the files that
   * hold none of them; beyond {@value TouchedWindows#MAX_RUNS} runs, those across the smallest gaps
   * are joined and the windows between them are read too).
   *
   * @param windows the corrections' {@link TouchedWindows} (one Spark job over them, shared with
   *     {@link #log})
   */
  public void restate(
      Dataset<Row> corrections,
      String goldPath,
      MetricSpec metric,
      Timestamp correctedAt,
      TouchedWindows windows) {
    GoldMergePlan plan = GoldMergePlan.of(metric);
    Column on = windows.bound("t.window_start").and(plan.keyCondition());
    DeltaRetry.run(
        "MERGE of corrections into gold." + metric.name(),
        attempts,
        backoff,
        () -> {
          plan.execute(corrections, goldPath, on, GoldMergePlan.Stamps.correction(correctedAt));
          return null;
        });
  }

  /**
   * Inserts one {@code monitoring.corrections_log} row per correction, unless an identical entry
   * (metric, window, keys, old and new values) is there already — so a run repeated after a failure
   * does not log twice. The log is where the {@code old_values} and {@code new_values} structs
   * become JSON for people ({@link Corrections#asJson}).
   *
   * <p>The check for identical entries reads the log's rows of the metric within the runs of the
   * corrections' {@code window_start} values: Delta skips the files of other metrics and windows,
   * so a run reads what it may have logged before, not the whole log, which only grows.
   *
   * @param windows the corrections' {@link TouchedWindows}, or null to check the metric's whole log
   *     (backfill, whose corrections span every window)
   */
  public void log(
      Dataset<Row> corrections,
      String logPath,
      MetricSpec metric,
      String runId,
      String policy,
      Timestamp correctedAt,
      TouchedWindows windows) {
    Dataset<Row> rows =
        corrections.select(
            lit(runId).as("run_id"),
            lit(metric.name()).as("metric"),
            col("window_start"),
            col("window_end"),
            col("keys"),
            Corrections.asJson("old_values"),
            Corrections.asJson("new_values"),
            col("reason"),
            lit(policy).as("policy"),
            lit(correctedAt).as("corrected_at"));
    Column bound = col("t.metric").equalTo(lit(metric.name()));
    if (windows != null) {
      bound = bound.and(windows.bound("t.window_start"));
    }
    Column same =
        bound
            .and(col("t.metric").equalTo(col("s.metric")))
            .and(col("t.window_start").equalTo(col("s.window_start")))
            .and(col("t.keys").equalTo(col("s.keys")))
            .and(col("t.old_values").eqNullSafe(col("s.old_values")))
            .and(col("t.new_values").eqNullSafe(col("s.new_values")));
    DeltaRetry.run(
        "corrections_log insert",
        attempts,
        backoff,
        () -> {
          DeltaTable.forPath(corrections.sparkSession(), logPath)
              .as("t")
              .merge(rows.as("s"), same)
              .whenNotMatched()
              .insertAll()
              .execute();
          return null;
        });
  }
}

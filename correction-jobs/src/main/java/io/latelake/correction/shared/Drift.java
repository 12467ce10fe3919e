package io.latelake.correction.shared;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.DeltaRetry;
import io.latelake.core.table.DeltaTables;
import java.sql.Timestamp;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Records differences between published and recomputed values in {@code monitoring.recompute_audit}
 * (schema in {@link CorrectionTables}) without changing gold: used by {@code audit} and by {@code
 * correct} for metrics whose late policy is {@code ignore}.
 */
public final class Drift {
  private Drift() {}

  /**
   * @param differences {@link Corrections#diff} output: the difference is computed from the {@code
   *     new_values} and {@code old_values} structs (a missing side counting as 0), which are
   *     written as JSON ({@code recomputed}, {@code published})
   * @param job {@code audit} or {@code correct}
   */
  public static void record(
      SparkSession spark,
      CorrectionTables tables,
      MetricSpec metric,
      Dataset<Row> differences,
      String runId,
      String job,
      Timestamp at,
      CorrectionConfig config) {
    DeltaTables.createIfNotExists(
        spark, tables.audit(), CorrectionTables.AUDIT, List.of(), Map.of());
    Column diff = Corrections.maxAbsDifference(metric, "new_values", "old_values");
    Dataset<Row> rows =
        differences.select(
            lit(runId).as("run_id"),
            lit(job).as("job"),
            lit(metric.name()).as("metric"),
            col("window_start").as("period_start"),
            col("window_end").as("period_end"),
            col("keys"),
            Corrections.asJson("old_values").as("published"),
            Corrections.asJson("new_values").as("recomputed"),
            diff.as("difference"),
            diff.gt(lit(config.auditTolerance())).as("beyond_tolerance"),
            lit(at).as("audited_at"));
    DeltaRetry.run(
        "recompute_audit append",
        config.maxCommitAttempts(),
        config.retryBackoff(),
        () -> {
          rows.write().format("delta").mode("append").save(tables.audit());
          return null;
        });
  }
}

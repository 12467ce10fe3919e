package io.latelake.correction.policy;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.row_number;

import io.delta.tables.DeltaTable;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.DeltaRetry;
import io.latelake.core.table.DeltaTables;
import io.latelake.correction.shared.CorrectionConfig;
import io.latelake.correction.shared.CorrectionTables;
import io.latelake.correction.shared.Corrections;
import io.latelake.correction.shared.GoldWriter;
import io.latelake.correction.shared.LakeReads;
import io.latelake.correction.shared.TouchedWindows;
import java.sql.Timestamp;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;

/**
 * The {@code reconcile} late policy: corrections are staged in {@code monitoring.pending_<metric>}
 * (the corrections schema of {@link Corrections#diff}, values as structs, plus {@code run_id},
 * {@code staged_at}, {@code applied_at}, {@code applied_by}); published gold stays as it is until
 * {@code apply-corrections} applies the approved (selected) ones.
 */
public final class Reconcile {
  private Reconcile() {}

  static StructType pendingSchema(StructType corrections) {
    return corrections
        .add("run_id", DataTypes.StringType)
        .add("staged_at", DataTypes.TimestampType)
        .add("applied_at", DataTypes.TimestampType)
        .add("applied_by", DataTypes.StringType);
  }

  /**
   * Refuses a pending table staged by an earlier latelake version, which kept {@code old_values}
   * and {@code new_values} as JSON text: its rows would neither match nor apply.
   *
   * @throws LakeConfigException (exit 2) naming the table and the remedy
   */
  static void requireStructValues(SparkSession spark, String path, MetricSpec metric) {
    if (!DeltaTables.exists(spark, path)) {
      return;
    }
    StructType schema = spark.read().format("delta").load(path).schema();
    if (schema.getFieldIndex("new_values").isDefined()
        && schema.apply("new_values").dataType() instanceof StringType) {
      throw new LakeConfigException(
          "monitoring.pending_"
              + metric.name()
              + " at "
              + path
              + " was staged by an earlier latelake version (old_values and new_values as JSON"
              + " text). Apply its pending corrections with that version (`latelake"
              + " apply-corrections --metric "
              + metric.name()
              + "`), then move the table aside; this version stages it anew.");
    }
  }

  /**
   * Stages corrections; an identical unapplied correction (same key and values) is not staged
   * twice.
   */
  static void stage(
      SparkSession spark,
      CorrectionTables tables,
      MetricSpec metric,
      Dataset<Row> corrections,
      String runId,
      Timestamp at,
      CorrectionConfig config) {
    String path = tables.pending(metric);
    requireStructValues(spark, path, metric);
    DeltaTables.createIfNotExists(
        spark, path, pendingSchema(corrections.schema()), List.of(), Map.of());
    Dataset<Row> rows =
        corrections
            .withColumn("run_id", lit(runId))
            .withColumn("staged_at", lit(at))
            .withColumn("applied_at", lit(null).cast(DataTypes.TimestampType))
            .withColumn("applied_by", lit(null).cast(DataTypes.StringType));
    Column same =
        col("t.applied_at")
            .isNull()
            .and(col("t.window_start").equalTo(col("s.window_start")))
            .and(col("t.keys").equalTo(col("s.keys")))
            .and(col("t.new_values").eqNullSafe(col("s.new_values")));
    DeltaRetry.run(
        "staging into monitoring.pending_" + metric.name(),
        config.maxCommitAttempts(),
        config.retryBackoff(),
        () -> {
          DeltaTable.forPath(spark, path)
              .as("t")
              .merge(rows.as("s"), same)
              .whenNotMatched()
              .insertAll()
              .execute();
          return null;
        });
  }

  /**
   * Applies staged, unapplied corrections: the latest staged one per gold key, from the given runs
   * (all runs when {@code runIds} is empty). Gold gets them as a restatement (MERGE, {@code
   * corrected_at}), the log gets one entry each (policy {@code reconcile}), and the applied rows
   * are marked with {@code applied_at}/{@code applied_by}.
   *
   * @return the number of gold rows corrected
   */
  static long apply(
      SparkSession spark,
      CorrectionTables tables,
      MetricSpec metric,
      List<String> runIds,
      String applyRunId,
      Timestamp at,
      CorrectionConfig config) {
    return apply(spark, tables, metric, runIds, applyRunId, at, config, () -> {});
  }

  /** As above; {@code afterRead} runs right after the pending rows were read (tests only). */
  static long apply(
      SparkSession spark,
      CorrectionTables tables,
      MetricSpec metric,
      List<String> runIds,
      String applyRunId,
      Timestamp at,
      CorrectionConfig config,
      Runnable afterRead) {
    String path = tables.pending(metric);
    if (!DeltaTables.exists(spark, path)) {
      return 0;
    }
    requireStructValues(spark, path, metric);
    Column selected = col("applied_at").isNull();
    if (!runIds.isEmpty()) {
      selected = selected.and(col("run_id").isin(runIds.toArray()));
    }
    // One snapshot decides what is applied and what is marked: a row staged after it was read
    // stays pending for the next apply.
    long version = LakeReads.latestVersion(spark, path);
    Dataset<Row> pending =
        spark.read().format("delta").option("versionAsOf", version).load(path).filter(selected);
    Column[] key = new Column[metric.groupBy().size() + 1];
    key[0] = col("window_start");
    for (int i = 0; i < metric.groupBy().size(); i++) {
      key[i + 1] = col("`" + metric.groupBy().get(i) + "`");
    }
    Dataset<Row> latest =
        pending
            .withColumn(
                "_n", row_number().over(Window.partitionBy(key).orderBy(col("staged_at").desc())))
            .filter(col("_n").equalTo(1))
            .drop("_n", "run_id", "staged_at", "applied_at", "applied_by");
    // one job: the rows to apply and their windows (the log's and gold's MERGE bound)
    TouchedWindows windows = TouchedWindows.of(latest, metric.window());
    long rows = windows.rows();
    afterRead.run();
    if (rows == 0) {
      return 0;
    }
    GoldWriter writer = new GoldWriter(config.maxCommitAttempts(), config.retryBackoff());
    writer.log(latest, tables.log(), metric, applyRunId, "reconcile", at, windows);
    writer.restate(latest, tables.registry().gold(metric.name()), metric, at, windows);
    Dataset<Row> read = pending.select("run_id", "staged_at", "window_start", "keys");
    Column same =
        col("t.applied_at")
            .isNull()
            .and(col("t.run_id").equalTo(col("s.run_id")))
            .and(col("t.staged_at").equalTo(col("s.staged_at")))
            .and(col("t.window_start").equalTo(col("s.window_start")))
            .and(col("t.keys").equalTo(col("s.keys")));
    DeltaRetry.run(
        "marking monitoring.pending_" + metric.name() + " applied",
        config.maxCommitAttempts(),
        config.retryBackoff(),
        () -> {
          DeltaTable.forPath(spark, path)
              .as("t")
              .merge(read.as("s"), same)
              .whenMatched()
              .update(Map.of("applied_at", lit(at), "applied_by", lit(applyRunId)))
              .execute();
          return null;
        });
    return rows;
  }
}

package io.latelake.correction;

import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.DeltaTables;
import io.latelake.core.table.TableRegistry;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Paths and schemas of the tables the correction jobs own. All timestamps UTC.
 *
 * <pre>
 * monitoring.correction_state      metric string, bronze_version long (last bronze version whose
 *                                  rows were looked at), pending_window_starts array&lt;timestamp&gt;
 *                                  (touched windows still open: corrected by a later run),
 *                                  run_id string, updated_at timestamp
 * monitoring.corrections_log       run_id, metric, window_start, window_end, keys (JSON),
 *                                  old_values (JSON, null for a new row), new_values (JSON, null
 *                                  for a removed row), reason, policy, corrected_at
 * monitoring.pending_&lt;metric&gt;      staged corrections of a reconcile metric: the corrections
 *                                  schema ({@link Corrections#diff}) + run_id, staged_at,
 *                                  applied_at, applied_by
 * monitoring.recompute_audit       run_id, job, metric, period_start, period_end, keys,
 *                                  published (JSON), recomputed (JSON), difference double (largest
 *                                  absolute difference over the measures), beyond_tolerance,
 *                                  audited_at
 * gold.daily_&lt;metric&gt;            event_date date (partition), group-by, measures
 * gold.weekly_&lt;metric&gt;           week_start date (ISO week's Monday), iso_year int, iso_week int,
 *                                  group-by, measures, days int, updated_at timestamp
 * </pre>
 */
public final class CorrectionTables {
  public static final StructType STATE = new StructType()
      .add("metric", DataTypes.StringType)
      .add("bronze_version", DataTypes.LongType)
      .add("pending_window_starts", DataTypes.createArrayType(DataTypes.TimestampType))
      .add("run_id", DataTypes.StringType)
      .add("updated_at", DataTypes.TimestampType);

  public static final StructType LOG = new StructType()
      .add("run_id", DataTypes.StringType)
      .add("metric", DataTypes.StringType)
      .add("window_start", DataTypes.TimestampType)
      .add("window_end", DataTypes.TimestampType)
      .add("keys", DataTypes.StringType)
      .add("old_values", DataTypes.StringType)
      .add("new_values", DataTypes.StringType)
      .add("reason", DataTypes.StringType)
      .add("policy", DataTypes.StringType)
      .add("corrected_at", DataTypes.TimestampType);

  public static final StructType AUDIT = new StructType()
      .add("run_id", DataTypes.StringType)
      .add("job", DataTypes.StringType)
      .add("metric", DataTypes.StringType)
      .add("period_start", DataTypes.TimestampType)
      .add("period_end", DataTypes.TimestampType)
      .add("keys", DataTypes.StringType)
      .add("published", DataTypes.StringType)
      .add("recomputed", DataTypes.StringType)
      .add("difference", DataTypes.DoubleType)
      .add("beyond_tolerance", DataTypes.BooleanType)
      .add("audited_at", DataTypes.TimestampType);

  private final TableRegistry tables;

  public CorrectionTables(TableRegistry tables) {
    this.tables = tables;
  }

  public TableRegistry registry() {
    return tables;
  }

  public String state() {
    return tables.monitoring("correction_state");
  }

  public String log() {
    return tables.monitoring("corrections_log");
  }

  public String audit() {
    return tables.monitoring("recompute_audit");
  }

  public String pending(MetricSpec metric) {
    return tables.monitoring("pending_" + metric.name());
  }

  public String daily(MetricSpec metric) {
    return tables.gold("daily_" + metric.name());
  }

  public String weekly(MetricSpec metric) {
    return tables.gold("weekly_" + metric.name());
  }

  /** Creates state, log and audit tables when missing. */
  public void createMonitoring(SparkSession spark) {
    DeltaTables.createIfNotExists(spark, state(), STATE, List.of(), Map.of());
    DeltaTables.createIfNotExists(spark, log(), LOG, List.of(), Map.of());
    DeltaTables.createIfNotExists(spark, audit(), AUDIT, List.of(), Map.of());
  }
}

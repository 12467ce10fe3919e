package io.latelake.correction.shared;

import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.DeltaTables;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.time.DayRange;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * Paths and schemas of the tables the correction jobs own. All timestamps UTC.
 *
 * <pre>
 * monitoring.correction_state      metric string, bronze_version long (every bronze row up to
 *                                  this version has had its windows taken: the next change read
 *                                  starts after it), pending_window_starts
 *                                  array&lt;timestamp&gt; (touched windows not corrected yet:
 *                                  still open when the run ended),
 *                                  run_id string, updated_at timestamp
 * monitoring.corrections_log       run_id, metric, window_start, window_end, keys (JSON),
 *                                  old_values (JSON, null for a new row), new_values (JSON, null
 *                                  for a removed row), reason, policy, corrected_at
 * monitoring.pending_&lt;metric&gt;      staged corrections of a reconcile metric: the corrections
 *                                  schema ({@link Corrections#diff}: old_values, new_values as
 *                                  structs of the measures) + run_id, staged_at, applied_at,
 *                                  applied_by
 * monitoring.recompute_audit       run_id, job, metric, period_start, period_end, keys,
 *                                  published (JSON), recomputed (JSON), difference double (largest
 *                                  absolute difference over the measures), beyond_tolerance,
 *                                  audited_at
 * monitoring.rollup_runs           one row per metric and rebuild/cascade run: run_id, job
 *                                  (rebuild | cascade (weekly) | cascade-monthly |
 *                                  cascade-yearly), metric, time_zone, range_from,
 *                                  range_to date (the days asked for), changed_count int,
 *                                  first_changed, last_changed date, changed array&lt;date&gt;
 *                                  (days rebuilt / period starts cascaded that changed),
 *                                  rows_written long, run_at timestamp
 * gold.daily_&lt;metric&gt;            event_date date (clustering), group-by, measures
 * gold.weekly_&lt;metric&gt;           week_start date (ISO week's Monday), iso_year int, iso_week int,
 *                                  group-by, measures, days long, updated_at timestamp
 * gold.monthly_&lt;metric&gt;          month_start date (the 1st), year int, month int, group-by,
 *                                  measures, days long, updated_at timestamp
 * gold.yearly_&lt;metric&gt;           year_start date (January 1st), year int, group-by, measures,
 *                                  days long, updated_at timestamp
 * </pre>
 */
public final class CorrectionTables {
  public static final StructType STATE =
      StructType.fromDDL(
          "metric STRING, bronze_version BIGINT, pending_window_starts ARRAY<TIMESTAMP>, "
              + "run_id STRING, updated_at TIMESTAMP");

  public static final StructType LOG =
      StructType.fromDDL(
          "run_id STRING, metric STRING, window_start TIMESTAMP, window_end TIMESTAMP, "
              + "keys STRING, old_values STRING, new_values STRING, reason STRING, "
              + "policy STRING, corrected_at TIMESTAMP");

  public static final StructType AUDIT =
      StructType.fromDDL(
          "run_id STRING, job STRING, metric STRING, period_start TIMESTAMP, "
              + "period_end TIMESTAMP, keys STRING, published STRING, recomputed STRING, "
              + "difference DOUBLE, beyond_tolerance BOOLEAN, audited_at TIMESTAMP");

  public static final StructType ROLLUP_RUNS =
      StructType.fromDDL(
          "run_id STRING, job STRING, metric STRING, time_zone STRING, range_from DATE, "
              + "range_to DATE, changed_count INT, first_changed DATE, last_changed DATE, "
              + "changed ARRAY<DATE>, rows_written BIGINT, run_at TIMESTAMP");

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

  public String rollupRuns() {
    return tables.monitoring("rollup_runs");
  }

  /**
   * Appends one {@code monitoring.rollup_runs} row (schema {@link #ROLLUP_RUNS}).
   *
   * @param changed the changed days (rebuild) or week starts (cascade), ascending
   */
  public void recordRollupRun(
      SparkSession spark,
      String runId,
      String job,
      MetricSpec metric,
      java.time.ZoneId zone,
      DayRange range,
      List<java.time.LocalDate> changed,
      long rowsWritten,
      java.time.Instant at,
      CorrectionConfig config) {
    DeltaTables.createIfNotExists(spark, rollupRuns(), ROLLUP_RUNS, List.of(), Map.of());
    List<java.sql.Date> days = changed.stream().map(java.sql.Date::valueOf).toList();
    org.apache.spark.sql.Row row =
        org.apache.spark.sql.RowFactory.create(
            runId,
            job,
            metric.name(),
            zone.getId(),
            java.sql.Date.valueOf(range.from()),
            java.sql.Date.valueOf(range.to()),
            days.size(),
            days.isEmpty() ? null : days.get(0),
            days.isEmpty() ? null : days.get(days.size() - 1),
            scala.jdk.javaapi.CollectionConverters.asScala(days).toSeq(),
            rowsWritten,
            java.sql.Timestamp.from(at));
    io.latelake.core.table.DeltaRetry.run(
        "monitoring.rollup_runs append",
        config.maxCommitAttempts(),
        config.retryBackoff(),
        () -> {
          spark
              .createDataFrame(List.of(row), ROLLUP_RUNS)
              .write()
              .format("delta")
              .mode("append")
              .save(rollupRuns());
          return null;
        });
  }

  /**
   * @param dates sorted dates
   * @param unit what one date stands for, e.g. {@code day} or {@code week}
   * @return {@code "0 days"}, {@code "1 day (2024-11-02)"} or {@code "3 days (first 2024-11-02,
   *     last 2024-11-04)"}: a log line never carries the whole list (that is in {@code
   *     monitoring.rollup_runs})
   */
  public static String summary(List<java.time.LocalDate> dates, String unit) {
    if (dates.isEmpty()) {
      return "0 " + unit + "s";
    }
    if (dates.size() == 1) {
      return "1 " + unit + " (" + dates.get(0) + ")";
    }
    return dates.size()
        + " "
        + unit
        + "s (first "
        + dates.get(0)
        + ", last "
        + dates.get(dates.size() - 1)
        + ")";
  }

  public String daily(MetricSpec metric) {
    return tables.gold("daily_" + metric.name());
  }

  public String weekly(MetricSpec metric) {
    return rollup(metric, RollupPeriod.WEEKLY);
  }

  /**
   * @return the path of {@code gold.<period>_<metric>}
   */
  public String rollup(MetricSpec metric, RollupPeriod period) {
    return tables.gold(period.tablePrefix() + metric.name());
  }

  /** Creates state, log and audit tables when missing. */
  public void createMonitoring(SparkSession spark) {
    DeltaTables.createIfNotExists(spark, state(), STATE, List.of(), Map.of());
    DeltaTables.createIfNotExists(spark, log(), LOG, List.of(), Map.of());
    DeltaTables.createIfNotExists(spark, audit(), AUDIT, List.of(), Map.of());
  }
}

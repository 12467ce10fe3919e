package io.latelake.correction;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.delta.tables.DeltaTable;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.DeltaRetry;
import io.latelake.core.table.DeltaTables;
import io.latelake.core.table.TableRegistry;
import java.sql.Date;
import java.sql.Timestamp;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recomputes the ISO weeks ({@code gold.weekly_<metric>}: {@code week_start} date (Monday, a
 * local date of {@code lake.correction.rollup-time-zone}, as the daily table's days),
 * {@code iso_year}, {@code iso_week}, group-by, measures, {@code days}, {@code updated_at}) that
 * overlap a range of event dates from {@code gold.daily_<metric>} and MERGEs the rows that
 * changed (update, insert, or delete when a week's group has no day left: a week whose correct
 * content is empty keeps no row). Unchanged rows are not touched, so a second run changes nothing.
 */
public final class CascadeJob {
  private static final Logger LOG = LoggerFactory.getLogger(CascadeJob.class);

  /** @param changedWeeks week starts (Mondays) with a changed row */
  public record MetricResult(String metric, List<LocalDate> changedWeeks, long rowsChanged) {}

  public record Result(DateArgs.DateRange range, List<MetricResult> metrics) {}

  private final SparkSession spark;
  private final CorrectionConfig config;
  private final CorrectionTables tables;
  private final List<MetricSpec> metrics;
  private final DateArgs.DateRange range;

  public CascadeJob(SparkSession spark, CorrectionConfig config, TableRegistry tables,
      List<MetricSpec> metrics, DateArgs.DateRange range) {
    this.spark = spark;
    this.config = config;
    this.tables = new CorrectionTables(tables);
    this.metrics = List.copyOf(metrics);
    this.range = range;
  }

  /**
   * @throws io.latelake.core.config.LakeConfigException (exit 2) when a daily table is missing
   */
  public Result run() {
    for (MetricSpec m : metrics) {
      LakeReads.requireTable(spark, "cascade", "gold.daily_" + m.name(), tables.daily(m),
          "run `latelake rebuild` first");
      LakeReads.requireZone(spark, tables.daily(m), "gold.daily_" + m.name(),
          config.rollupZone());
    }
    List<MetricResult> out = new ArrayList<>();
    for (MetricSpec m : metrics) {
      out.add(cascade(m));
    }
    return new Result(range, out);
  }

  private MetricResult cascade(MetricSpec metric) {
    LocalDate weekFrom = range.from().with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
    LocalDate weekTo = range.to().with(TemporalAdjusters.nextOrSame(DayOfWeek.SUNDAY));
    Dataset<Row> daily = spark.read().format("delta").load(tables.daily(metric))
        .filter(col("event_date").geq(lit(Date.valueOf(weekFrom)))
            .and(col("event_date").leq(lit(Date.valueOf(weekTo)))));
    Dataset<Row> fresh = Rollups.weekly(daily, metric);
    String path = tables.weekly(metric);
    LakeReads.requireZone(spark, path, "gold.weekly_" + metric.name(), config.rollupZone());
    DeltaTables.createIfNotExists(spark, path,
        fresh.schema().add("updated_at", DataTypes.TimestampType), List.of(),
        Map.of(Rollups.ZONE_PROPERTY, config.rollupZone().getId()));
    Dataset<Row> existing = spark.read().format("delta").load(path)
        .filter(col("week_start").geq(lit(Date.valueOf(weekFrom)))
            .and(col("week_start").leq(lit(Date.valueOf(weekTo)))));
    List<String> values = new ArrayList<>(metric.measureNames());
    values.add("days");
    Dataset<Row> changed = Rollups.changed(fresh, existing, metric, "week_start", values);
    List<Row> rows = changed.collectAsList();
    TreeSet<LocalDate> weeks = new TreeSet<>();
    rows.forEach(r -> weeks.add(r.getDate(0).toLocalDate()));
    if (!rows.isEmpty()) {
      Dataset<Row> source = spark.createDataFrame(rows, changed.schema());
      Timestamp now = Timestamp.from(Instant.now().truncatedTo(ChronoUnit.MICROS));
      Map<String, Column> set = new LinkedHashMap<>();
      for (String c : fresh.columns()) {
        set.put("`" + c + "`", col("s.`" + c + "`"));
      }
      set.put("updated_at", lit(now));
      Column on = col("t.week_start").equalTo(col("s.week_start"));
      for (String g : metric.groupBy()) {
        on = on.and(col("t.`" + g + "`").eqNullSafe(col("s.`" + g + "`")));
      }
      final Column cond = on;
      DeltaRetry.run("MERGE into gold.weekly_" + metric.name(), config.maxCommitAttempts(),
          config.retryBackoff(), () -> {
            DeltaTable.forPath(spark, path).as("t").merge(source.as("s"), cond)
                .whenMatched(col("s._action").equalTo("DELETE")).delete()
                .whenMatched().update(set)
                .whenNotMatched(col("s._action").equalTo("UPSERT")).insert(set)
                .execute();
            return null;
          });
    }
    LOG.info("cascade weekly_{} {}..{}: {} rows changed in {} weeks", metric.name(), weekFrom,
        weekTo, rows.size(), weeks.size());
    return new MetricResult(metric.name(), List.copyOf(weeks), rows.size());
  }
}

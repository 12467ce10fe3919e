package io.latelake.correction;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.latelake.core.config.LakeConfigException;
import io.latelake.core.job.JobContext;
import io.latelake.core.metric.GoldMergePlan;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.DeltaRetry;
import io.latelake.core.table.DeltaTables;
import io.latelake.core.time.DayRange;
import java.sql.Date;
import java.sql.Timestamp;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recomputes the ISO weeks ({@code gold.weekly_<metric>}: {@code week_start} date (Monday, a local
 * date of {@code lake.correction.rollup-time-zone}, as the daily table's days), {@code iso_year},
 * {@code iso_week}, group-by, measures, {@code days}, {@code updated_at}) that overlap a range of
 * event dates from {@code gold.daily_<metric>} and MERGEs the rows that changed (update, insert, or
 * delete when a week's group has no day left: a week whose correct content is empty keeps no row).
 * Unchanged rows are not touched, so a second run changes nothing.
 */
public final class CascadeJob extends CorrectionAction<RangeSpec, CascadeJob.Result> {
  private static final Logger LOG = LoggerFactory.getLogger(CascadeJob.class);

  /**
   * @param changedWeeks week starts (Mondays) with a changed row
   * @param partialDays days outside the range, in its first or last week, that no rebuild has
   *     built: those weeks hold only the days that were built (a warning is logged)
   */
  public record MetricResult(
      String metric, List<LocalDate> changedWeeks, long rowsChanged, List<LocalDate> partialDays)
      implements ActionResult {
    /**
     * @return one line for the log: counts, first and last, never the whole list
     */
    @Override
    public String summary() {
      return "weekly_"
          + metric
          + ": "
          + rowsChanged
          + " rows changed in "
          + CorrectionTables.summary(changedWeeks)
          + " weeks"
          + (partialDays.isEmpty()
              ? ""
              : "; "
                  + CorrectionTables.summary(partialDays)
                  + " days of the edge weeks never rebuilt");
    }
  }

  /**
   * @param runId this run's id (in {@code monitoring.rollup_runs})
   */
  public record Result(String runId, DayRange range, List<MetricResult> metrics)
      implements ActionResult.PerMetric<MetricResult> {}

  public CascadeJob(JobContext context, RangeSpec spec) {
    super("cascade", context, spec, spec.config());
  }

  /**
   * @throws io.latelake.core.config.LakeConfigException (exit 2) when a daily table is missing, was
   *     built in another time zone, or a day of the range was never built by rebuild — checked
   *     before anything is written
   */
  @Override
  public Result run() {
    DayRange range = options.range();
    List<MetricSpec> metrics = options.metrics();
    for (MetricSpec m : metrics) {
      LakeReads.requireTable(
          spark,
          "cascade",
          "gold.daily_" + m.name(),
          tables.daily(m),
          "run `latelake rebuild` first");
      LakeReads.requireZone(spark, tables.daily(m), "gold.daily_" + m.name(), config.rollupZone());
      LakeReads.requireColumns(
          spark, tables.daily(m), "gold.daily_" + m.name(), m, Rollups.dailyColumns(m));
    }
    LocalDate weekFrom = range.from().with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
    LocalDate weekTo = range.to().with(TemporalAdjusters.nextOrSame(DayOfWeek.SUNDAY));
    Map<String, List<LocalDate>> partial = new LinkedHashMap<>();
    for (MetricSpec m : metrics) {
      List<LocalDate> missing = neverBuilt(m, weekFrom, weekTo);
      List<LocalDate> inRange =
          missing.stream()
              .filter(d -> !d.isBefore(range.from()) && !d.isAfter(range.to()))
              .toList();
      if (!inRange.isEmpty()) {
        throw new LakeConfigException(
            "Cannot cascade gold.weekly_"
                + m.name()
                + " over "
                + range.from()
                + ".."
                + range.to()
                + ": "
                + CorrectionTables.summary(inRange)
                + " days of the range were never built by rebuild (no row in gold.daily_"
                + m.name()
                + " and no rebuild of them in monitoring.rollup_runs), so their weeks would be "
                + "summed from missing days; run `latelake rebuild --from "
                + inRange.get(0)
                + " --to "
                + inRange.get(inRange.size() - 1)
                + "` first");
      }
      partial.put(m.name(), missing);
    }
    Instant now = context.startedAt();
    List<MetricResult> out = new ArrayList<>();
    for (MetricSpec m : metrics) {
      List<LocalDate> missing = partial.get(m.name());
      if (!missing.isEmpty()) {
        LOG.warn(
            "cascade weekly_{}: {} days of the first or last week of {}..{} lie outside "
                + "the range and were never rebuilt: those weeks hold only the days that were "
                + "(rebuild them to complete the weeks)",
            m.name(),
            CorrectionTables.summary(missing),
            range.from(),
            range.to());
      }
      MetricResult r =
          step("cascade weekly_" + m.name(), () -> cascade(m, weekFrom, weekTo, missing, now));
      tables.recordRollupRun(
          spark,
          runId(),
          "cascade",
          m,
          config.rollupZone(),
          range,
          r.changedWeeks(),
          r.rowsChanged(),
          now,
          config);
      out.add(r);
    }
    return new Result(runId(), range, out);
  }

  /**
   * Days of {@code [from, to]} that no rebuild has built: no row in {@code gold.daily_<m>} and not
   * in the range of a rebuild of this metric and zone in {@code monitoring.rollup_runs} (a rebuilt
   * day without events has no row but is built).
   */
  List<LocalDate> neverBuilt(MetricSpec metric, LocalDate from, LocalDate to) {
    java.util.Set<LocalDate> built = new java.util.HashSet<>();
    for (Row r :
        spark
            .read()
            .format("delta")
            .load(tables.daily(metric))
            .filter(
                col("event_date")
                    .geq(lit(Date.valueOf(from)))
                    .and(col("event_date").leq(lit(Date.valueOf(to)))))
            .select("event_date")
            .distinct()
            .collectAsList()) {
      built.add(r.getDate(0).toLocalDate());
    }
    if (DeltaTables.exists(spark, tables.rollupRuns())) {
      for (Row r :
          spark
              .read()
              .format("delta")
              .load(tables.rollupRuns())
              .filter(
                  col("job")
                      .equalTo("rebuild")
                      .and(col("metric").equalTo(metric.name()))
                      .and(col("time_zone").equalTo(config.rollupZone().getId()))
                      .and(col("range_to").geq(lit(Date.valueOf(from))))
                      .and(col("range_from").leq(lit(Date.valueOf(to)))))
              .select("range_from", "range_to")
              .distinct()
              .collectAsList()) {
        LocalDate a = r.getDate(0).toLocalDate().isBefore(from) ? from : r.getDate(0).toLocalDate();
        LocalDate b = r.getDate(1).toLocalDate().isAfter(to) ? to : r.getDate(1).toLocalDate();
        for (LocalDate d = a; !d.isAfter(b); d = d.plusDays(1)) {
          built.add(d);
        }
      }
    }
    List<LocalDate> out = new ArrayList<>();
    for (LocalDate d = from; !d.isAfter(to); d = d.plusDays(1)) {
      if (!built.contains(d)) {
        out.add(d);
      }
    }
    return out;
  }

  private MetricResult cascade(
      MetricSpec metric,
      LocalDate weekFrom,
      LocalDate weekTo,
      List<LocalDate> partialDays,
      Instant now) {
    Dataset<Row> daily =
        spark
            .read()
            .format("delta")
            .load(tables.daily(metric))
            .filter(
                col("event_date")
                    .geq(lit(Date.valueOf(weekFrom)))
                    .and(col("event_date").leq(lit(Date.valueOf(weekTo)))));
    Dataset<Row> fresh = Rollups.weekly(daily, metric);
    String path = tables.weekly(metric);
    LakeReads.requireZone(spark, path, "gold.weekly_" + metric.name(), config.rollupZone());
    StructType weeklySchema = fresh.schema().add("updated_at", DataTypes.TimestampType);
    LakeReads.requireColumns(
        spark, path, "gold.weekly_" + metric.name(), metric, List.of(weeklySchema.fieldNames()));
    DeltaTables.createIfNotExists(
        spark,
        path,
        weeklySchema,
        List.of(),
        Map.of(Rollups.ZONE_PROPERTY, config.rollupZone().getId()));
    Dataset<Row> existing =
        spark
            .read()
            .format("delta")
            .load(path)
            .filter(
                col("week_start")
                    .geq(lit(Date.valueOf(weekFrom)))
                    .and(col("week_start").leq(lit(Date.valueOf(weekTo)))));
    List<String> values = new ArrayList<>(metric.measureNames());
    values.add("days");
    Dataset<Row> changed = Rollups.changed(fresh, existing, metric, "week_start", values);
    List<Row> rows = changed.collectAsList();
    TreeSet<LocalDate> weeks = new TreeSet<>();
    rows.forEach(r -> weeks.add(r.getDate(0).toLocalDate()));
    if (!rows.isEmpty()) {
      Dataset<Row> source = spark.createDataFrame(rows, changed.schema());
      GoldMergePlan plan = GoldMergePlan.weekly(metric);
      Column on = plan.condition(source, true);
      DeltaRetry.run(
          "MERGE into gold.weekly_" + metric.name(),
          config.maxCommitAttempts(),
          config.retryBackoff(),
          () -> {
            plan.execute(source, path, on, GoldMergePlan.Stamps.rollup(Timestamp.from(now)));
            return null;
          });
    }
    LOG.info(
        "cascade weekly_{} {}..{} ({}): {} rows changed in {} weeks; the changed weeks "
            + "are in monitoring.rollup_runs",
        metric.name(),
        weekFrom,
        weekTo,
        config.rollupZone(),
        rows.size(),
        CorrectionTables.summary(List.copyOf(weeks)));
    return new MetricResult(
        metric.name(), List.copyOf(weeks), rows.size(), List.copyOf(partialDays));
  }
}

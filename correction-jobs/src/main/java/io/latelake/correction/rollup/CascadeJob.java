package io.latelake.correction.rollup;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.latelake.core.config.LakeConfigException;
import io.latelake.core.job.ActionResult;
import io.latelake.core.job.JobContext;
import io.latelake.core.metric.GoldMergePlan;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.DeltaRetry;
import io.latelake.core.table.DeltaTables;
import io.latelake.core.time.DayRange;
import io.latelake.correction.shared.CorrectionAction;
import io.latelake.correction.shared.CorrectionTables;
import io.latelake.correction.shared.LakeReads;
import io.latelake.correction.shared.RangeSpec;
import io.latelake.correction.shared.RollupPeriod;
import java.sql.Date;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recomputes, for each rollup of {@code lake.correction.rollups} ({@link RollupPeriod}), the
 * periods that overlap a range of event dates from {@code gold.daily_<metric>} and MERGEs the rows
 * that changed (update, insert, or delete when a period's group has no day left: a period whose
 * correct content is empty keeps no row). The rollups: {@code gold.weekly_<metric>} ({@code
 * week_start} date (Monday, a local date of {@code lake.correction.rollup-time-zone}, as the daily
 * table's days), {@code iso_year}, {@code iso_week}), {@code gold.monthly_<metric>} ({@code
 * month_start}, {@code year}, {@code month}) and {@code gold.yearly_<metric>} ({@code year_start},
 * {@code year}); then group-by, measures, {@code days}, {@code updated_at}. Unchanged rows are not
 * touched, so a second run changes nothing.
 */
public final class CascadeJob extends CorrectionAction<RangeSpec, CascadeJob.Result> {
  private static final Logger LOG = LoggerFactory.getLogger(CascadeJob.class);

  /**
   * @param runId this run's id (in {@code monitoring.rollup_runs})
   * @param metrics one result per metric and rollup, metric by metric, each metric's rollups in the
   *     order weekly, monthly, yearly
   */
  public record Result(String runId, DayRange range, List<CascadeResult> metrics)
      implements ActionResult.PerMetric<CascadeResult> {}

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
    List<RollupPeriod> rollups = config.rollups();
    // the widest span of whole periods around the range: the year's when yearly is kept
    LocalDate spanFrom = range.from();
    LocalDate spanTo = range.to();
    for (RollupPeriod p : rollups) {
      spanFrom = min(spanFrom, p.first(range.from()));
      spanTo = max(spanTo, p.last(range.to()));
    }
    Map<String, List<LocalDate>> missingByMetric = new LinkedHashMap<>();
    for (MetricSpec m : metrics) {
      List<LocalDate> missing = neverBuilt(m, spanFrom, spanTo);
      List<LocalDate> inRange = within(missing, range.from(), range.to());
      if (!inRange.isEmpty()) {
        throw new LakeConfigException(
            "Cannot cascade gold."
                + rollups.get(0).tablePrefix()
                + m.name()
                + " over "
                + range.from()
                + ".."
                + range.to()
                + ": "
                + CorrectionTables.summary(inRange, "day")
                + (inRange.size() == 1 ? " of the range was" : " of the range were")
                + " never built by rebuild (no row in gold.daily_"
                + m.name()
                + " and no rebuild of them in monitoring.rollup_runs), so their "
                + (rollups.size() == 1 ? rollups.get(0).unit() : "period")
                + "s would be summed from missing days; run `latelake rebuild --from "
                + inRange.get(0)
                + " --to "
                + inRange.get(inRange.size() - 1)
                + "` first"
                + heldDays(m)
                    .map(
                        h ->
                            " (gold.daily_"
                                + m.name()
                                + " holds days "
                                + h
                                + ": to cascade those, give them with --from/--to)")
                    .orElse(" (gold.daily_" + m.name() + " holds no row yet)"));
      }
      missingByMetric.put(m.name(), missing);
    }
    Instant now = context.startedAt();
    // days after today (in the rollup zone) cannot have been built yet: not reported as partial
    LocalDate today = LocalDate.ofInstant(now, config.rollupZone());
    List<CascadeResult> out = new ArrayList<>();
    for (MetricSpec m : metrics) {
      for (RollupPeriod p : rollups) {
        LocalDate from = p.first(range.from());
        LocalDate to = p.last(range.to());
        List<LocalDate> missing =
            within(missingByMetric.get(m.name()), from, to.isAfter(today) ? today : to);
        if (!missing.isEmpty()) {
          LOG.warn(
              "cascade {}{}: {} of the first or last {} of {}..{} lie outside "
                  + "the range and were never rebuilt: those {}s hold only the days that were "
                  + "(rebuild them to complete the {}s)",
              p.tablePrefix(),
              m.name(),
              CorrectionTables.summary(missing, "day"),
              p.unit(),
              range.from(),
              range.to(),
              p.unit(),
              p.unit());
        }
        CascadeResult r =
            step(
                "cascade " + p.tablePrefix() + m.name(),
                () -> cascade(m, p, from, to, missing, now));
        tables.recordRollupRun(
            spark,
            runId(),
            p.job(),
            m,
            config.rollupZone(),
            range,
            r.changedPeriods(),
            r.rowsChanged(),
            now,
            config);
        out.add(r);
      }
    }
    return new Result(runId(), range, out);
  }

  private static LocalDate min(LocalDate a, LocalDate b) {
    return a.isBefore(b) ? a : b;
  }

  private static LocalDate max(LocalDate a, LocalDate b) {
    return a.isAfter(b) ? a : b;
  }

  private static List<LocalDate> within(List<LocalDate> days, LocalDate from, LocalDate to) {
    return days.stream().filter(d -> !d.isBefore(from) && !d.isAfter(to)).toList();
  }

  /**
   * @return the first and last {@code event_date} of {@code gold.daily_<metric>}, e.g. {@code
   *     2024-11-03..2024-11-04}, or empty when it holds no row: one small aggregate, only for the
   *     refusal's message
   */
  private Optional<String> heldDays(MetricSpec m) {
    Row r =
        spark
            .read()
            .format("delta")
            .load(tables.daily(m))
            .selectExpr("cast(min(event_date) as string)", "cast(max(event_date) as string)")
            .first();
    return r.isNullAt(0) ? Optional.empty() : Optional.of(r.getString(0) + ".." + r.getString(1));
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

  private CascadeResult cascade(
      MetricSpec metric,
      RollupPeriod period,
      LocalDate from,
      LocalDate to,
      List<LocalDate> partialDays,
      Instant now) {
    String name = "gold." + period.tablePrefix() + metric.name();
    String key = period.keyColumn();
    Dataset<Row> daily =
        spark
            .read()
            .format("delta")
            .load(tables.daily(metric))
            .filter(
                col("event_date")
                    .geq(lit(Date.valueOf(from)))
                    .and(col("event_date").leq(lit(Date.valueOf(to)))));
    Dataset<Row> fresh = Rollups.rollup(daily, metric, period);
    String path = tables.rollup(metric, period);
    LakeReads.requireZone(spark, path, name, config.rollupZone());
    StructType schema = fresh.schema().add("updated_at", DataTypes.TimestampType);
    LakeReads.requireColumns(spark, path, name, metric, schema);
    DeltaTables.createIfNotExists(
        spark,
        path,
        schema,
        List.of(),
        Map.of(RollupPeriod.ZONE_PROPERTY, config.rollupZone().getId()));
    Dataset<Row> existing =
        spark
            .read()
            .format("delta")
            .load(path)
            .filter(col(key).geq(lit(Date.valueOf(from))).and(col(key).leq(lit(Date.valueOf(to)))));
    List<String> values = new ArrayList<>(metric.measureNames());
    values.add("days");
    Dataset<Row> changed = Rollups.changed(fresh, existing, metric, key, values);
    List<Row> rows = changed.collectAsList();
    TreeSet<LocalDate> periods = new TreeSet<>();
    rows.forEach(r -> periods.add(r.getDate(0).toLocalDate()));
    if (!rows.isEmpty()) {
      Dataset<Row> source = spark.createDataFrame(rows, changed.schema());
      GoldMergePlan plan = GoldMergePlan.rollup(metric, key, period.labels());
      Column on = plan.condition(source, true);
      DeltaRetry.run(
          "MERGE into " + name,
          config.maxCommitAttempts(),
          config.retryBackoff(),
          () -> {
            plan.execute(source, path, on, GoldMergePlan.Stamps.rollup(Timestamp.from(now)));
            return null;
          });
    }
    LOG.info(
        "cascade {}{} {}..{} ({}): {} rows changed in {}; the changed {}s "
            + "are in monitoring.rollup_runs",
        period.tablePrefix(),
        metric.name(),
        from,
        to,
        config.rollupZone(),
        rows.size(),
        CorrectionTables.summary(List.copyOf(periods), period.unit()),
        period.unit());
    return new CascadeResult(
        metric.name(), period, List.copyOf(periods), rows.size(), List.copyOf(partialDays));
  }
}

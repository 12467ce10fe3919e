package io.latelake.correction.rollup;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.latelake.core.job.ActionResult;
import io.latelake.core.job.JobContext;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.DeltaRetry;
import io.latelake.core.table.DeltaTables;
import io.latelake.core.time.DayRange;
import io.latelake.correction.shared.CorrectionAction;
import io.latelake.correction.shared.CorrectionTables;
import io.latelake.correction.shared.LakeReads;
import io.latelake.correction.shared.RangeSpec;
import io.latelake.correction.shared.RollupPeriod;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds the settled daily totals {@code gold.daily_<metric>} (schema: {@code event_date} date,
 * partition column; group-by columns; measures) for a validated range of event dates — local days
 * of {@code lake.correction.rollup-time-zone} (default UTC; recorded in the table property {@value
 * RollupPeriod#ZONE_PROPERTY}) — from bronze (valid rows, exact dedup on {@code event_id} over
 * every copy within {@code lake.correction.dedup-horizon}, {@link Rollups#daily}) with Delta {@code
 * replaceWhere} on the {@code event_date} partitions. A day whose correct content is empty keeps no
 * row (the replaceWhere removes it). The predicate is built from parsed {@link LocalDate}s ({@link
 * DayRange#predicate}). When the recomputed days equal the table, nothing is written, so a second
 * run leaves the table (and its version) as the first left it.
 */
public final class RebuildJob extends CorrectionAction<RangeSpec, RebuildJob.Result> {
  private static final Logger LOG = LoggerFactory.getLogger(RebuildJob.class);

  /**
   * @param spec the metrics and the range of event dates (local days of the rollup zone)
   */
  public RebuildJob(JobContext context, RangeSpec spec) {
    super("rebuild", context, spec, spec.config());
  }

  /**
   * @param changedDays event dates whose rows changed (to cascade)
   * @param rowsWritten daily rows in the range after the rebuild (0 when nothing was written)
   */
  public record MetricResult(String metric, List<LocalDate> changedDays, long rowsWritten)
      implements ActionResult {
    /**
     * @return one line for the log: counts, first and last changed day, never the whole list
     */
    @Override
    public String summary() {
      return "daily_"
          + metric
          + ": "
          + CorrectionTables.summary(changedDays)
          + " days changed, "
          + rowsWritten
          + " rows written";
    }

    @Override
    public void report(io.latelake.core.metrics.RunFigures figures) {
      RollupFigures.report(figures, metric, "daily", changedDays.size(), rowsWritten);
    }
  }

  /**
   * @param runId this run's id (in {@code monitoring.rollup_runs})
   */
  public record Result(String runId, DayRange range, List<MetricResult> metrics)
      implements ActionResult.PerMetric<MetricResult> {}

  /**
   * @throws io.latelake.core.config.LakeConfigException (exit 2) when bronze is missing
   */
  @Override
  public Result run() {
    requireBronze("rebuild");
    List<MetricResult> out = new ArrayList<>();
    for (MetricSpec m : options.metrics()) {
      MetricResult r = step("rebuild daily_" + m.name(), () -> rebuild(m));
      tables.recordRollupRun(
          spark,
          runId(),
          "rebuild",
          m,
          config.rollupZone(),
          options.range(),
          r.changedDays(),
          r.rowsWritten(),
          context.startedAt(),
          config);
      out.add(r);
    }
    return new Result(runId(), options.range(), out);
  }

  private MetricResult rebuild(MetricSpec metric) {
    DayRange range = options.range();
    ZoneId zone = config.rollupZone();
    Instant from = Rollups.startOfDay(range.from(), zone);
    Instant to = Rollups.startOfDay(range.to().plusDays(1), zone);
    Dataset<Row> bronze =
        LakeReads.bronzeAround(
            spark,
            registry.bronzeEvents(),
            java.util.OptionalLong.empty(),
            from,
            to,
            config.dedupHorizon());
    Dataset<Row> fresh = Rollups.daily(bronze, metric, zone, from, to);
    String path = tables.daily(metric);
    StructType schema = fresh.schema();
    LakeReads.requireZone(spark, path, "gold.daily_" + metric.name(), zone);
    LakeReads.requireColumns(spark, path, "gold.daily_" + metric.name(), metric, schema);
    DeltaTables.createIfNotExists(
        spark,
        path,
        schema,
        List.of("event_date"),
        Map.of(RollupPeriod.ZONE_PROPERTY, zone.getId()));
    Dataset<Row> existing =
        spark
            .read()
            .format("delta")
            .load(path)
            .filter(
                col("event_date")
                    .geq(lit(java.sql.Date.valueOf(range.from())))
                    .and(col("event_date").leq(lit(java.sql.Date.valueOf(range.to())))));
    TreeSet<LocalDate> changed = new TreeSet<>();
    for (Row r :
        Rollups.changed(fresh, existing, metric, "event_date", metric.measureNames())
            .select("event_date")
            .distinct()
            .collectAsList()) {
      changed.add(r.getDate(0).toLocalDate());
    }
    long written = 0;
    if (!changed.isEmpty()) {
      Dataset<Row> rows = fresh.persist();
      try {
        written = rows.count();
        String predicate = range.predicate("event_date");
        DeltaRetry.run(
            "replaceWhere of gold.daily_" + metric.name(),
            config.maxCommitAttempts(),
            config.retryBackoff(),
            () -> {
              rows.write()
                  .format("delta")
                  .mode("overwrite")
                  .option("replaceWhere", predicate)
                  .save(path);
              return null;
            });
      } finally {
        rows.unpersist();
      }
    }
    LOG.info(
        "rebuild daily_{} {}..{} ({}): {} days changed, {} rows written; the changed "
            + "days are in monitoring.rollup_runs",
        metric.name(),
        range.from(),
        range.to(),
        config.rollupZone(),
        CorrectionTables.summary(List.copyOf(changed)),
        written);
    return new MetricResult(metric.name(), List.copyOf(changed), written);
  }
}

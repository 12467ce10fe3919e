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
 * Rebuilds the settled daily totals {@code gold.daily_<metric>} (schema: {@code event_date} date;
 * group-by columns; measures; no partitions, clustered by {@code event_date}, deletion vectors on)
 * for a validated range of event dates — local days of {@code lake.correction.rollup-time-zone}
 * (default UTC; recorded in the table property {@value RollupPeriod#ZONE_PROPERTY}) — from bronze
 * (valid rows, exact dedup on {@code event_id} over every copy within {@code
 * lake.correction.dedup-horizon}, {@link Rollups#daily}) with Delta {@code replaceWhere} on {@code
 * event_date}: Delta removes the range's rows (deletion vectors in the files that hold other days
 * too) and adds the new ones in one commit, so it stays exact without a partition a day. A rebuild
 * writes one file per {@value #ROWS_PER_FILE} rows ({@link #inFiles}), so 20 years of days (7,300)
 * make one file, not 7,300 folders. A table of the earlier layout (partitioned by {@code
 * event_date}) is written as it is, with a warning. A day whose correct content is empty keeps no
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
          + CorrectionTables.summary(changedDays, "day")
          + " changed, "
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
    DeltaTables.createClusteredIfNotExists(
        spark,
        path,
        schema,
        List.of("event_date"),
        Map.of(RollupPeriod.ZONE_PROPERTY, zone.getId(), "delta.enableDeletionVectors", "true"));
    boolean partitioned = DeltaTables.partitionColumns(spark, path).contains("event_date");
    if (partitioned) {
      LOG.warn(
          "gold.daily_{} at {} is partitioned by event_date (one folder and at least one file a "
              + "day, the layout before 0.9); it still works. For few large files, move it aside "
              + "and rebuild it over the whole range: it is then created clustered by event_date",
          metric.name(),
          path);
    }
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
        Dataset<Row> files = partitioned ? rows : inFiles(rows, written);
        String predicate = range.predicate("event_date");
        DeltaRetry.run(
            "replaceWhere of gold.daily_" + metric.name(),
            config.maxCommitAttempts(),
            config.retryBackoff(),
            () -> {
              files
                  .write()
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
        "rebuild daily_{} {}..{} ({}): {} changed, {} rows written; the changed "
            + "days are in monitoring.rollup_runs",
        metric.name(),
        range.from(),
        range.to(),
        config.rollupZone(),
        CorrectionTables.summary(List.copyOf(changed), "day"),
        written);
    return new MetricResult(metric.name(), List.copyOf(changed), written);
  }

  /**
   * The rows of a rebuild in {@code ceil(count / }{@value #ROWS_PER_FILE}{@code )} tasks, so in as
   * many data files, each a contiguous range of event dates (a range partitioning on {@code
   * event_date}; one file needs no shuffle): a later {@code replaceWhere} of some days skips the
   * files of the other days by their statistics and marks the replaced rows in deletion vectors.
   */
  private static Dataset<Row> inFiles(Dataset<Row> rows, long count) {
    int files = (int) Math.max(1, Math.min(10_000, (count + ROWS_PER_FILE - 1) / ROWS_PER_FILE));
    return files == 1 ? rows.coalesce(1) : rows.repartitionByRange(files, col("event_date"));
  }

  /** Daily rows a data file of a rebuild holds at most (a few tens of MB of Parquet). */
  static final long ROWS_PER_FILE = 1_000_000;
}

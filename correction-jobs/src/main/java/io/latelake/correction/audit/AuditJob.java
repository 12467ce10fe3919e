package io.latelake.correction.audit;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.latelake.core.ExitCode;
import io.latelake.core.job.ActionResult;
import io.latelake.core.job.JobContext;
import io.latelake.core.metric.GoldStatus;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.time.DayRange;
import io.latelake.correction.shared.CorrectionAction;
import io.latelake.correction.shared.CorrectionTables;
import io.latelake.correction.shared.Corrections;
import io.latelake.correction.shared.Drift;
import io.latelake.correction.shared.LakeReads;
import io.latelake.correction.shared.RangeSpec;
import io.latelake.correction.shared.Recompute;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recompute audit: recomputes every closed gold window ({@code window_end <=} the stream's last
 * watermark) whose start falls in a range of UTC event dates from bronze (valid rows, exact dedup
 * over every copy within {@code lake.correction.dedup-horizon}, the same recompute as {@code
 * correct}) and compares it with what {@code gold.<metric>} publishes. Each difference becomes a
 * row of {@code monitoring.recompute_audit} (see {@link CorrectionTables}); those whose largest
 * absolute measure difference exceeds {@code lake.correction.audit-tolerance} count as beyond
 * tolerance (the command then exits 3). Reads only; gold is never changed.
 */
public final class AuditJob extends CorrectionAction<RangeSpec, AuditJob.Result> {
  private static final Logger LOG = LoggerFactory.getLogger(AuditJob.class);

  /**
   * @param compared the published gold windows the audit compared: closed by the watermark and
   *     starting in the range (0 says the range holds no closed window, not that all is well)
   * @param differences windows whose published and recomputed values differ (a window only one side
   *     has counts too)
   * @param beyondTolerance of those, differing by more than the tolerance
   */
  public record MetricResult(
      String metric, Instant watermark, long compared, long differences, long beyondTolerance) {}

  public record Result(String runId, List<MetricResult> metrics) implements ActionResult {
    /**
     * @return windows beyond tolerance over all metrics
     */
    public long beyondTolerance() {
      return metrics.stream().mapToLong(MetricResult::beyondTolerance).sum();
    }

    public long differences() {
      return metrics.stream().mapToLong(MetricResult::differences).sum();
    }

    /** Per metric: windows that differ from the recompute, and of those beyond tolerance. */
    @Override
    public void report(io.latelake.core.metrics.RunFigures figures) {
      for (MetricResult m : metrics) {
        figures.gauge(
            "latelake_audit_differences",
            "Closed gold windows whose published values differ from a recompute from bronze.",
            m.differences(),
            "metric",
            m.metric());
        figures.gauge(
            "latelake_audit_beyond_tolerance",
            "Of those, windows differing by more than lake.correction.audit-tolerance.",
            m.beyondTolerance(),
            "metric",
            m.metric());
      }
    }

    /**
     * @return per metric, e.g. {@code events_per_device_10s: 0 of 1514 published closed windows
     *     differ from the recompute (0 beyond tolerance), watermark 2014-11-10T14:06:54.108Z} or,
     *     when gold holds no closed window in the range, {@code events_per_device_10s: no published
     *     closed window in this range, nothing compared, watermark ...} (or {@code ... but the
     *     recompute from bronze has 3 (3 beyond tolerance) ...} when gold lost them), joined by
     *     {@code "; "}
     */
    @Override
    public String summary() {
      return String.join("; ", metrics.stream().map(Result::line).toList());
    }

    private static String line(MetricResult m) {
      String watermark = m.watermark() == null ? "none yet" : m.watermark().toString();
      if (m.watermark() != null && m.compared() == 0) {
        return m.differences() == 0
            ? m.metric()
                + ": no published closed window in this range, nothing compared, watermark "
                + watermark
            // gold lost (or never wrote) windows the recompute from bronze has
            : m.metric()
                + ": no published closed window in this range, but the recompute from bronze has "
                + m.differences()
                + " ("
                + m.beyondTolerance()
                + " beyond tolerance), watermark "
                + watermark;
      }
      return m.metric()
          + ": "
          + m.differences()
          + " of "
          + m.compared()
          + " published closed windows differ from the recompute ("
          + m.beyondTolerance()
          + " beyond tolerance), watermark "
          + watermark;
    }

    /**
     * @return {@link ExitCode#AUDIT_DIFFERENCES} (3) when a difference is beyond tolerance
     */
    @Override
    public ExitCode exitCode() {
      return beyondTolerance() > 0 ? ExitCode.AUDIT_DIFFERENCES : ExitCode.OK;
    }
  }

  public AuditJob(JobContext context, RangeSpec spec) {
    super("audit", context, spec, spec.config());
  }

  /**
   * @throws io.latelake.core.config.LakeConfigException (exit 2) when a table is missing
   */
  @Override
  public Result run() {
    requireBronze("audit");
    requireGold("audit", options.metrics());
    return new Result(
        runId(),
        options.metrics().stream()
            .map(m -> step("audit " + m.name(), () -> audit(m, runId(), startedAt())))
            .toList());
  }

  private MetricResult audit(MetricSpec metric, String runId, Timestamp at) {
    Optional<Instant> wm = GoldStatus.lastWatermark(spark, registry, metric);
    DayRange range = options.range();
    if (wm.isEmpty()) {
      LOG.info(
          "audit {}: the gold stream reported no watermark yet: no closed window", metric.name());
      return new MetricResult(metric.name(), null, 0, 0, 0);
    }
    Instant from = range.from().atStartOfDay(ZoneOffset.UTC).toInstant();
    Instant to = range.to().plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant();
    Timestamp closedBy = Timestamp.from(wm.get());
    Instant end = to.plus(metric.window());
    Dataset<Row> bronze =
        LakeReads.bronzeAround(
            spark,
            registry.bronzeEvents(),
            java.util.OptionalLong.empty(),
            from,
            end,
            config.dedupHorizon());
    Dataset<Row> recomputed =
        inRange(Recompute.gold(bronze, metric, from, end), from, to, closedBy);
    Dataset<Row> published =
        inRange(
            spark.read().format("delta").load(registry.gold(metric.name())), from, to, closedBy);
    long compared = published.count();
    List<Row> diffs = Corrections.diff(recomputed, published, metric).collectAsList();
    long beyond = 0;
    if (!diffs.isEmpty()) {
      Dataset<Row> d =
          spark.createDataFrame(diffs, Corrections.diff(recomputed, published, metric).schema());
      Drift.record(spark, tables, metric, d, runId, "audit", at, config);
      beyond =
          spark
              .read()
              .format("delta")
              .load(tables.audit())
              .filter(
                  col("run_id")
                      .equalTo(runId)
                      .and(col("metric").equalTo(metric.name()))
                      .and(col("beyond_tolerance")))
              .count();
    }
    if (compared == 0 && diffs.isEmpty()) {
      // "0 of 0 differ" would read as a clean audit: nothing was compared.
      LOG.warn(
          "audit {}: gold holds no published closed window starting on {}..{} (watermark {}):"
              + " nothing was compared. Give the event days gold holds with --from/--to or"
              + " --lookback-days",
          metric.name(),
          range.from(),
          range.to(),
          wm.get());
    }
    // the command's summary line says the same per metric
    LOG.debug(
        "audit {}: closed windows up to watermark {} starting {}..{}: {} published, {} differences,"
            + " {} beyond tolerance {}",
        metric.name(),
        wm.get(),
        range.from(),
        range.to(),
        compared,
        diffs.size(),
        beyond,
        config.auditTolerance());
    return new MetricResult(metric.name(), wm.get(), compared, diffs.size(), beyond);
  }

  private static Dataset<Row> inRange(
      Dataset<Row> gold, Instant from, Instant to, Timestamp closedBy) {
    return gold.filter(
        col("window_start")
            .geq(lit(Timestamp.from(from)))
            .and(col("window_start").lt(lit(Timestamp.from(to))))
            .and(col("window_end").leq(lit(closedBy))));
  }
}

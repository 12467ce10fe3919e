package io.latelake.profiler;

import static org.apache.spark.sql.functions.col;

import io.latelake.core.ExitCode;
import io.latelake.core.event.BronzeRows;
import io.latelake.core.job.ActionResult;
import io.latelake.core.job.JobContext;
import io.latelake.core.metrics.RunFigures;
import io.latelake.core.table.DeltaTables;
import io.latelake.core.time.DayRange;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The profile run: reads {@code bronze_events} for a range of arrival days and writes
 *
 * <ul>
 *   <li>{@code monitoring.lateness_stats} — per source and arrival day (schema in {@link
 *       LatenessStats#stats}); the rows of the range's days are replaced atomically (Delta {@code
 *       replaceWhere} on {@code arrival_day}), so re-running for the same days leaves one row per
 *       (source, day);
 *   <li>{@code monitoring.lateness_cdf} — the quantiles per source over the range ({@link
 *       RangeFigures#cdf}); overwritten: it holds the latest run's distribution;
 *   <li>{@code monitoring.watermark_advice} — ({@link RangeFigures#advice}); overwritten;
 *   <li>{@code monitoring.watermark_replay} — silver's watermark replayed for its configured delay
 *       and the candidates ({@link WatermarkReplay}); overwritten;
 *   <li>{@code monitoring.alerts} — appended: SLA rules ({@link Alerts#fromRules}) and the
 *       watermark-drop alert over {@code monitoring.stream_progress} ({@link Alerts#fromDrops}).
 * </ul>
 *
 * <p>A range in which no bronze row arrived writes nothing (a WARN line says so): the tables keep
 * what earlier runs wrote, instead of range-wide tables overwritten with empty ones.
 *
 * <p><b>What is measured.</b> Events, not copies: of the copies of an {@code event_id}, the first
 * arrival ({@link io.latelake.core.dedup.ExactDedup}, the correction path's rule) is measured, the
 * others are counted as redeliveries; Kafka CreateTime rows are counted apart and never measured
 * (their enqueued time is the producer's clock).
 *
 * <p><b>What is read.</b> Bronze rows whose UTC {@code to_date(enqueued_time)} lies in the range.
 * Bronze is partitioned by {@code ingest_date}; the read carries the partition filter of {@link
 * BronzeRows#ingestDateFrom} for {@code from}, widened by the id horizon for the dedup, so older
 * partitions are pruned, never listed or read.
 */
public final class ProfileJob extends ProfilerJob<ProfileJob.Result> {
  private static final Logger LOG = LoggerFactory.getLogger(ProfileJob.class);

  /**
   * What a run did.
   *
   * @param range arrival days profiled
   * @param stats the rows written to {@code monitoring.lateness_stats}, ordered by source, day
   * @param advice the rows written to {@code monitoring.watermark_advice}
   * @param alerts the rows appended to {@code monitoring.alerts}
   * @param replay the rows written to {@code monitoring.watermark_replay}, by delay
   * @param wallTime wall time of the run
   */
  public record Result(
      DayRange range,
      List<Row> stats,
      List<Row> advice,
      List<Row> alerts,
      List<Row> replay,
      Duration wallTime)
      implements ActionResult {
    public Result {
      stats = List.copyOf(stats);
      advice = List.copyOf(advice);
      alerts = List.copyOf(alerts);
      replay = List.copyOf(replay);
    }

    /**
     * @return true when any alert fired (the command exits 3)
     */
    public boolean alerted() {
      return !alerts.isEmpty();
    }

    @Override
    public String summary() {
      return stats.size()
          + " (source, day) rows for "
          + range
          + ", "
          + alerts.size()
          + " alerts, "
          + wallTime.toMillis()
          + " ms";
    }

    /** Exit 3 when an alert fired. */
    @Override
    public ExitCode exitCode() {
      return alerted() ? ExitCode.AUDIT_DIFFERENCES : ExitCode.OK;
    }

    @Override
    public void report(RunFigures figures) {
      figures.gauge(
          "latelake_profile_alerts",
          "Alerts the profile raised (rows appended to monitoring.alerts).",
          alerts.size());
    }
  }

  /**
   * @param context the run's context; its clock gives {@code computed_at} / {@code raised_at}
   * @param options the profiler config and the arrival days to profile (validated)
   */
  public ProfileJob(JobContext context, Options options) {
    super("profile", context, options);
  }

  /**
   * Runs the profile: one Spark query reads the range's bronze rows once and aggregates them once
   * ({@link LatenessStats#summary}); the rows of every table are then derived from its result (a
   * row per source and day, with its hours of arrival nested, and one per source) and written.
   * Reading {@code monitoring.stream_progress} for the drop alert is the only other read.
   *
   * @return what was written
   * @throws io.latelake.core.table.MissingTableException (exit 2) when bronze is missing
   */
  public Result run() {
    long started = System.nanoTime();
    Instant now = clock.instant();
    // The watermark replay reads bronze and stream_progress on its own: it runs beside the one
    // pass and the three writes below, whose time is mostly the driver's. When a step fails
    // first, or no row arrived, closing it cancels it.
    try (Beside<List<Row>> replay =
        beside("watermark replay", () -> ProfileReads.replay(spark, registry, range, cfg, now))) {
      return profile(replay, started, now);
    }
  }

  private Result profile(Beside<List<Row>> replay, long started, Instant now) {
    Dataset<Row> summary =
        LatenessStats.summary(
            ProfileReads.readArrivals(spark, registry, range, cfg.dedupHorizon()), cfg);
    // The one pass over bronze: every figure below is derived from these rows (one per source
    // and day with its hours nested, one per source), on the driver.
    spark
        .sparkContext()
        .setJobDescription(
            "profile " + range + ": lateness per source and arrival day, one pass over bronze");
    List<Row> summaryRows;
    try {
      summaryRows = timed("one pass over bronze", summary::collectAsList);
    } finally {
      spark.sparkContext().setJobDescription(null);
    }
    if (summaryRows.isEmpty()) {
      // A run over days without arrivals (the default range on an old lake, a stalled pipeline)
      // would overwrite the range-wide tables with empty ones: it writes nothing instead.
      LOG.warn(
          "profile {}: no bronze row arrived on these days (UTC, by enqueued time); nothing "
              + "written: monitoring.lateness_stats, lateness_cdf, watermark_advice, "
              + "watermark_replay and alerts keep what earlier runs wrote. Give the arrival days "
              + "with --days FROM[..TO]",
          range);
      return new Result(
          range,
          List.of(),
          List.of(),
          List.of(),
          List.of(),
          Duration.ofNanos(System.nanoTime() - started));
    }
    Dataset<Row> computed = spark.createDataFrame(summaryRows, summary.schema());
    Dataset<Row> stats = LatenessStats.statsOf(computed, cfg, now);
    List<Row> statsRows = stats.orderBy(col("source"), col("arrival_day")).collectAsList();
    Dataset<Row> fresh = spark.createDataFrame(statsRows, stats.schema());
    String statsPath = registry.monitoring("lateness_stats");
    long statsStarted = System.nanoTime();
    if (DeltaTables.exists(spark, statsPath)) {
      // mergeSchema: tables written before redelivery_count/_share existed gain the columns
      fresh
          .write()
          .format("delta")
          .mode("overwrite")
          .option("mergeSchema", "true")
          .option("replaceWhere", range.predicate("arrival_day"))
          .save(statsPath);
    } else {
      fresh.write().format("delta").mode("overwrite").save(statsPath);
    }
    LOG.debug("write lateness_stats took {} ms", (System.nanoTime() - statsStarted) / 1_000_000);
    long cdfStarted = System.nanoTime();
    RangeFigures.cdf(computed, range, cfg, now)
        .write()
        .format("delta")
        .mode("overwrite")
        .option("overwriteSchema", "true")
        .save(registry.monitoring("lateness_cdf"));
    LOG.debug("write lateness_cdf took {} ms", (System.nanoTime() - cdfStarted) / 1_000_000);
    long adviceStarted = System.nanoTime();
    Dataset<Row> advice = RangeFigures.advice(computed, range, cfg, now);
    List<Row> adviceRows =
        advice.orderBy(col("source"), col("kind").desc(), col("coverage")).collectAsList();
    spark
        .createDataFrame(adviceRows, advice.schema())
        .write()
        .format("delta")
        .mode("overwrite")
        .option("overwriteSchema", "true")
        .save(registry.monitoring("watermark_advice"));
    LOG.debug("write watermark_advice took {} ms", (System.nanoTime() - adviceStarted) / 1_000_000);
    List<Row> replayRows = replay.join();
    spark
        .createDataFrame(replayRows, ReplayOutcome.SCHEMA)
        .write()
        .format("delta")
        .mode("overwrite")
        .option("overwriteSchema", "true")
        .save(registry.monitoring("watermark_replay"));
    long alertsStarted = System.nanoTime();

    Dataset<Row> alerts = Alerts.fromRules(spark, fresh, cfg.rules(), now);
    if (DeltaTables.exists(spark, registry.streamProgress())) {
      alerts =
          alerts.unionByName(
              Alerts.fromDrops(
                  spark,
                  spark.read().format("delta").load(registry.streamProgress()),
                  cfg.dropWindowBatches(),
                  cfg.dropMaxCount(),
                  cfg.dropMaxShare(),
                  now));
    } else {
      LOG.info(
          "profile {}: no monitoring.stream_progress (no stream has run on this lake): the"
              + " watermark-drop alert is not evaluated",
          range);
    }
    List<Row> alertRows = alerts.collectAsList();
    if (!alertRows.isEmpty()) {
      spark
          .createDataFrame(alertRows, Alerts.SCHEMA)
          .write()
          .format("delta")
          .mode("append")
          .save(registry.monitoring("alerts"));
    }
    LOG.debug("alerts took {} ms", (System.nanoTime() - alertsStarted) / 1_000_000);
    ProfileLog.log(statsRows, adviceRows, alertRows, replayRows);
    return new Result(
        range,
        statsRows,
        adviceRows,
        alertRows,
        replayRows,
        Duration.ofNanos(System.nanoTime() - started));
  }

  private static <T> T timed(String what, java.util.function.Supplier<T> body) {
    long started = System.nanoTime();
    try {
      return body.get();
    } finally {
      LOG.debug("{} took {} ms", what, (System.nanoTime() - started) / 1_000_000);
    }
  }
}

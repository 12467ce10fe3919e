package io.latelake.profiler;

import com.typesafe.config.Config;
import io.latelake.core.job.JobContext;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.time.DayRange;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Profile + report for a command-line summary (the demo's last step): profiles the arrival days
 * between two instants, writes the HTML report, and prints per source and day n, p50, p95, p99,
 * max, skew share and drops beyond the watermark, the advice, the alerts, the profiler's wall time
 * next to a plain {@code count()} of the same bronze rows, and the report's path.
 */
public final class LatenessSummary {
  private LatenessSummary() {}

  /**
   * @param firstArrival earliest enqueued time of the data (UTC)
   * @param lastArrival latest enqueued time of the data (UTC)
   * @return the report written
   * @throws io.latelake.core.config.LakeConfigException on a bad {@code lake.profiler} config
   */
  public static ReportJob.Result run(
      PrintWriter out,
      SparkSession spark,
      Config config,
      Instant firstArrival,
      Instant lastArrival) {
    ProfilerConfig cfg = ProfilerConfig.fromConfig(config);
    TableRegistry tables = TableRegistry.fromConfig(config);
    DayRange range =
        new DayRange(
            LocalDate.ofInstant(firstArrival, ZoneOffset.UTC),
            LocalDate.ofInstant(lastArrival, ZoneOffset.UTC));
    long t0 = System.nanoTime();
    long rows = ProfileReads.readLateness(spark, tables, range, cfg.dedupHorizon()).count();
    double countS = (System.nanoTime() - t0) / 1e9;
    ProfilerJob.Options options = new ProfilerJob.Options(cfg, range);
    ProfileJob.Result p = new ProfileJob(JobContext.start(spark, tables), options).run();
    ReportJob.Result r = new ReportJob(JobContext.start(spark, tables), options).run();
    out.printf(
        "%n== lateness profile, arrival days %s (lateness = enqueued - event time) ==%n", range);
    out.println(
        "  source | arrival day | n | p50 s | p95 s | p99 s | max s | skew share | "
            + "lateness > watermark | behind a watermark moved after every arrival");
    for (Row s : p.stats()) {
      out.printf(
          "  %s | %s | %,d | %s | %s | %s | %s | %.6f | %,d (%.4f%%) | %,d (%.4f%%)%s%n",
          s.getAs("source"),
          s.getAs("arrival_day"),
          s.<Long>getAs("n"),
          s.getAs("p50_s"),
          s.getAs("p95_s"),
          s.getAs("p99_s"),
          s.getAs("max_s"),
          s.<Double>getAs("negative_share"),
          s.<Long>getAs("beyond_watermark_count"),
          percent(s.getAs("beyond_watermark_share")),
          s.<Long>getAs("behind_watermark_count"),
          percent(s.getAs("behind_watermark_share")),
          s.<Long>getAs("create_time_count") > 0 ? "  [Kafka CreateTime: producer clock]" : "");
    }
    for (Row a : p.advice()) {
      boolean wm = "watermark".equals(a.getAs("kind"));
      if (wm) {
        out.printf(
            "  advice %s: watermark delay covering %s%% needs %s s; %,d events (%.4f%%) fall "
                + "behind a %s s watermark if it moved after every arrival, per source (not "
                + "the stream's drops: see the replay); lateness above it: %,d%n",
            a.getAs("source"),
            a.<Double>getAs("coverage") * 100,
            a.getAs("advised_delay_s"),
            a.<Long>getAs("configured_dropped_count"),
            a.<Double>getAs("configured_dropped_share") * 100,
            a.getAs("configured_delay_s"),
            a.<Long>getAs("configured_beyond_count"));
      } else {
        out.printf(
            "  advice %s: correction horizon covering %s%% needs %s s; with the configured "
                + "%s s, %,d events (%.4f%%) restate settled windows%n",
            a.getAs("source"),
            a.<Double>getAs("coverage") * 100,
            a.getAs("advised_delay_s"),
            a.getAs("configured_delay_s"),
            a.<Long>getAs("configured_beyond_count"),
            a.<Double>getAs("configured_beyond_share") * 100);
      }
    }
    printReplay(out, p.replay());
    out.printf("  alerts: %d%n", p.alerts().size());
    for (Row a : p.alerts()) {
      out.printf("    %s%n", a.<String>getAs("message"));
    }
    out.printf(
        "  profiler wall time %.1f s; a plain count() of the same %,d bronze rows %.1f s%n",
        p.wallTime().toNanos() / 1e9, rows, countS);
    out.printf("lateness report: %s%n", r.html() == null ? r.summary() : r.html().toAbsolutePath());
    out.flush();
    return r;
  }

  /**
   * The watermark replay: per delay, the rows silver's stream drops by Spark's rule in its own
   * micro-batches, and the recommendation.
   */
  static void printReplay(PrintWriter out, java.util.List<Row> replay) {
    if (replay.isEmpty()) {
      return;
    }
    Row first = replay.get(0);
    out.printf(
        "  watermark replay of %s (Spark's rule; %,d micro-batches with rows, %s; target: at "
            + "most %.4f%% dropped):%n",
        first.getAs("query_name"),
        first.<Long>getAs("micro_batches"),
        WatermarkReplay.RECORDED.equals(first.getAs("batch_basis"))
            ? "as silver recorded them"
            : WatermarkReplay.PER_BRONZE_BATCH.equals(first.getAs("batch_basis"))
                ? "assumed one per bronze micro-batch (no records)"
                : "as recorded, then one per bronze micro-batch",
        first.<Double>getAs("target_drop_share") * 100);
    String recommended = null;
    for (Row r : replay) {
      Double lag = r.getAs("watermark_lag_s");
      out.printf(
          "    delay %s s drops %,d of %,d rows (%.4f%%); gold rows to correct: %,d; dedup state: "
              + "up to %,d ids; the watermark trails the newest arrival by %s s (median)%s%n",
          r.getAs("delay_s"),
          r.<Long>getAs("dropped_count"),
          r.<Long>getAs("rows"),
          r.<Double>getAs("dropped_share") * 100,
          r.<Long>getAs("gold_rows_to_correct"),
          r.<Long>getAs("state_rows_peak"),
          lag == null ? "?" : String.format(java.util.Locale.ROOT, "%.3f", lag),
          r.<Boolean>getAs("configured") ? "  <- configured" : "");
      if (r.<Boolean>getAs("recommended")) {
        recommended = r.getAs("delay_s").toString();
      }
    }
    out.printf(
        "    recommended: %s%n",
        recommended == null
            ? "none (no delay tried meets the target, or nothing was replayed; larger "
                + "delays go in lake.profiler.candidate-delays)"
            : recommended + " s, the smallest delay tried that meets the target");
  }

  /**
   * @return the share in percent; null (printed "null") for a day with nothing measured (n = 0)
   */
  private static Double percent(Double share) {
    return share == null ? null : share * 100;
  }
}

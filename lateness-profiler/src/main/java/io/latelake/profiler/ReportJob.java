package io.latelake.profiler;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.floor;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.log10;
import static org.apache.spark.sql.functions.when;

import io.latelake.core.job.ActionResult;
import io.latelake.core.job.JobContext;
import io.latelake.core.table.DeltaTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a self-contained HTML report ({@code lateness-report.html}, charts embedded as base64 PNG)
 * and the PNG files into the report folder (a local path of the driver), per source: the lateness
 * histogram (log scale, ten bins per decade, from bronze over the range), the cumulative
 * distribution from {@code monitoring.lateness_cdf} with the watermark delay and correction horizon
 * marked, p50/p95/p99 per arrival day from {@code monitoring.lateness_stats} and over the range
 * (the days' lateness sketches merged, {@link LatenessSketches}), the advice from {@code
 * monitoring.watermark_advice}; rows dropped by the watermark per micro-batch from {@code
 * monitoring.stream_progress} when it exists; and what each watermark delay would drop, from {@code
 * monitoring.watermark_replay}.
 */
public final class ReportJob extends ProfilerJob<ReportJob.Result> {
  private static final Logger LOG = LoggerFactory.getLogger(ReportJob.class);

  /** The levels of the report's figures over the whole range: p50, p95, p99. */
  static final double[] RANGE_LEVELS = {0.5, 0.95, 0.99};

  /** Histogram bins per decade of lateness. */
  static final int BINS_PER_DECADE = 10;

  /**
   * @param html the report file; null when nothing was written ({@code monitoring.lateness_stats}
   *     holds no day of the range)
   * @param charts the PNG files written
   * @param sources sources reported
   */
  public record Result(Path html, List<Path> charts, List<String> sources) implements ActionResult {
    public Result {
      charts = List.copyOf(charts);
      sources = List.copyOf(sources);
    }

    @Override
    public String summary() {
      return html == null
          ? "nothing written (no profiled arrival day in the range)"
          : "written to " + html.toAbsolutePath() + " (" + charts.size() + " charts)";
    }
  }

  /**
   * @param context the run's context
   * @param options the profiler config and the arrival days to report (validated)
   */
  public ReportJob(JobContext context, Options options) {
    super("report", context, options);
  }

  /**
   * Log-scale histogram of positive lateness: bin b holds lateness in [10^(b/10), 10^((b+1)/10))
   * seconds. Output: {@code source}, {@code bin} long, {@code events} long; zero and negative
   * lateness get bin {@code null} with {@code kind} {@code zero} / {@code negative}.
   */
  public static Dataset<Row> histogram(Dataset<Row> lateness) {
    return lateness
        .select(
            col("source"),
            when(col("lateness_s").gt(0), floor(log10(col("lateness_s")).multiply(BINS_PER_DECADE)))
                .as("bin"),
            when(col("lateness_s").gt(0), lit("positive"))
                .when(col("lateness_s").equalTo(0), lit("zero"))
                .otherwise(lit("negative"))
                .as("kind"))
        .groupBy("source", "kind", "bin")
        .agg(count(lit(1)).as("events"));
  }

  /**
   * @return the report written, or a result without a file when {@code monitoring.lateness_stats}
   *     holds no day of the range (an earlier report is kept; logged at WARN)
   * @throws io.latelake.core.table.MissingTableException (exit 2) when {@code
   *     monitoring.lateness_stats} does not exist
   * @throws UncheckedIOException when the report folder cannot be written
   */
  public Result run() {
    if (System.getProperty("java.awt.headless") == null) {
      System.setProperty("java.awt.headless", "true");
    }
    String statsPath = registry.monitoring("lateness_stats");
    io.latelake.core.table.MissingTableException.require(
        spark,
        "write the lateness report",
        "monitoring.lateness_stats",
        statsPath,
        "run `latelake profile` first");
    List<Row> stats =
        spark
            .read()
            .format("delta")
            .load(statsPath)
            .filter(range.predicate("arrival_day"))
            .orderBy("source", "arrival_day")
            .collectAsList();
    Path dir = Path.of(cfg.reportDir());
    if (stats.isEmpty()) {
      // The default range on a lake of replayed or old data, or days not profiled yet: a report
      // of no source would replace the one an earlier run wrote for the days that have data.
      LOG.warn(
          "report {}: monitoring.lateness_stats holds no arrival day of this range (UTC, by"
              + " enqueued time); nothing written, {} keeps what an earlier run wrote. Give the"
              + " profiled arrival days with --days FROM[..TO] (`latelake profile --days` first"
              + " for days not profiled yet)",
          range,
          dir.resolve("lateness-report.html"));
      return new Result(null, List.of(), List.of());
    }
    Map<String, Row> overRange = new TreeMap<>();
    Dataset<Row> inRange = spark.read().format("delta").load(statsPath);
    if (java.util.Arrays.asList(inRange.columns()).contains("lateness_sketch")) {
      for (Row r :
          LatenessSketches.over(inRange.filter(range.predicate("arrival_day")), RANGE_LEVELS)
              .collectAsList()) {
        overRange.put(r.getAs("source"), r);
      }
    }
    List<Row> cdfRows = read("lateness_cdf");
    List<Row> advice =
        read("watermark_advice").stream()
            .sorted(
                java.util.Comparator.comparing((Row r) -> !"watermark".equals(r.getAs("kind")))
                    .thenComparing(r -> r.<Double>getAs("coverage")))
            .toList();
    List<Row> hist =
        histogram(ProfileReads.readLateness(spark, registry, range, cfg.dedupHorizon()))
            .collectAsList();
    Map<String, Map<Long, Long>> drops = new TreeMap<>();
    if (DeltaTables.exists(spark, registry.streamProgress())) {
      for (Row r :
          spark
              .read()
              .format("delta")
              .load(registry.streamProgress())
              .select("query_name", "batch_id", "rows_dropped_by_watermark")
              .collectAsList()) {
        drops
            .computeIfAbsent(r.getString(0), k -> new TreeMap<>())
            .merge(r.getLong(1), r.getLong(2), Long::sum);
      }
    }
    List<Row> replay =
        read("watermark_replay").stream()
            .sorted(java.util.Comparator.comparing((Row r) -> r.<Double>getAs("delay_s")))
            .toList();
    List<Path> pngs = new ArrayList<>();
    List<String> sources = stats.stream().map(r -> r.<String>getAs("source")).distinct().toList();
    StringBuilder html = new StringBuilder();
    html.append(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>latelake lateness "
            + "report</title><style>body{font-family:sans-serif;margin:2em;max-width:1100px}"
            + "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;"
            + "padding:3px 6px;text-align:right}th{background:#eee}img{display:block;margin:1em 0}"
            + "</style></head><body>");
    html.append("<h1>Lateness report</h1><p>Arrival days ")
        .append(range)
        .append(" (UTC). Lateness = enqueued time − event time, seconds. Generated ")
        .append(clock.instant())
        .append(". ")
        .append(ReportHtml.percentileMethod(stats, cfg.accuracy()))
        .append(". Watermark delay ")
        .append(Charts.human(cfg.watermarkDelaySeconds()))
        .append(", correction horizon ")
        .append(Charts.human(cfg.correctionHorizonSeconds()))
        .append(".</p>");
    try {
      Files.createDirectories(dir);
      for (String source : sources) {
        String safe = source.replaceAll("[^A-Za-z0-9_.-]", "_");
        html.append("<h2>").append(ReportHtml.esc(source)).append("</h2>");
        List<Row> mine = stats.stream().filter(r -> source.equals(r.getAs("source"))).toList();
        ReportHtml.statsTable(html, mine);
        ReportHtml.rangeLine(html, range, overRange.get(source));
        ReportHtml.adviceTable(
            html, advice.stream().filter(r -> source.equals(r.getAs("source"))).toList());
        List<Charts.Bin> bins = new ArrayList<>();
        long zero = 0;
        long negative = 0;
        for (Row h : hist) {
          if (!source.equals(h.getAs("source"))) {
            continue;
          }
          String kind = h.getAs("kind");
          long n = h.getAs("events");
          if (kind.equals("zero")) {
            zero += n;
          } else if (kind.equals("negative")) {
            negative += n;
          } else {
            long b = h.getAs("bin");
            bins.add(
                new Charts.Bin(
                    Math.pow(10, (double) b / BINS_PER_DECADE),
                    Math.pow(10, (double) (b + 1) / BINS_PER_DECADE),
                    n));
          }
        }
        ReportHtml.embed(
            html,
            dir,
            pngs,
            safe + "-histogram.png",
            Charts.histogram(source, bins, zero, negative));
        List<Row> cdf = cdfRows.stream().filter(r -> source.equals(r.getAs("source"))).toList();
        if (!cdf.isEmpty()) {
          ReportHtml.embed(
              html,
              dir,
              pngs,
              safe + "-cdf.png",
              Charts.cdf(
                  source,
                  LatenessCdf.fromRows(cdf),
                  cfg.watermarkDelaySeconds(),
                  cfg.correctionHorizonSeconds()));
        }
        Map<String, Map<LocalDate, Double>> trend = new LinkedHashMap<>();
        for (String p : List.of("p50_s", "p95_s", "p99_s")) {
          Map<LocalDate, Double> series = new TreeMap<>();
          for (Row r : mine) {
            series.put(((java.sql.Date) r.getAs("arrival_day")).toLocalDate(), r.getAs(p));
          }
          trend.put(p.replace("_s", ""), series);
        }
        ReportHtml.embed(html, dir, pngs, safe + "-trend.png", Charts.trend(source, trend));
      }
      html.append("<h2>Stream: rows dropped by the watermark</h2>");
      if (drops.isEmpty()) {
        html.append("<p>No <code>monitoring.stream_progress</code> rows.</p>");
      } else {
        ReportHtml.embed(html, dir, pngs, "dropped-by-watermark.png", Charts.dropped(drops));
      }
      ReportHtml.replayTable(html, replay);
      html.append("</body></html>\n");
      Path file = dir.resolve("lateness-report.html");
      Files.writeString(file, html.toString());
      LOG.info("lateness report for {} sources written to {}", sources.size(), file);
      return new Result(file, pngs, sources);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the lateness report to " + dir, e);
    }
  }

  private List<Row> read(String name) {
    String path = registry.monitoring(name);
    return DeltaTables.exists(spark, path)
        ? spark.read().format("delta").load(path).collectAsList()
        : List.of();
  }
}

package io.latelake.app;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.sum;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import io.latelake.bronze.replay.CapturedEvents;
import io.latelake.bronze.replay.LandingWriter;
import io.latelake.bronze.replay.ReplaySource;
import io.latelake.core.ExitCode;
import io.latelake.core.cli.BatchStop;
import io.latelake.core.cli.ConfigOptions;
import io.latelake.core.job.JobContext;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.spark.SparkSessions;
import io.latelake.core.table.TableRegistry;
import io.latelake.correction.correct.CorrectJob;
import io.latelake.correction.correct.CorrectResult;
import io.latelake.correction.shared.CorrectionConfig;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code latelake demo}: replays a captured dataset (by default the bundled phone data) slice by
 * slice through bronze, silver and gold on local Delta tables, the three side by side ({@link
 * FastPath#pipelined}: 31 slices in 33 steps), then prints a report: records read, bronze rows
 * (valid / invalid), silver rows, duplicates removed, rows dropped by the watermark, gold rows and
 * the first gold windows.
 *
 * <p>The demo's sessions evaluate Spark expressions interpreted ({@link #INTERPRETED}) unless
 * {@code lake.spark.conf} or Spark's own configuration names those settings: its micro-batches hold
 * about 1,500 rows each, and generating and compiling Java for each one's plans cost more than the
 * rows (measured: the demo 129.4 s with generated code, 109.9 s without, median of 3 pairs on 2
 * cores, the same output; docs/benchmark.md). Larger micro-batches are faster with generated code,
 * which every other command keeps.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = "Replay the bundled phone data through bronze, silver and gold, then report.")
public final class DemoCommand implements Callable<Integer> {
  /**
   * Spark's settings for interpreted evaluation: no whole-stage code generation, and projections
   * and predicates evaluated without generated classes ({@code spark.sql.codegen.factoryMode},
   * which Spark's own tests set the same way).
   */
  static final java.util.Map<String, String> INTERPRETED =
      java.util.Map.of(
          "spark.sql.codegen.wholeStage", "false", "spark.sql.codegen.factoryMode", "NO_CODEGEN");

  @Mixin ConfigOptions options = new ConfigOptions();

  @Mixin ReplaySource source = new ReplaySource();

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    // the streams' stop ends each stage's running micro-batch; this one keeps Spark up until the
    // demo has ended and cancels the jobs of the steps after the stream
    BatchStop stop = BatchStop.afterStreams();
    try {
      return run(stop);
    } finally {
      stop.ended();
    }
  }

  private int run(BatchStop stop) {
    Config base = options.load();
    String stamp =
        LocalDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    String root = io.latelake.core.table.TableRegistry.fromConfig(base).root() + "/demo-" + stamp;
    Path landing = Path.of(root, "landing");
    Config config = demoConfig(base, root, landing, new org.apache.spark.SparkConf());
    List<List<CapturedEvents.Event>> slices = source.slices();
    long events = slices.stream().mapToLong(List::size).sum();
    PrintWriter out = spec.commandLine().getOut();
    // The demo prints its own progress and report; one log line per micro-batch would bury it,
    // and the jobs' INFO summaries would repeat the report in other words on stderr.
    for (String logger :
        List.of("io.latelake.core.streaming", "io.latelake.correction", "io.latelake.profiler")) {
      org.apache.logging.log4j.core.config.Configurator.setLevel(
          logger, org.apache.logging.log4j.Level.WARN);
    }
    if (FastPath.stopping()) {
      return notStarted(out);
    }
    SparkSession spark;
    try {
      spark = SparkSessions.create("latelake-demo", config);
    } catch (RuntimeException | ExceptionInInitializerError e) {
      if (FastPath.stopping()) {
        return notStarted(out); // Spark cannot start once the JVM shuts down
      }
      throw e;
    }
    FastPath fast = new FastPath(spark, config);
    out.printf(
        "latelake demo: %d events from %s in %d micro-batches of %s arrival time%n",
        events, source.dataset(), slices.size(), source.slice());
    out.printf("tables under %s%n", Path.of(root).toAbsolutePath());
    out.flush();
    try {
      LandingWriter writer = new LandingWriter(landing);
      long[] dropped = {0};
      long[] read = {0};
      long started = System.nanoTime();
      int ticks = slices.size() + 2;
      int completed =
          fast.pipelined(
              slices.size(),
              i -> writer.write(i + 1, slices.get(i)),
              (tick, step) -> {
                read[0] += step.bronze().inputRows();
                dropped[0] += step.droppedByWatermark();
                if (tick % 10 == 0 || tick == ticks) {
                  out.printf(
                      "  step %d/%d: %d records read, %d dropped by the watermark so far (%.0f s)%n",
                      tick, ticks, read[0], dropped[0], (System.nanoTime() - started) / 1e9);
                  out.flush();
                }
              });
      if (FastPath.stopping()) {
        return stopped(
            out,
            "at step "
                + Math.min(completed + 1, ticks)
                + "/"
                + ticks
                + " ("
                + completed
                + " complete)",
            root);
      }
      fast.close();
      stop.attach(spark.sparkContext());
      report(out, spark, fast.tables(), fast, events, dropped[0]);
      correct(out, spark, config);
      // lateness-profiler: the lateness summary and the HTML report, last.
      io.latelake.profiler.LatenessSummary.run(
          out,
          spark,
          config,
          slices.stream()
              .flatMap(List::stream)
              .map(CapturedEvents.Event::arrival)
              .min(java.util.Comparator.naturalOrder())
              .orElse(java.time.Instant.EPOCH),
          slices.stream()
              .flatMap(List::stream)
              .map(CapturedEvents.Event::arrival)
              .max(java.util.Comparator.naturalOrder())
              .orElse(java.time.Instant.EPOCH));
      // analyst: tables and status views by name, and what to type next.
      io.latelake.core.spark.SparkSessions.stop(spark);
      if (!FastPath.stopping()) {
        io.latelake.analyst.DemoCatalog.registerAndSuggest(out, config, options.configFile());
      }
      return FastPath.stopping() ? stopped(out, "after the stream", root) : ExitCode.OK.code();
    } catch (RuntimeException e) {
      if (FastPath.stopping()) {
        // what a job threw once the stop began is its consequence: Spark is stopping
        return stopped(out, "after the stream", root);
      }
      throw e;
    } finally {
      fast.close(); // Spark stays up until the demo has ended (BatchStop.afterStreams)
      if (!FastPath.stopping()) {
        io.latelake.core.spark.SparkSessions.stop(spark);
      } // else Spark's own shutdown hook stops the session
    }
  }

  /**
   * The configuration of the demo's sessions (the stream's and the catalog's): {@code base} with
   * the demo's lake under {@code root}, the file source reading {@code landing}, and each of {@link
   * #INTERPRETED} under {@code lake.spark.conf} that neither {@code base}'s {@code lake.spark.conf}
   * (quoted or nested keys) nor {@code spark} names.
   *
   * @param spark Spark's configuration as the session would see it ({@code -Dspark.*},
   *     spark-submit's {@code --conf})
   */
  static Config demoConfig(
      Config base, String root, Path landing, org.apache.spark.SparkConf spark) {
    Config config =
        base.withValue("lake.root", ConfigValueFactory.fromAnyRef(root))
            .withValue("lake.bronze.source", ConfigValueFactory.fromAnyRef("files"))
            .withValue("lake.bronze.files.path", ConfigValueFactory.fromAnyRef(landing.toString()));
    java.util.Map<String, String> given = io.latelake.core.config.SparkConfOptions.fromConfig(base);
    for (var e : INTERPRETED.entrySet()) {
      if (!given.containsKey(e.getKey()) && !spark.contains(e.getKey())) {
        config =
            config.withValue(
                "lake.spark.conf.\"" + e.getKey() + "\"",
                ConfigValueFactory.fromAnyRef(e.getValue()));
      }
    }
    return config;
  }

  /**
   * Says the demo was stopped before its Spark session started.
   *
   * @return {@link ExitCode#STOPPED}
   */
  private static int notStarted(PrintWriter out) {
    out.println("demo stopped on request before it started: nothing was written");
    out.flush();
    return ExitCode.STOPPED.code();
  }

  /**
   * Says the demo ended on a stop (SIGTERM or SIGINT, {@link BatchStop#afterStreams}) and what it
   * leaves: the step that was running ends, its stages' queries each after their running
   * micro-batch.
   *
   * @return {@link ExitCode#STOPPED}
   */
  private static int stopped(PrintWriter out, String when, String root) {
    out.printf(
        "demo stopped on request %s: the tables under %s keep every micro-batch committed"
            + " before the stop (each demo writes a new lake)%n",
        when, Path.of(root).toAbsolutePath());
    out.flush();
    return ExitCode.STOPPED.code();
  }

  /**
   * Runs the correction path's {@code correct} over the demo's fresh lake (every bronze row is new,
   * so it checks them all, as {@code --since} the demo's start would) and prints the windows it
   * restated, before → after.
   */
  private static void correct(PrintWriter out, SparkSession spark, Config config) {
    CorrectionConfig cc = CorrectionConfig.fromConfig(config);
    long started = System.nanoTime();
    CorrectResult r =
        new CorrectJob(
                JobContext.start(spark, TableRegistry.fromConfig(config)),
                new CorrectJob.Options(
                    cc, cc.metrics(), java.util.Optional.of(java.time.Instant.EPOCH)))
            .run();
    out.printf(
        "%n== correct (run %s, %.0f s) ==%n", r.runId(), (System.nanoTime() - started) / 1e9);
    for (CorrectResult.MetricResult m : r.metrics()) {
      out.printf(
          "gold.%s (late policy %s): watermark %s, %,d windows touched, %,d closed and "
              + "recomputed from bronze, %,d still open (deferred), %,d rows restated%n",
          m.metric(),
          m.policy().configName(),
          m.watermark(),
          m.touchedWindows(),
          m.closedWindows(),
          m.deferredWindows(),
          m.rowsChanged());
      for (CorrectResult.Change c : m.changes()) {
        out.printf(
            "  %s %s: %s -> %s (%s)%n",
            c.windowStart(),
            c.keys(),
            c.oldValues() == null ? "(no row)" : c.oldValues(),
            c.newValues() == null ? "(removed)" : c.newValues(),
            c.reason());
      }
      if (m.rowsChanged() > m.changes().size()) {
        out.printf(
            "  ... and %,d more (monitoring.corrections_log)%n",
            m.rowsChanged() - m.changes().size());
      }
    }
    out.flush();
  }

  private void report(
      PrintWriter out,
      SparkSession spark,
      TableRegistry tables,
      FastPath fast,
      long records,
      long dropped) {
    Row b =
        spark
            .read()
            .format("delta")
            .load(tables.bronzeEvents())
            .selectExpr("count(*) AS n", "count_if(error IS NULL) AS valid")
            .first();
    long bronze = b.getLong(0);
    long valid = b.getLong(1);
    long silver = spark.read().format("delta").load(tables.silverEvents()).count();
    Dataset<Row> progress = spark.read().format("delta").load(tables.streamProgress());
    Row byQuery = progress.agg(sum(col("rows_dropped_by_watermark"))).first();
    long droppedRecorded = byQuery.isNullAt(0) ? 0 : byQuery.getLong(0);
    long silverDropped =
        progress
            .filter(col("query_name").equalTo("silver_events"))
            .agg(sum(col("rows_dropped_by_watermark")))
            .first()
            .getLong(0);
    out.println();
    out.println("== latelake demo report ==");
    out.printf("records read            %,d%n", records);
    out.printf(
        "bronze rows             %,d (valid %,d, invalid %,d)%n", bronze, valid, bronze - valid);
    out.printf("silver rows             %,d%n", silver);
    out.printf("duplicates removed      %,d%n", valid - silver - silverDropped);
    out.printf(
        "dropped by watermark    %,d (silver %,d, gold %,d; recorded in "
            + "monitoring.stream_progress: %,d)%n",
        dropped, silverDropped, dropped - silverDropped, droppedRecorded);
    for (MetricSpec m : fast.goldConfig().metrics()) {
      Dataset<Row> gold = spark.read().format("delta").load(tables.gold(m.name()));
      out.printf("gold.%-18s %,d rows%n", m.name(), gold.count());
      out.printf("first windows of gold.%s:%n", m.name());
      List<String> cols = new java.util.ArrayList<>(List.of("window_start", "window_end"));
      cols.addAll(m.groupBy());
      cols.addAll(m.measureNames());
      String header = String.join(" | ", cols);
      out.println("  " + header);
      for (Row r :
          gold.orderBy(
                  col("window_start"),
                  col(m.groupBy().isEmpty() ? "window_end" : m.groupBy().get(0)))
              .select(
                  cols.stream()
                      .map(org.apache.spark.sql.functions::col)
                      .toArray(org.apache.spark.sql.Column[]::new))
              .limit(8)
              .collectAsList()) {
        StringBuilder sb = new StringBuilder("  ");
        for (int i = 0; i < r.size(); i++) {
          if (i > 0) {
            sb.append(" | ");
          }
          Object v = r.get(i);
          sb.append(
              v instanceof java.sql.Timestamp t ? t.toInstant().toString() : String.valueOf(v));
        }
        out.println(sb);
      }
    }
    out.printf(
        "%nThe rows dropped by the watermark are still in bronze; the correction path "
            + "restates their windows.%n");
    out.flush();
  }
}

package io.latelake.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.latelake.bronze.replay.CapturedEvents;
import io.latelake.bronze.replay.LandingWriter;
import io.latelake.bronze.replay.ReplayPlan;
import io.latelake.core.config.ConfigLoader;
import io.latelake.core.metric.GoldStatus;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.metric.Metrics;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.testing.PrometheusServer;
import io.latelake.core.testing.Pushgateways;
import io.latelake.core.testing.SparkTestBase;
import io.latelake.correction.CorrectMain;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code latelake run} on the bundled phone data with {@code lake.metrics.streams = true} and
 * Spark's PrometheusServlet on the driver's UI, scraped every second by a real Prometheus (Debian's
 * {@code prometheus}, which {@code .ci/run} installs; skipped without it) configured by {@code
 * conf/prometheus/prometheus.yml} and its rules, and {@code correct} pushing to a real Pushgateway
 * scraped by the same Prometheus.
 *
 * <p>The phone data's first four 5-second arrival slices (128 events in two, then 156 in two) are
 * landed one file at a time, each read through bronze, silver and gold before the next: one silver
 * micro-batch per file, so what silver drops is fixed by the data. With a 1 ms watermark delay the
 * first two drop 3 rows (silver); the stream is then restarted with a 10 s delay and the next two
 * drop none.
 *
 * <p>The rules are the shipped ones with their windows shortened for a test of minutes ({@code
 * [10m]} to {@code [1m]}, {@code for: 5m} to {@code for: 2s}) and the dropped-share threshold
 * lowered from 1% to 0.1% (the phone data drops under 1% even at 1 ms); {@code promtool test rules}
 * checks the shipped values (PrometheusRulesTest).
 */
class PrometheusIT extends SparkTestBase {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PrometheusIT.class);

  /**
   * Every wait's bound: a wait ends as soon as its condition holds (seconds on a normal run), and
   * the bound leaves room for a machine several times slower than usual.
   */
  private static final Duration BOUND = Duration.ofMinutes(5);

  private static final Path REPO = StreamProcess.repoRoot();
  private static final Path DATASET = REPO.resolve("data/ooo-iot-umts/ooo_umts_events.csv.gz");
  private static final String METRIC = "events_per_device_10s";
  private static final String DROP_ALERT =
      "ALERTS{alertname=\"LatelakeRowsDroppedByWatermark\", query=\"silver_events\","
          + " alertstate=\"firing\"}";

  /**
   * 1 while {@link #DROP_ALERT} fired at some point of the last 10 minutes (this test's Prometheus
   * is its own, so: since the test started). The test's rule counts drops over 1 minute, so the
   * alert resolves a minute after the drops; on a slow machine that minute can pass before the wait
   * for it starts.
   */
  private static final String DROP_ALERT_FIRED = "max_over_time(" + DROP_ALERT + "[10m])";

  @TempDir Path tmp;

  private Path root;
  private List<String> baseSets;

  private List<String> sets(Duration delay, String... more) {
    List<String> s = new ArrayList<>(baseSets);
    s.add("lake.silver.watermark-delay=\"" + delay.toMillis() + " ms\"");
    s.add("lake.gold.watermark-delay=\"" + delay.toMillis() + " ms\"");
    s.addAll(List.of(more));
    return s;
  }

  private Row progress(String query, String aggregate, Instant since) {
    return spark
        .read()
        .format("delta")
        .load(root + "/monitoring/stream_progress")
        .filter("query_name = '" + query + "'")
        .filter(
            org.apache
                .spark
                .sql
                .functions
                .col("batch_timestamp")
                .geq(org.apache.spark.sql.functions.lit(Timestamp.from(since))))
        .selectExpr(aggregate)
        .first();
  }

  /**
   * Lands one slice and waits until bronze, silver and gold have each logged a micro-batch that
   * read it: with one landing file per bronze micro-batch and nothing landed before the last one
   * reached gold, this process's k-th slice is each query's k-th micro-batch with input rows.
   * Waiting reads the child's log, not the tables, to leave the cores to the child.
   *
   * @param nth how many slices this process has been given, this one included
   */
  private static void landAndWait(
      StreamProcess run, LandingWriter w, int index, List<CapturedEvents.Event> slice, int nth)
      throws InterruptedException {
    w.write(index, slice);
    run.waitFor(
        "slice " + index + " read by bronze, silver and gold",
        BOUND,
        () -> {
          String log = run.logText();
          for (String q : List.of("bronze_ooo_umts", "silver_events", "gold_" + METRIC)) {
            java.util.regex.Matcher m =
                java.util.regex.Pattern.compile(
                        "\\[" + q + "\\] micro-batch \\d+: [1-9][0-9]* input rows")
                    .matcher(log);
            int n = 0;
            while (m.find()) {
              n++;
            }
            if (n < nth) {
              return false;
            }
          }
          return true;
        });
  }

  private static double waitForValue(
      StreamProcess run, PrometheusServer prometheus, String promql, double expected)
      throws InterruptedException {
    Optional<Double>[] seen = new Optional[] {Optional.empty()};
    run.waitFor(
        promql + " to be " + expected,
        BOUND,
        () -> {
          try {
            seen[0] = prometheus.value(promql);
            return seen[0].isPresent() && seen[0].get().equals(expected);
          } catch (Exception e) {
            return false;
          }
        });
    return seen[0].orElseThrow();
  }

  /** Runs {@code correct} in its own JVM (pushing to the Pushgateway) and returns its exit code. */
  private int correct(String name, List<String> sets, String... args) throws Exception {
    try (StreamProcess p =
        StreamProcess.start(CorrectMain.class, StreamProcess.logFile(name), sets, args)) {
      return p.await(BOUND);
    }
  }

  @Test
  void operatorsSeeThePhoneDataStreamsTheirAlertsAndCorrectInPrometheus() throws Exception {
    assumeTrue(
        PrometheusServer.binary().isPresent(),
        "prometheus is not installed (.ci/run installs it; Debian: apt-get install prometheus)");
    assumeTrue(
        Pushgateways.binary().isPresent(),
        Pushgateways.BINARY + " is not installed (.ci/run installs it)");
    root = tmp.resolve("lake");
    List<List<CapturedEvents.Event>> slices =
        ReplayPlan.slices(CapturedEvents.read(DATASET, "arrival_time"), Duration.ofSeconds(5))
            .subList(0, 4);
    LandingWriter w = new LandingWriter(root.resolve("landing"));
    Path rules = tmp.resolve("rules");
    Files.createDirectories(rules);
    Path conf = REPO.resolve("conf");
    for (String file : List.of("latelake-streams.rules.yml", "latelake-batch.rules.yml")) {
      Files.writeString(
          rules.resolve(file),
          Files.readString(conf.resolve("prometheus").resolve(file))
              .replace("[10m]", "[1m]")
              .replace("for: 5m", "for: 2s")
              .replace(
                  "latelake:stream_dropped_share:10m > 0.01",
                  "latelake:stream_dropped_share:10m > 0.001"));
    }
    assertThat(Files.readString(rules.resolve("latelake-streams.rules.yml")))
        .contains("> 0.001")
        .contains("[1m]");
    int ui = Pushgateways.freePort();
    try (Pushgateways gateway = Pushgateways.start(tmp.resolve("pushgateway"));
        PrometheusServer prometheus =
            PrometheusServer.start(
                tmp.resolve("prometheus"),
                Files.readString(conf.resolve("prometheus/prometheus.yml"))
                    .replace("15s", "1s")
                    .replace("localhost:4040", "127.0.0.1:" + ui)
                    .replace("localhost:9091", gateway.url().substring("http://".length())),
                rules)) {
      baseSets =
          List.of(
              "lake.root=\"" + root + "\"",
              "lake.bronze.source=files",
              "lake.bronze.files.path=\"" + root.resolve("landing") + "\"",
              "lake.bronze.files.max-files-per-trigger=1",
              "lake.bronze.trigger-interval=\"1 second\"",
              "lake.silver.trigger-interval=\"1 second\"",
              "lake.gold.trigger-interval=\"1 second\"",
              "lake.metrics.streams=true",
              "lake.metrics.gold-interval=\"2 seconds\"",
              "lake.metrics.pushgateway=\"" + gateway.url() + "\"",
              "lake.spark.conf.\"spark.ui.enabled\"=true",
              "lake.spark.conf.\"spark.ui.port\"=" + ui,
              "lake.spark.conf.\"spark.driver.host\"=127.0.0.1",
              "lake.spark.conf.\"spark.metrics.namespace\"=latelake",
              "lake.spark.conf.\"spark.metrics.conf.*.sink.prometheusServlet.class\"="
                  + "\"org.apache.spark.metrics.sink.PrometheusServlet\"",
              "lake.spark.conf.\"spark.metrics.conf.*.sink.prometheusServlet.path\"="
                  + "\"/metrics/prometheus\"");
      String[] config = {"--config", conf.resolve("local.conf").toString()};
      Duration tight = Duration.ofMillis(1);
      Duration wide = Duration.ofSeconds(10);

      // Phase A: a watermark 1 ms behind the latest event time
      try (StreamProcess run =
          StreamProcess.run(StreamProcess.logFile("PrometheusIT-run-tight"), sets(tight), config)) {
        landAndWait(run, w, 0, slices.get(0), 1);
        // correct's first run (what a deployment does once): from now on it reads bronze's changes
        assertThat(
                correct(
                    "PrometheusIT-correct-first",
                    sets(tight),
                    "--config",
                    config[1],
                    "--since",
                    "2000-01-01T00:00:00Z"))
            .isZero();
        // the second slice: silver drops 3 of its 73 rows behind the watermark; the alert fires
        landAndWait(run, w, 1, slices.get(1), 2);
        assertThat(progress("silver_events", "sum(rows_dropped_by_watermark)", Instant.EPOCH))
            .isEqualTo(org.apache.spark.sql.RowFactory.create(3L));
        run.waitFor(
            DROP_ALERT + " to fire",
            BOUND,
            () -> {
              try {
                return prometheus.value(DROP_ALERT_FIRED).equals(Optional.of(1.0));
              } catch (Exception e) {
                return false;
              }
            });
        assertThat(prometheus.value(DROP_ALERT_FIRED)).contains(1.0);
        Instant lastSliceRead = Instant.now();

        // the stream's counters equal what monitoring.stream_progress recorded for this process
        for (String query : List.of("bronze_ooo_umts", "silver_events", "gold_" + METRIC)) {
          for (String figure : List.of("input_rows", "rows_dropped_by_watermark")) {
            long recorded =
                progress(query, "coalesce(sum(" + figure + "), 0)", Instant.EPOCH).getLong(0);
            waitForValue(
                run,
                prometheus,
                "latelake_stream_" + figure + "_total{query=\"" + query + "\"}",
                recorded);
            LOG.info(
                "Prometheus: latelake_stream_{}_total{query=\"{}\"} = {} = stream_progress",
                figure,
                query,
                recorded);
          }
        }
        assertThat(prometheus.value("latelake_stream_input_rows_total{query=\"bronze_ooo_umts\"}"))
            .contains(128.0);

        // the gold figures: closed windows touched since correct's first run, still to correct
        String toCorrect = "latelake_gold_closed_windows_to_correct{metric=\"" + METRIC + "\"}";
        com.typesafe.config.Config lake =
            ConfigLoader.load(Optional.of(conf.resolve("local.conf")), sets(tight));
        TableRegistry tables = TableRegistry.fromConfig(lake);
        MetricSpec metric =
            Metrics.fromConfig(lake).stream()
                .filter(m -> m.name().equals(METRIC))
                .findFirst()
                .orElseThrow();
        // gold is idle now: wait for figures read after it took the last slice
        String readAt = "latelake_gold_read_timestamp_seconds{metric=\"" + METRIC + "\"}";
        run.waitFor(
            readAt + " after the last slice",
            BOUND,
            () -> {
              try {
                return prometheus
                    .value(readAt)
                    .filter(t -> t > lastSliceRead.toEpochMilli() / 1000.0)
                    .isPresent();
              } catch (Exception e) {
                return false;
              }
            });
        double before = prometheus.value(toCorrect).orElseThrow();
        assertThat(before).as(toCorrect).isNotNaN();

        // correct's second run reads the changes, recomputes those windows and pushes its figures
        Instant beforeCorrect = Instant.now();
        assertThat(correct("PrometheusIT-correct", sets(tight), config)).isZero();
        long logged =
            spark
                .read()
                .format("delta")
                .load(root + "/monitoring/corrections_log")
                .filter(
                    org.apache
                        .spark
                        .sql
                        .functions
                        .col("corrected_at")
                        .geq(org.apache.spark.sql.functions.lit(Timestamp.from(beforeCorrect))))
                .count();
        assertThat(logged).isPositive();
        waitForValue(
            run,
            prometheus,
            "latelake_rows_restated{job=\"latelake-correct\", metric=\"" + METRIC + "\"}",
            logged);
        waitForValue(
            run,
            prometheus,
            "latelake_windows_recomputed{job=\"latelake-correct\", metric=\"" + METRIC + "\"}",
            before);
        // and the stream's figure goes to 0 once correct has run
        waitForValue(run, prometheus, toCorrect, 0.0);

        // gold rows by status: the status views' rule over the lake now
        Map<String, Long> counts =
            GoldStatus.counts(
                spark,
                tables,
                metric,
                io.latelake.core.config.SharedSettings.correctionHorizon(lake));
        assertThat(counts.get("restated")).isPositive();
        for (var e : counts.entrySet()) {
          waitForValue(
              run,
              prometheus,
              "latelake_gold_rows{job=\"latelake-streams\", metric=\""
                  + METRIC
                  + "\", status=\""
                  + e.getKey()
                  + "\"}",
              e.getValue());
        }
        LOG.info(
            "Prometheus: closed windows to correct before correct {} (correct recomputed the same),"
                + " rows restated {} (= corrections_log), gold rows by status {}",
            before,
            logged,
            counts);
        // no lateness profile yet: the latest closed window's completeness is unknown
        assertThat(
                prometheus.value(
                    "latelake_gold_latest_closed_completeness_ratio{metric=\"" + METRIC + "\"}"))
            .hasValueSatisfying(v -> assertThat(v).isNaN());
        assertThat(run.terminate()).isEqualTo(143);
      }

      // Phase B: the same checkpoints with a 10 s delay: nothing dropped, the alert clears
      Instant restart = Instant.now();
      try (StreamProcess run =
          StreamProcess.run(StreamProcess.logFile("PrometheusIT-run-wide"), sets(wide), config)) {
        for (int i = 2; i < 4; i++) {
          landAndWait(run, w, i, slices.get(i), i - 1);
        }
        assertThat(
                progress("silver_events", "coalesce(sum(rows_dropped_by_watermark), 0)", restart))
            .isEqualTo(org.apache.spark.sql.RowFactory.create(0L));
        run.waitFor(
            DROP_ALERT + " to clear",
            BOUND,
            () -> {
              try {
                return prometheus.value(DROP_ALERT).isEmpty();
              } catch (Exception e) {
                return false;
              }
            });
        assertThat(prometheus.value(DROP_ALERT)).isEmpty();
        // this process's counters: the rows it read (156 in bronze)
        waitForValue(
            run,
            prometheus,
            "latelake_stream_input_rows_total{query=\"bronze_ooo_umts\"}",
            progress("bronze_ooo_umts", "sum(input_rows)", restart).getLong(0));
        assertThat(progress("bronze_ooo_umts", "sum(input_rows)", restart).getLong(0))
            .isEqualTo(156L);
        // silver's watermark: the latest event time landed minus 10 s (in whole ms), and its lag
        // behind the latest enqueued time
        long maxEventMs = 0;
        long maxArrivalMs = 0;
        for (List<CapturedEvents.Event> s : slices) {
          for (CapturedEvents.Event e : s) {
            maxEventMs =
                Math.max(maxEventMs, Instant.parse(e.fields().get("event_time")).toEpochMilli());
            maxArrivalMs = Math.max(maxArrivalMs, e.arrival().toEpochMilli());
          }
        }
        double wm = (maxEventMs - wide.toMillis()) / 1000.0;
        waitForValue(
            run, prometheus, "latelake_stream_watermark_seconds{query=\"silver_events\"}", wm);
        waitForValue(
            run,
            prometheus,
            "latelake_stream_watermark_lag_seconds{query=\"silver_events\"}",
            maxArrivalMs / 1000.0 - wm);

        // audit: the closed windows against a recompute from bronze (correct repaired phase A)
        Instant beforeAudit = Instant.now();
        try (StreamProcess audit =
            StreamProcess.start(
                io.latelake.correction.AuditMain.class,
                StreamProcess.logFile("PrometheusIT-audit"),
                sets(wide),
                "--config",
                config[1],
                "--from",
                "2014-11-10",
                "--to",
                "2014-11-10")) {
          assertThat(audit.await(BOUND)).isZero();
        }
        // audit writes its differences only: no table when there are none
        long differences =
            !io.latelake.core.table.DeltaTables.exists(spark, root + "/monitoring/recompute_audit")
                ? 0
                : spark
                    .read()
                    .format("delta")
                    .load(root + "/monitoring/recompute_audit")
                    .filter(
                        org.apache
                            .spark
                            .sql
                            .functions
                            .col("audited_at")
                            .geq(org.apache.spark.sql.functions.lit(Timestamp.from(beforeAudit))))
                    .count();
        waitForValue(
            run,
            prometheus,
            "latelake_audit_differences{job=\"latelake-audit\", metric=\"" + METRIC + "\"}",
            differences);
        assertThat(differences).isZero();

        LOG.info(
            "Prometheus: silver watermark {} s, lag {} s, audit differences {}",
            wm,
            maxArrivalMs / 1000.0 - wm,
            differences);
        // every panel of the Grafana dashboard returns data from this Prometheus
        JsonNode dashboard =
            new ObjectMapper().readTree(conf.resolve("grafana/latelake-dashboard.json").toFile());
        List<String> panels = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
          for (JsonNode target : panel.path("targets")) {
            panels.add(target.path("expr").asText());
          }
        }
        assertThat(panels).hasSize(13);
        for (String expr : panels) {
          int[] series = {0};
          run.waitFor(
              "panel query " + expr + " to return data",
              BOUND,
              () -> {
                try {
                  series[0] = prometheus.seriesCount(expr);
                  return series[0] > 0;
                } catch (Exception e) {
                  return false;
                }
              });
          assertThat(series[0]).as(expr).isPositive();
        }
        assertThat(run.terminate()).isEqualTo(143);
      }
    }
  }
}

package io.latelake.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.latelake.bronze.replay.LandingWriter;
import io.latelake.core.testing.PrometheusServer;
import io.latelake.core.testing.Pushgateways;
import io.latelake.core.testing.SparkTestBase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code latelake run} with {@code lake.metrics.streams = true} and Spark's PrometheusServlet on
 * the driver's UI, scraped every second by a real Prometheus (Debian's {@code prometheus}, which
 * {@code .ci/run} installs; skipped without it): what Prometheus holds for each query's input rows
 * and rows dropped by the watermark equals the sums of its rows in {@code
 * monitoring.stream_progress}.
 */
class PrometheusIT extends SparkTestBase {
  private static final Duration BOUND = Duration.ofMinutes(5);

  @Test
  void prometheusScrapesTheStreamFiguresThatStreamProgressRecords(@TempDir Path tmp)
      throws Exception {
    assumeTrue(
        PrometheusServer.binary().isPresent(),
        "prometheus is not installed (.ci/run installs it; Debian: apt-get install prometheus)");
    Path root = tmp.resolve("lake");
    LandingWriter w = new LandingWriter(root.resolve("landing"));
    w.writeLines(
        "f-0000.jsonl",
        List.of(
            LakeFixture.event("a", "2024-05-14T12:20:00Z", "2024-05-14T12:20:01Z", "p", 1),
            LakeFixture.event("b", "2024-05-14T12:21:00Z", "2024-05-14T12:21:01Z", "p", 2)));
    int ui = Pushgateways.freePort();
    List<String> sets =
        RunCommandIT.sets(
            root,
            "lake.metrics.streams=true",
            "lake.spark.conf.\"spark.ui.enabled\"=true",
            "lake.spark.conf.\"spark.ui.port\"=" + ui,
            "lake.spark.conf.\"spark.driver.host\"=127.0.0.1",
            "lake.spark.conf.\"spark.metrics.namespace\"=latelake",
            "lake.spark.conf.\"spark.metrics.conf.*.sink.prometheusServlet.class\"="
                + "\"org.apache.spark.metrics.sink.PrometheusServlet\"",
            "lake.spark.conf.\"spark.metrics.conf.*.sink.prometheusServlet.path\"="
                + "\"/metrics/prometheus\"");
    Path runLog = StreamProcess.logFile("PrometheusIT-run");
    Path conf = StreamProcess.repoRoot().resolve("conf");
    try (Pushgateways gateway = Pushgateways.start(tmp.resolve("pushgateway"));
        PrometheusServer prometheus =
            PrometheusServer.start(
                tmp.resolve("prometheus"),
                // the example configuration: its relabelling and rules, scraped every second
                Files.readString(conf.resolve("prometheus/prometheus.yml"))
                    .replace("15s", "1s")
                    .replace("localhost:4040", "127.0.0.1:" + ui)
                    .replace("localhost:9091", gateway.url().substring("http://".length())),
                conf.resolve("prometheus"));
        StreamProcess run = StreamProcess.run(runLog, sets)) {
      // once silver's watermark is 12:11 (after a and b), c is behind it: dropped by silver
      run.waitFor(
          "silver's watermark after the first file",
          BOUND,
          () -> {
            try {
              return spark
                      .read()
                      .format("delta")
                      .load(root + "/monitoring/stream_progress")
                      .filter("query_name = 'silver_events' AND watermark IS NOT NULL")
                      .count()
                  > 0;
            } catch (Exception e) {
              return false;
            }
          });
      w.writeLines(
          "f-0001.jsonl",
          List.of(LakeFixture.event("c", "2024-05-14T12:02:00Z", "2024-05-14T12:22:00Z", "p", 4)));
      w.writeLines(
          "f-0002.jsonl",
          List.of(LakeFixture.event("d", "2024-05-14T12:40:00Z", "2024-05-14T12:40:01Z", "q", 3)));
      run.waitFor(
          "gold to hold the last file's window (c is dropped: 2 windows)",
          BOUND,
          () -> {
            try {
              return spark.read().format("delta").load(root + "/gold/page_5m").count() == 2;
            } catch (Exception e) {
              return false;
            }
          });
      for (String query : List.of("bronze_web", "silver_events", "gold_page_5m")) {
        for (String[] figure :
            List.of(
                new String[] {"input_rows", "input_rows"},
                new String[] {"rows_dropped_by_watermark", "rows_dropped_by_watermark"})) {
          String promql = "latelake_stream_" + figure[0] + "_total{query=\"" + query + "\"}";
          long[] recorded = {-1};
          Optional<Double>[] scraped = new Optional[] {Optional.empty()};
          // Both sides settle within seconds: progress rows are written in the background and
          // Prometheus scrapes every second. Wait until they agree (bounded), then assert.
          run.waitFor(
              promql + " to equal stream_progress",
              Duration.ofSeconds(60),
              () -> {
                try {
                  Row r =
                      spark
                          .read()
                          .format("delta")
                          .load(root + "/monitoring/stream_progress")
                          .filter("query_name = '" + query + "'")
                          .selectExpr("coalesce(sum(" + figure[1] + "), 0)")
                          .first();
                  recorded[0] = r.getLong(0);
                  scraped[0] = prometheus.value(promql);
                  return scraped[0].isPresent() && scraped[0].get() == recorded[0];
                } catch (Exception e) {
                  return false;
                }
              });
          assertThat(scraped[0]).as(promql).contains((double) recorded[0]);
        }
      }
      // the figures themselves
      assertThat(prometheus.value("latelake_stream_input_rows_total{query=\"bronze_web\"}"))
          .contains(4.0);
      assertThat(
              prometheus.value(
                  "latelake_stream_rows_dropped_by_watermark_total{query=\"silver_events\"}"))
          .contains(1.0);
      assertThat(prometheus.value("latelake_stream_watermark_seconds{query=\"silver_events\"}"))
          .contains((double) java.time.Instant.parse("2024-05-14T12:30:00Z").getEpochSecond());
      // silver's watermark (12:30) behind the latest enqueued time (d, 12:40:01)
      String lag = "latelake_stream_watermark_lag_seconds{query=\"silver_events\"}";
      run.waitFor(
          lag + " to be 601",
          Duration.ofSeconds(60),
          () -> {
            try {
              return prometheus.value(lag).equals(Optional.of(601.0));
            } catch (Exception e) {
              return false;
            }
          });
      assertThat(prometheus.value(lag)).contains(601.0);
      assertThat(prometheus.value("latelake_latest_enqueued_seconds"))
          .contains((double) java.time.Instant.parse("2024-05-14T12:40:01Z").getEpochSecond());

      // batch figures through the Pushgateway, as a scheduled correct and audit push them
      io.latelake.core.metrics.Pushgateway push =
          io.latelake.core.metrics.Pushgateway.fromConfig(
                  io.latelake.core.config.ConfigLoader.load(
                      Optional.empty(),
                      List.of("lake.metrics.pushgateway=\"" + gateway.url() + "\"")))
              .orElseThrow();
      java.time.Instant now = java.time.Instant.now();
      assertThat(
              push.push(
                  "latelake-correct",
                  0,
                  Duration.ofSeconds(3),
                  now,
                  new io.latelake.core.metrics.RunFigures()
                      .gauge("latelake_rows_restated", "Rows restated.", 1, "metric", "page_5m")))
          .isTrue();
      assertThat(
              push.push(
                  "latelake-audit",
                  0,
                  Duration.ofSeconds(2),
                  now,
                  new io.latelake.core.metrics.RunFigures()
                      .gauge("latelake_audit_differences", "Differences.", 0, "metric", "page_5m")))
          .isTrue();
      // every panel of the Grafana dashboard returns data from this Prometheus
      com.fasterxml.jackson.databind.JsonNode dashboard =
          new com.fasterxml.jackson.databind.ObjectMapper()
              .readTree(conf.resolve("grafana/latelake-dashboard.json").toFile());
      List<String> panels = new ArrayList<>();
      for (com.fasterxml.jackson.databind.JsonNode panel : dashboard.path("panels")) {
        for (com.fasterxml.jackson.databind.JsonNode target : panel.path("targets")) {
          panels.add(target.path("expr").asText());
        }
      }
      assertThat(panels).hasSize(10);
      for (String expr : panels) {
        int[] series = {0};
        run.waitFor(
            "panel query " + expr + " to return data",
            Duration.ofSeconds(60),
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

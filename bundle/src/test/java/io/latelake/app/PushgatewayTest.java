package io.latelake.app;

import static io.latelake.app.LakeFixture.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.latelake.core.cli.Launcher;
import io.latelake.core.spark.SparkSessions;
import io.latelake.core.testing.Pushgateways;
import io.latelake.core.testing.SparkTestBase;
import io.latelake.correction.AuditMain;
import io.latelake.correction.CascadeMain;
import io.latelake.correction.CorrectMain;
import io.latelake.correction.RebuildMain;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Batch commands push their run figures to a real Prometheus Pushgateway ({@code
 * lake.metrics.pushgateway}): {@code correct} its restated rows (equal to the rows it logged in
 * {@code monitoring.corrections_log}), {@code audit} its differences, a failed {@code cascade} its
 * exit code and failure time (POST, so a later success and its figures replace them), and a push to
 * a Pushgateway that is down changes no exit code. Each command stops the session when it ends, so
 * the lake is built first and read back in a new session.
 */
class PushgatewayTest extends SparkTestBase {
  @TempDir Path tmp;

  String[] args(LakeFixture f, String pushgateway, String... extra) {
    List<String> a = new ArrayList<>();
    for (String s : f.sets) {
      a.add("--set");
      a.add(s);
    }
    a.add("--set");
    a.add("lake.metrics.pushgateway=\"" + pushgateway + "\"");
    a.addAll(List.of(extra));
    return a.toArray(String[]::new);
  }

  @Test
  void batchCommandsPushTheirFiguresAndAFailedPushChangesNothing() throws Exception {
    assumeTrue(
        Pushgateways.binary().isPresent(),
        Pushgateways.BINARY
            + " is not installed (.ci/run installs it; Debian: apt-get install "
            + Pushgateways.BINARY
            + ")");
    LakeFixture f = new LakeFixture(tmp.resolve("lake"));
    try (FastPath fast = new FastPath(spark, f.config)) {
      f.land(event("a", "2024-05-14T12:20:00Z", "2024-05-14T12:20:01Z", "p", 1));
      fast.step();
      // behind the watermark (12:10): dropped by the stream, restated by correct
      f.land(event("late", "2024-05-14T12:02:00Z", "2024-05-14T12:21:00Z", "p", 4));
      f.land(event("b", "2024-05-14T12:40:00Z", "2024-05-14T12:40:01Z", "q", 2));
      fast.step();
    }
    Instant before = Instant.now();
    try (Pushgateways gateway = Pushgateways.start(tmp.resolve("pushgateway"))) {
      String url = gateway.url();
      assertThat(
              Launcher.execute(new CorrectMain(), args(f, url, "--since", "2000-01-01T00:00:00Z")))
          .isZero();
      assertThat(
              gateway.values(
                  "latelake_rows_restated", "job", "latelake-correct", "metric", "page_5m"))
          .containsExactly(1.0);
      assertThat(gateway.values("latelake_windows_deferred", "job", "latelake-correct"))
          .containsExactly(1.0);
      // closed (window end at or before the watermark, 12:30): p 12:00 and p 12:20
      assertThat(gateway.values("latelake_windows_recomputed", "job", "latelake-correct"))
          .containsExactly(2.0);
      // gold after correct: p 12:00 restated; p 12:20 and q 12:40 provisional (settled needs
      // window end + the 1-hour horizon at or before the stream's watermark, 12:30)
      for (var status :
          java.util.Map.of("provisional", 2.0, "settled", 0.0, "restated", 1.0).entrySet()) {
        assertThat(
                gateway.values(
                    "latelake_gold_rows",
                    "job",
                    "latelake-correct",
                    "metric",
                    "page_5m",
                    "status",
                    status.getKey()))
            .as(status.getKey())
            .containsExactly(status.getValue());
      }
      assertThat(gateway.values("latelake_job_exit_code", "job", "latelake-correct"))
          .containsExactly(0.0);
      assertThat(
              gateway
                  .values("latelake_job_last_success_timestamp_seconds", "job", "latelake-correct")
                  .get(0))
          .isBetween(before.getEpochSecond() - 1.0, Instant.now().getEpochSecond() + 1.0);

      // a cascade over a day never rebuilt fails (exit 2): its failure is pushed
      String[] day = {"--from", "2024-05-14", "--to", "2024-05-14"};
      assertThat(Launcher.execute(new CascadeMain(), args(f, url, day))).isEqualTo(2);
      assertThat(gateway.values("latelake_job_exit_code", "job", "latelake-cascade"))
          .containsExactly(2.0);
      assertThat(
              gateway.values(
                  "latelake_job_last_failure_timestamp_seconds", "job", "latelake-cascade"))
          .hasSize(1);
      assertThat(
              gateway.values(
                  "latelake_job_last_success_timestamp_seconds", "job", "latelake-cascade"))
          .isEmpty();
      // after a rebuild the cascade succeeds: its figures replace the failure
      assertThat(Launcher.execute(new RebuildMain(), args(f, url, day))).isZero();
      assertThat(
              gateway.values(
                  "latelake_rollup_rows_written", "job", "latelake-rebuild", "rollup", "daily"))
          .containsExactly(2.0);
      assertThat(Launcher.execute(new CascadeMain(), args(f, url, day))).isZero();
      assertThat(gateway.values("latelake_job_exit_code", "job", "latelake-cascade"))
          .containsExactly(0.0);
      assertThat(
              gateway.values(
                  "latelake_rollup_rows_written", "job", "latelake-cascade", "rollup", "weekly"))
          .containsExactly(2.0);
      assertThat(
              gateway.values(
                  "latelake_job_last_failure_timestamp_seconds", "job", "latelake-cascade"))
          .isEmpty();

      assertThat(Launcher.execute(new AuditMain(), args(f, url, day))).isZero();
      assertThat(gateway.values("latelake_audit_differences", "job", "latelake-audit"))
          .containsExactly(0.0);
      assertThat(gateway.values("latelake_job_duration_seconds", "job", "latelake-audit").get(0))
          .isGreaterThan(0.0);
    }

    // the Pushgateway is gone: the audit's exit code does not change
    String down = "http://127.0.0.1:" + Pushgateways.freePort();
    assertThat(
            Launcher.execute(
                new AuditMain(), args(f, down, "--from", "2024-05-14", "--to", "2024-05-14")))
        .isZero();

    // what correct pushed equals what it logged
    SparkSession s = SparkSessions.create("pushgateway-test", f.config);
    try {
      assertThat(
              s.read()
                  .format("delta")
                  .load(f.root + "/monitoring/corrections_log")
                  .filter("metric = 'page_5m'")
                  .count())
          .isEqualTo(1);
    } finally {
      s.stop();
    }
  }
}

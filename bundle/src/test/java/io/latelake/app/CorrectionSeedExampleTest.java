package io.latelake.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latelake.core.config.LakeConfigException;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.testing.SparkTestBase;
import io.latelake.correction.CorrectJob;
import io.latelake.correction.CorrectionConfig;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Encoders;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seed example continued (issue 3): the fast path drops the late /home 10:03 view; `correct`
 * restates /home 10:00–10:05 from bronze, changes nothing else, logs exactly one entry, and a
 * second run leaves every table as the first left it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CorrectionSeedExampleTest extends SparkTestBase {
  @TempDir
  static Path tmp;
  LakeFixture f;
  CorrectionConfig config;
  TableRegistry tables;

  static String seed(String id, String page, String hhmm, String enq, double dur) {
    return "{\"event_id\":\"" + id + "\",\"event_time\":\"2024-05-14T" + hhmm
        + ":00Z\",\"enqueued_time\":\"2024-05-14T" + enq + "Z\",\"page\":\"" + page
        + "\",\"value\":1,\"duration_s\":" + dur + "}";
  }

  static LakeFixture seedLake(Path root) {
    return new LakeFixture(root,
        "lake.event.fields=[{name=page, type=string}, {name=value, type=long}, "
            + "{name=duration_s, type=double}]",
        "lake.gold.metrics.page_5m.measures=[{name=views, function=count}, "
            + "{name=total_duration_s, function=sum, column=duration_s}]");
  }

  /** Streams the seed example: 5 on-time views, then 10:30, then the late /home 10:03. */
  static void streamSeed(org.apache.spark.sql.SparkSession spark, LakeFixture f) {
    FastPath fast = new FastPath(spark, f.config);
    f.land(seed("h1", "/home", "10:01", "10:01:02", 7), seed("p1", "/pricing", "10:02", "10:02:01", 4),
        seed("p2", "/pricing", "10:04", "10:04:03", 6), seed("h2", "/home", "10:06", "10:06:01", 5),
        seed("p3", "/pricing", "10:07", "10:07:02", 5));
    fast.step();
    f.land(seed("h3", "/home", "10:30", "10:30:01", 1));
    fast.step();
    f.land(seed("h4", "/home", "10:03", "10:31:00", 5));
    fast.step();
  }

  @BeforeAll
  void streamTheSeedExample() {
    f = seedLake(tmp.resolve("seed"));
    config = CorrectionConfig.fromConfig(f.config);
    tables = TableRegistry.fromConfig(f.config);
    streamSeed(spark, f);
  }

  List<String> gold() {
    return spark.read().format("delta").load(tables.gold("page_5m"))
        .selectExpr("concat_ws(' ', page, date_format(window_start, 'HH:mm'), "
            + "date_format(window_end, 'HH:mm'), views, total_duration_s, "
            + "corrected_at IS NOT NULL)")
        .as(Encoders.STRING()).collectAsList().stream().sorted().toList();
  }

  CorrectJob job(Optional<Instant> since) {
    return new CorrectJob(spark, config, tables, config.metrics(), since);
  }

  @Test
  void firstRunWithoutSinceIsRefusedAndCorrectThenRestatesOnlyTheLateWindow() {
    assertThatThrownBy(() -> job(Optional.empty()).run())
        .isInstanceOf(LakeConfigException.class)
        .hasMessage("Cannot run correct for metric 'page_5m': no previous run in "
            + "monitoring.correction_state, and correct never scans bronze from the beginning "
            + "silently; give --since <yyyy-MM-dd or instant> (bronze rows ingested since then "
            + "are checked)");
    assertThat(gold()).containsExactly(
        "/home 10:00 10:05 1 7.0 false",
        "/home 10:05 10:10 1 5.0 false",
        "/home 10:30 10:35 1 1.0 false",
        "/pricing 10:00 10:05 2 10.0 false",
        "/pricing 10:05 10:10 1 5.0 false");

    CorrectJob.Result first = job(Optional.of(Instant.parse("2000-01-01T00:00:00Z"))).run();

    assertThat(gold()).containsExactly(
        "/home 10:00 10:05 2 12.0 true",
        "/home 10:05 10:10 1 5.0 false",
        "/home 10:30 10:35 1 1.0 false",
        "/pricing 10:00 10:05 2 10.0 false",
        "/pricing 10:05 10:10 1 5.0 false");
    CorrectJob.MetricResult m = first.metrics().get(0);
    assertThat(m.watermark()).isEqualTo(Instant.parse("2024-05-14T10:20:00Z"));
    assertThat(m.touchedWindows()).isEqualTo(3);
    assertThat(m.closedWindows()).isEqualTo(2);
    assertThat(m.deferredWindows()).isEqualTo(1);
    assertThat(m.rowsChanged()).isEqualTo(1);
    assertThat(m.changes()).containsExactly(new CorrectJob.Change("page_5m",
        Instant.parse("2024-05-14T10:00:00Z"), Instant.parse("2024-05-14T10:05:00Z"),
        "{\"page\":\"/home\"}", "{\"views\":1,\"total_duration_s\":7.0}",
        "{\"views\":2,\"total_duration_s\":12.0}", "LATE_ARRIVAL"));
    assertThat(log()).containsExactly(first.runId()
        + " page_5m 10:00 {\"page\":\"/home\"} {\"views\":1,\"total_duration_s\":7.0} "
        + "{\"views\":2,\"total_duration_s\":12.0} LATE_ARRIVAL restate");
    long goldVersion = version(tables.gold("page_5m"));

    CorrectJob.Result second = job(Optional.empty()).run();

    assertThat(second.rowsChanged()).isZero();
    assertThat(second.metrics().get(0).deferredWindows()).isEqualTo(1);
    assertThat(version(tables.gold("page_5m"))).isEqualTo(goldVersion);
    assertThat(gold()).containsExactly(
        "/home 10:00 10:05 2 12.0 true",
        "/home 10:05 10:10 1 5.0 false",
        "/home 10:30 10:35 1 1.0 false",
        "/pricing 10:00 10:05 2 10.0 false",
        "/pricing 10:05 10:10 1 5.0 false");
    assertThat(log()).hasSize(1);
  }

  long version(String path) {
    return io.delta.tables.DeltaTable.forPath(spark, path).history(1).first().getLong(0);
  }

  List<String> log() {
    return spark.read().format("delta").load(tables.monitoring("corrections_log"))
        .selectExpr("concat_ws(' ', run_id, metric, date_format(window_start, 'HH:mm'), keys, "
            + "old_values, new_values, reason, policy)")
        .as(Encoders.STRING()).collectAsList();
  }
}

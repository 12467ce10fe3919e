package io.latelake.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latelake.core.ExitCode;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.job.JobContext;
import io.latelake.core.metric.GoldStatus;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.testing.SparkTestBase;
import io.latelake.core.time.DayRange;
import io.latelake.correction.audit.AsOfJob;
import io.latelake.correction.audit.AuditJob;
import io.latelake.correction.correct.CorrectJob;
import io.latelake.correction.correct.CorrectResult;
import io.latelake.correction.policy.ApplyCorrectionsJob;
import io.latelake.correction.rollup.CascadeJob;
import io.latelake.correction.rollup.RebuildJob;
import io.latelake.correction.shared.CorrectionConfig;
import io.latelake.correction.shared.RangeSpec;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Encoders;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seed example continued (issue 3), in one lake streamed once, with the same metric under the
 * three late policies (page_5m restate, page_5m_rc reconcile, page_5m_ig ignore). The fast path
 * drops the late /home 10:03 view; `correct` restates /home 10:00–10:05 from bronze and nothing
 * else, logs exactly one entry; a second run of correct, rebuild and cascade leaves every table as
 * the first left it; reconcile waits for apply-corrections; ignore only records the drift; audit
 * and asof explain the numbers. Steps run in order and build on each other.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CorrectionSeedExampleTest extends SparkTestBase {
  @TempDir static Path tmp;
  LakeFixture f;
  CorrectionConfig config;
  TableRegistry tables;

  static String seed(String id, String page, String hhmm, String enq, double dur) {
    return "{\"event_id\":\""
        + id
        + "\",\"event_time\":\"2024-05-14T"
        + hhmm
        + ":00Z\",\"enqueued_time\":\"2024-05-14T"
        + enq
        + "Z\",\"page\":\""
        + page
        + "\",\"value\":1,\"duration_s\":"
        + dur
        + "}";
  }

  static String pageViews(String policy) {
    return "{window=\"5 minutes\", group-by=[page], late-policy="
        + policy
        + ", measures=["
        + "{name=views, function=count}, "
        + "{name=total_duration_s, function=sum, column=duration_s}]}";
  }

  static LakeFixture seedLake(Path root, String... overrides) {
    List<String> all =
        new java.util.ArrayList<>(
            List.of(
                "lake.event.fields=[{name=page, type=string}, {name=value, type=long}, "
                    + "{name=duration_s, type=double}]",
                "lake.gold.metrics.page_5m.measures=[{name=views, function=count}, "
                    + "{name=total_duration_s, function=sum, column=duration_s}]",
                "lake.gold.metrics.page_5m_rc=" + pageViews("reconcile"),
                "lake.gold.metrics.page_5m_ig=" + pageViews("ignore")));
    all.addAll(List.of(overrides));
    return new LakeFixture(root, all.toArray(String[]::new));
  }

  /** Streams the seed example: 5 on-time views, then 10:30, then the late /home 10:03. */
  static void streamSeed(org.apache.spark.sql.SparkSession spark, LakeFixture f) {
    FastPath fast = new FastPath(spark, f.config);
    f.land(
        seed("h1", "/home", "10:01", "10:01:02", 7),
        seed("p1", "/pricing", "10:02", "10:02:01", 4),
        seed("p2", "/pricing", "10:04", "10:04:03", 6),
        seed("h2", "/home", "10:06", "10:06:01", 5),
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

  static final String[] METRICS = {"page_5m", "page_5m_rc", "page_5m_ig"};
  static final List<String> STREAMED =
      List.of(
          "/home 10:00 10:05 1 7.0 false",
          "/home 10:05 10:10 1 5.0 false",
          "/home 10:30 10:35 1 1.0 false",
          "/pricing 10:00 10:05 2 10.0 false",
          "/pricing 10:05 10:10 1 5.0 false");
  static final List<String> CORRECTED =
      List.of(
          "/home 10:00 10:05 2 12.0 true",
          "/home 10:05 10:10 1 5.0 false",
          "/home 10:30 10:35 1 1.0 false",
          "/pricing 10:00 10:05 2 10.0 false",
          "/pricing 10:05 10:10 1 5.0 false");
  static final DayRange DAY =
      new DayRange(LocalDate.parse("2024-05-14"), LocalDate.parse("2024-05-14"));
  long goldVersionBeforeCorrect;
  String firstRunId;

  List<String> gold(String metric) {
    return spark
        .read()
        .format("delta")
        .load(tables.gold(metric))
        .selectExpr(
            "concat_ws(' ', page, date_format(window_start, 'HH:mm'), "
                + "date_format(window_end, 'HH:mm'), views, total_duration_s, "
                + "corrected_at IS NOT NULL)")
        .as(Encoders.STRING())
        .collectAsList()
        .stream()
        .sorted()
        .toList();
  }

  CorrectJob job(Optional<Instant> since) {
    return new CorrectJob(
        JobContext.start(spark, tables), new CorrectJob.Options(config, config.metrics(), since));
  }

  long apply(List<String> runIds) {
    return new ApplyCorrectionsJob(
            JobContext.start(spark, tables),
            new ApplyCorrectionsJob.Options(config, config.metric("page_5m_rc"), runIds))
        .run()
        .rowsRestated();
  }

  long version(String path) {
    return io.delta.tables.DeltaTable.forPath(spark, path).history(1).first().getLong(0);
  }

  List<Long> versions() {
    List<String> paths = new java.util.ArrayList<>();
    for (String m : METRICS) {
      paths.add(tables.gold(m));
    }
    paths.addAll(
        List.of(
            tables.monitoring("corrections_log"),
            tables.monitoring("recompute_audit"),
            tables.monitoring("pending_page_5m_rc")));
    return paths.stream().map(this::version).toList();
  }

  List<String> log(String metric) {
    return spark
        .read()
        .format("delta")
        .load(tables.monitoring("corrections_log"))
        .filter(org.apache.spark.sql.functions.col("metric").equalTo(metric))
        .selectExpr(
            "concat_ws(' ', run_id, metric, date_format(window_start, 'HH:mm'), keys, "
                + "old_values, new_values, reason, policy)")
        .as(Encoders.STRING())
        .collectAsList();
  }

  List<String> audit(String job) {
    return spark
        .read()
        .format("delta")
        .load(tables.monitoring("recompute_audit"))
        .filter(org.apache.spark.sql.functions.col("job").equalTo(job))
        .selectExpr(
            "concat_ws(' ', metric, date_format(period_start, 'HH:mm'), keys, published, "
                + "recomputed, difference, beyond_tolerance)")
        .as(Encoders.STRING())
        .collectAsList()
        .stream()
        .sorted()
        .toList();
  }

  @Test
  @Order(1)
  void correctRefusesAFirstRunWithoutSinceThenRestatesOnlyTheLateWindow() {
    assertThatThrownBy(() -> job(Optional.empty()).run())
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Cannot run correct for metric 'page_5m': no previous run in "
                + "monitoring.correction_state, and correct never scans bronze from the beginning "
                + "silently; give --since <yyyy-MM-dd or instant> (bronze rows ingested since then "
                + "are checked)");
    for (String m : METRICS) {
      assertThat(gold(m)).as(m).isEqualTo(STREAMED);
    }
    goldVersionBeforeCorrect = version(tables.gold("page_5m"));

    CorrectResult first = job(Optional.of(Instant.parse("2000-01-01T00:00:00Z"))).run();
    firstRunId = first.runId();

    assertThat(gold("page_5m")).isEqualTo(CORRECTED);
    CorrectResult.MetricResult m = first.metrics().get(0);
    assertThat(m.metric()).isEqualTo("page_5m");
    assertThat(m.watermark()).isEqualTo(Instant.parse("2024-05-14T10:20:00Z"));
    assertThat(m.touchedWindows()).isEqualTo(3);
    assertThat(m.closedWindows()).isEqualTo(2);
    assertThat(m.deferredWindows()).isEqualTo(1);
    assertThat(m.rowsChanged()).isEqualTo(1);
    assertThat(m.changes())
        .containsExactly(
            new CorrectResult.Change(
                "page_5m",
                Instant.parse("2024-05-14T10:00:00Z"),
                Instant.parse("2024-05-14T10:05:00Z"),
                "{\"page\":\"/home\"}",
                "{\"views\":1,\"total_duration_s\":7.0}",
                "{\"views\":2,\"total_duration_s\":12.0}",
                "LATE_ARRIVAL"));
    assertThat(log("page_5m"))
        .containsExactly(
            first.runId()
                + " page_5m 10:00 {\"page\":\"/home\"} {\"views\":1,\"total_duration_s\":7.0} "
                + "{\"views\":2,\"total_duration_s\":12.0} LATE_ARRIVAL restate");
    // reconcile: staged, gold unchanged; ignore: gold unchanged, drift recorded.
    assertThat(gold("page_5m_rc")).isEqualTo(STREAMED);
    assertThat(
            spark
                .read()
                .format("delta")
                .load(tables.monitoring("pending_page_5m_rc"))
                .selectExpr(
                    "concat_ws(' ', page, date_format(window_start, 'HH:mm'), views, "
                        + "total_duration_s, reason, run_id, applied_at IS NULL)")
                .as(Encoders.STRING())
                .collectAsList())
        .containsExactly("/home 10:00 2 12.0 LATE_ARRIVAL " + first.runId() + " true");
    assertThat(gold("page_5m_ig")).isEqualTo(STREAMED);
    assertThat(audit("correct"))
        .containsExactly(
            "page_5m_ig 10:00 {\"page\":\"/home\"} "
                + "{\"views\":1,\"total_duration_s\":7.0} {\"views\":2,\"total_duration_s\":12.0} "
                + "5.0 true");
    assertThat(log("page_5m_rc")).isEmpty();
    assertThat(log("page_5m_ig")).isEmpty();
  }

  @Test
  @Order(2)
  void aSecondCorrectRunChangesNothing() {
    List<Long> before = versions();

    CorrectResult second = job(Optional.empty()).run();

    assertThat(second.rowsChanged()).isZero();
    assertThat(second.metrics().get(0).deferredWindows()).isEqualTo(1);
    assertThat(versions()).isEqualTo(before);
    assertThat(gold("page_5m")).isEqualTo(CORRECTED);
    assertThat(log("page_5m")).hasSize(1);
  }

  @Test
  @Order(3)
  void applyCorrectionsPublishesTheStagedReconcileCorrectionOnce() {
    assertThat(apply(List.of(firstRunId))).isEqualTo(1);
    assertThat(gold("page_5m_rc")).isEqualTo(CORRECTED);
    assertThat(log("page_5m_rc")).hasSize(1).allMatch(l -> l.endsWith("LATE_ARRIVAL reconcile"));

    assertThat(apply(List.of())).isZero();
    assertThat(log("page_5m_rc")).hasSize(1);
  }

  @Test
  @Order(4)
  void rebuildAndCascadeTwiceLeaveTheTablesAsOneRunDid() {
    RebuildJob.Result r1 =
        new RebuildJob(
                JobContext.start(spark, tables),
                new RangeSpec(config, List.of(config.metric("page_5m")), DAY))
            .run();
    assertThat(r1.metrics().get(0).changedDays()).containsExactly(DAY.from());
    CascadeJob.Result c1 =
        new CascadeJob(
                JobContext.start(spark, tables),
                new RangeSpec(config, List.of(config.metric("page_5m")), DAY))
            .run();
    assertThat(c1.metrics().get(0).changedPeriods()).containsExactly(LocalDate.parse("2024-05-13"));
    String daily = tables.gold("daily_page_5m");
    String weekly = tables.gold("weekly_page_5m");
    List<String> dailyRows =
        rows(daily, "concat_ws(' ', event_date, page, views, total_duration_s)");
    List<String> weeklyRows =
        rows(
            weekly,
            "concat_ws(' ', week_start, iso_year, iso_week, page, views, total_duration_s, days)");
    assertThat(dailyRows).containsExactly("2024-05-14 /home 4 18.0", "2024-05-14 /pricing 3 15.0");
    assertThat(weeklyRows)
        .containsExactly(
            "2024-05-13 2024 20 /home 4 18.0 1", "2024-05-13 2024 20 /pricing 3 15.0 1");
    long dv = version(daily);
    long wv = version(weekly);

    RebuildJob.Result r2 =
        new RebuildJob(
                JobContext.start(spark, tables),
                new RangeSpec(config, List.of(config.metric("page_5m")), DAY))
            .run();
    CascadeJob.Result c2 =
        new CascadeJob(
                JobContext.start(spark, tables),
                new RangeSpec(config, List.of(config.metric("page_5m")), DAY))
            .run();

    assertThat(r2.metrics().get(0).changedDays()).isEmpty();
    assertThat(c2.metrics().get(0).changedPeriods()).isEmpty();
    assertThat(version(daily)).isEqualTo(dv);
    assertThat(version(weekly)).isEqualTo(wv);
    assertThat(rows(daily, "concat_ws(' ', event_date, page, views, total_duration_s)"))
        .isEqualTo(dailyRows);
  }

  @Test
  @Order(5)
  void auditFindsNoDifferenceForRestatedMetricsAndTheDriftOfTheIgnoredOne() {
    AuditJob.Result ok =
        new AuditJob(
                JobContext.start(spark, tables),
                new RangeSpec(
                    config, List.of(config.metric("page_5m"), config.metric("page_5m_rc")), DAY))
            .run();
    assertThat(ok.differences()).isZero();
    assertThat(io.latelake.correction.AuditMain.exitCode(ok)).isEqualTo(ExitCode.OK);

    AuditJob.Result drift =
        new AuditJob(
                JobContext.start(spark, tables),
                new RangeSpec(config, List.of(config.metric("page_5m_ig")), DAY))
            .run();

    assertThat(drift.beyondTolerance()).isEqualTo(1);
    // the command's log line: per metric, not a Java record
    // Gold's watermark (the latest event time, 10:30, minus the 10-minute delay) closes the four
    // windows ending by 10:10; /home 10:30 is still open.
    assertThat(ok.metrics().get(0).watermark()).isEqualTo(Instant.parse("2024-05-14T10:20:00Z"));
    assertThat(ok.summary())
        .isEqualTo(
            "page_5m: 0 of 4 published closed windows differ from the recompute (0 beyond"
                + " tolerance), watermark 2024-05-14T10:20:00Z; page_5m_rc: 0 of 4 published closed"
                + " windows differ from the recompute (0 beyond tolerance), watermark "
                + ok.metrics().get(1).watermark());
    assertThat(drift.summary())
        .isEqualTo(
            "page_5m_ig: 1 of 4 published closed windows differ from the recompute (1 beyond"
                + " tolerance), watermark "
                + drift.metrics().get(0).watermark());
    assertThat(io.latelake.correction.AuditMain.exitCode(drift))
        .isEqualTo(ExitCode.AUDIT_DIFFERENCES);

    // a range gold holds no closed window of: said, not "0 of 0 differ"
    AuditJob.Result empty =
        new AuditJob(
                JobContext.start(spark, tables),
                new RangeSpec(
                    config,
                    List.of(config.metric("page_5m")),
                    new DayRange(LocalDate.parse("2024-05-10"), LocalDate.parse("2024-05-11"))))
            .run();
    assertThat(empty.summary())
        .isEqualTo(
            "page_5m: no published closed window in this range, nothing compared, watermark"
                + " 2024-05-14T10:20:00Z");
    assertThat(io.latelake.correction.AuditMain.exitCode(empty)).isEqualTo(ExitCode.OK);
    assertThat(audit("audit"))
        .containsExactly(
            "page_5m_ig 10:00 {\"page\":\"/home\"} "
                + "{\"views\":1,\"total_duration_s\":7.0} {\"views\":2,\"total_duration_s\":12.0} "
                + "5.0 true");
    assertThat(gold("page_5m_ig")).isEqualTo(STREAMED);
  }

  @Test
  @Order(6)
  void asofShowsTheRestatementAndStatusTellsReadersWhereRowsStand() {
    AsOfJob.Result r =
        new AsOfJob(
                JobContext.start(spark, tables),
                new AsOfJob.Options(
                    config,
                    config.metric("page_5m"),
                    Optional.empty(),
                    Optional.of(goldVersionBeforeCorrect),
                    10))
            .run();
    assertThat(r.changed()).isEqualTo(1);
    assertThat(r.rows()).hasSize(1);
    AsOfJob.KeyDiff row = r.rows().get(0);
    assertThat(
            List.of(
                row.windowStart(),
                row.keys(),
                row.before(),
                row.after(),
                row.delta(),
                row.statusBefore(),
                row.statusAfter()))
        .containsExactly(
            Instant.parse("2024-05-14T10:00:00Z"),
            "{\"page\":\"/home\"}",
            "{\"views\":1,\"total_duration_s\":7.0}",
            "{\"views\":2,\"total_duration_s\":12.0}",
            "{\"views\":1.0,\"total_duration_s\":5.0}",
            "provisional",
            "restated");
    assertThat(row.correctedAtBefore()).isNull();
    assertThat(row.correctedAtAfter()).isNotNull();
    // The gold stream's last watermark is 10:20: no window is an hour (the horizon) behind it,
    // however long ago 2024 is by the wall clock.
    assertThat(
            rows(
                GoldStatus.withStatus(spark, tables, config.metric("page_5m"), config.horizon()),
                "concat_ws(' ', page, date_format(window_start, 'HH:mm'), status)"))
        .containsExactly(
            "/home 10:00 restated",
            "/home 10:05 provisional",
            "/home 10:30 provisional",
            "/pricing 10:00 provisional",
            "/pricing 10:05 provisional");
  }

  List<String> rows(String path, String expr) {
    return rows(spark.read().format("delta").load(path), expr);
  }

  List<String> rows(org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> d, String expr) {
    return d.selectExpr(expr).as(Encoders.STRING()).collectAsList().stream().sorted().toList();
  }
}

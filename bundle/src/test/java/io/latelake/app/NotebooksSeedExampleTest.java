package io.latelake.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.analyst.AnalystSessions;
import io.latelake.analyst.Notebook;
import io.latelake.analyst.NotebookRunner;
import io.latelake.analyst.ResultTable;
import io.latelake.core.catalog.CatalogConfig;
import io.latelake.core.catalog.CatalogRegister;
import io.latelake.core.job.JobContext;
import io.latelake.core.metric.GoldStatus;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.time.DayRange;
import io.latelake.correction.correct.CorrectJob;
import io.latelake.correction.shared.CorrectionConfig;
import io.latelake.profiler.ProfileJob;
import io.latelake.profiler.ProfilerConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The analyst layer on the seed example (CorrectionSeedExampleTest) with a few bad records added:
 * the catalog registered while the stream runs (a registered table shows the stream's later
 * writes), the status views against the Java GoldStatus, and every notebook in notebooks/ run
 * against the catalog with exact cells. A real Hive metastore on Derby in the temp lake.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NotebooksSeedExampleTest {
  @TempDir static Path tmp;
  SparkSession spark;
  LakeFixture f;
  TableRegistry tables;
  CatalogConfig catalog;
  String runId;

  static final List<String> BAD =
      List.of(
          "this is not json",
          "{\"event_time\":\"2024-05-14T10:02:00Z\",\"enqueued_time\":\"2024-05-14T10:02:01Z\","
              + "\"page\":\"/home\",\"value\":1,\"duration_s\":1}",
          "{\"event_id\":\"x2\",\"enqueued_time\":\"2024-05-14T10:02:01Z\",\"page\":\"/home\","
              + "\"value\":1,\"duration_s\":1}",
          "{\"event_id\":\"x3\",\"event_time\":\"yesterday\",\"enqueued_time\":"
              + "\"2024-05-14T10:02:01Z\",\"page\":\"/home\",\"value\":1,\"duration_s\":1}",
          "{\"event_id\":\"x4\",\"event_time\":\"2024-05-14T11:00:00Z\",\"enqueued_time\":"
              + "\"2024-05-14T10:02:01Z\",\"page\":\"/home\",\"value\":1,\"duration_s\":1}",
          CorrectionSeedExampleTest.seed("h1", "/home", "10:01", "10:01:02", 7));

  @BeforeAll
  void start() {
    // Horizon = the watermark delay: the windows ending by 10:10 settle once the gold
    // watermark reaches 10:20 (max event time 10:30 - 10 minutes); 10:30-10:35 stays provisional.
    f =
        CorrectionSeedExampleTest.seedLake(
            tmp.resolve("seed"), "lake.correction.horizon=\"10 minutes\"");
    System.setProperty("spark.master", "local[2]");
    System.setProperty("spark.ui.enabled", "false");
    spark = AnalystSessions.create(getClass().getSimpleName(), f.config);
    spark.sparkContext().setLogLevel("WARN");
    tables = TableRegistry.fromConfig(f.config);
    catalog = CatalogConfig.fromConfig(f.config);
  }

  @AfterAll
  void stop() {
    spark.stop();
    SparkSession.clearActiveSession();
    SparkSession.clearDefaultSession();
  }

  List<String> rows(String sql) {
    return spark.sql(sql).as(Encoders.STRING()).collectAsList().stream().sorted().toList();
  }

  @Test
  @Order(1)
  void aTableRegisteredWhileTheStreamRunsShowsItsLaterWrites() {
    FastPath fast = new FastPath(spark, f.config);
    f.land(BAD.toArray(String[]::new));
    f.land(
        CorrectionSeedExampleTest.seed("h1", "/home", "10:01", "10:01:02", 7),
        CorrectionSeedExampleTest.seed("p1", "/pricing", "10:02", "10:02:01", 4),
        CorrectionSeedExampleTest.seed("p2", "/pricing", "10:04", "10:04:03", 6),
        CorrectionSeedExampleTest.seed("h2", "/home", "10:06", "10:06:01", 5),
        CorrectionSeedExampleTest.seed("p3", "/pricing", "10:07", "10:07:02", 5));
    fast.step();

    CatalogRegister.Result first = new CatalogRegister(spark, catalog).run();

    assertThat(first.names())
        .containsExactly(
            "latelake.bronze_events",
            "latelake.silver_events",
            "latelake_gold.page_5m",
            "latelake_gold.page_5m_ig",
            "latelake_gold.page_5m_ig_status",
            "latelake_gold.page_5m_rc",
            "latelake_gold.page_5m_rc_status",
            "latelake_gold.page_5m_status",
            "latelake_monitoring.stream_progress");
    assertThat(rows("SELECT CAST(count(*) AS STRING) FROM latelake_gold.page_5m"))
        .containsExactly("4");

    f.land(CorrectionSeedExampleTest.seed("h3", "/home", "10:30", "10:30:01", 1));
    fast.step();
    f.land(CorrectionSeedExampleTest.seed("h4", "/home", "10:03", "10:31:00", 5));
    fast.step();

    assertThat(
            rows(
                "SELECT concat_ws(' ', page, date_format(window_start, 'HH:mm'), views, "
                    + "status) FROM latelake_gold.page_5m_status"))
        .containsExactly(
            "/home 10:00 1 settled",
            "/home 10:05 1 settled",
            "/home 10:30 1 provisional",
            "/pricing 10:00 2 settled",
            "/pricing 10:05 1 settled");
  }

  @Test
  @Order(2)
  void afterCorrectAndProfileTheViewsMatchGoldStatusAndASecondRegisterChangesNothing() {
    CorrectionConfig config = CorrectionConfig.fromConfig(f.config);
    runId =
        new CorrectJob(
                JobContext.start(spark, tables),
                new CorrectJob.Options(
                    config, config.metrics(), Optional.of(Instant.parse("2000-01-01T00:00:00Z"))))
            .run()
            .runId();
    LocalDate day = LocalDate.parse("2024-05-14");
    new ProfileJob(
            io.latelake.core.job.JobContext.start(spark, tables, Clock.systemUTC()),
            new io.latelake.profiler.ProfilerJob.Options(
                ProfilerConfig.fromConfig(f.config), new DayRange(day, day)))
        .run();

    CatalogRegister.Result second = new CatalogRegister(spark, catalog).run();
    assertThat(second.viewsCreated()).as("views now read the new monitoring tables").isEqualTo(3);
    CatalogRegister.Result third = new CatalogRegister(spark, catalog).run();
    assertThat(third.tablesCreated()).isZero();
    assertThat(third.commentsSet()).isZero();
    assertThat(third.viewsCreated()).isZero();
    assertThat(third.viewsUnchanged()).isEqualTo(3);
    assertThat(third.names()).isEqualTo(second.names());

    for (String m : List.of("page_5m", "page_5m_rc", "page_5m_ig")) {
      List<String> java =
          GoldStatus.withStatus(spark, tables, config.metric(m), config.horizon())
              .selectExpr("concat_ws(' ', page, date_format(window_start, 'HH:mm'), status)")
              .as(Encoders.STRING())
              .collectAsList()
              .stream()
              .sorted()
              .toList();
      assertThat(
              rows(
                  "SELECT concat_ws(' ', page, date_format(window_start, 'HH:mm'), status) "
                      + "FROM latelake_gold."
                      + m
                      + "_status"))
          .as(m)
          .isEqualTo(java);
    }
    assertThat(
            rows(
                "SELECT concat_ws(' ', page, date_format(window_start, 'HH:mm'), status, "
                    + "completeness, coalesce(last_change, '-')) FROM latelake_gold.page_5m_status"))
        .containsExactly(
            "/home 10:00 restated 1.0 {\"views\":1,\"total_duration_s\":7.0} → "
                + "{\"views\":2,\"total_duration_s\":12.0}",
            "/home 10:05 settled 1.0 -",
            "/home 10:30 provisional 1.0 -",
            "/pricing 10:00 settled 1.0 -",
            "/pricing 10:05 settled 1.0 -");
  }

  NotebookRunner.Result notebook(String name, Map<String, String> params) throws IOException {
    Path file = Path.of("..", "notebooks", name + ".sql");
    NotebookRunner.Result r =
        new NotebookRunner(spark, 100).run(Notebook.parse(name, Files.readString(file)), params);
    Files.writeString(tmp.resolve(name + ".html"), NotebookRunner.html(r));
    assertThat(r.cells().stream().flatMap(c -> c.error().stream()).toList()).as(name).isEmpty();
    return r;
  }

  /**
   * @return the named columns of a result, one line per row, in the result's order
   */
  static List<String> cols(ResultTable t, String... names) {
    List<String> out = new ArrayList<>();
    for (List<String> row : t.rows()) {
      List<String> v = new ArrayList<>();
      for (String n : names) {
        String s = row.get(t.columns().indexOf(n));
        v.add(s == null ? "NULL" : s);
      }
      out.add(String.join(" ", v));
    }
    return out;
  }

  @Test
  @Order(3)
  void goldOverviewShowsTheRestatedRowAndTheSettledOnes() throws IOException {
    NotebookRunner.Result r = notebook("01_gold_overview", Map.of("metric", "page_5m"));

    List<ResultTable> t = r.tables();
    assertThat(t).hasSize(3);
    // per status: gold rows (window x page), distinct windows, first start, last end, completeness
    assertThat(t.get(0).lines())
        .containsExactly(
            "provisional 1 1 2024-05-14 10:30:00 2024-05-14 10:35:00 1.0",
            "restated 1 1 2024-05-14 10:00:00 2024-05-14 10:05:00 1.0",
            "settled 3 2 2024-05-14 10:00:00 2024-05-14 10:10:00 1.0");
    assertThat(cols(t.get(1), "page", "window_start", "views", "total_duration_s", "status"))
        .startsWith("/home 2024-05-14 10:30:00 1 1.0 provisional")
        .containsExactlyInAnyOrder(
            "/home 2024-05-14 10:30:00 1 1.0 provisional",
            "/pricing 2024-05-14 10:05:00 1 5.0 settled",
            "/home 2024-05-14 10:05:00 1 5.0 settled",
            "/home 2024-05-14 10:00:00 2 12.0 restated",
            "/pricing 2024-05-14 10:00:00 2 10.0 settled");
    assertThat(
            cols(
                t.get(2),
                "page",
                "window_start",
                "views",
                "total_duration_s",
                "status",
                "last_change",
                "last_change_reason"))
        .containsExactly(
            "/home 2024-05-14 10:00:00 2 12.0 "
                + "restated {\"views\":1,\"total_duration_s\":7.0} → "
                + "{\"views\":2,\"total_duration_s\":12.0} LATE_ARRIVAL");
    assertThat(Files.readString(tmp.resolve("01_gold_overview.html")))
        .contains("<h1>Gold overview</h1>", "<td>restated</td>", "cell 4: 3 rows");
  }

  @Test
  @Order(4)
  void whatChangedListsExactlyTheOneRestatement() throws IOException {
    NotebookRunner.Result r =
        notebook("02_what_changed", Map.of("metric", "page_5m", "since", "2000-01-01"));

    List<ResultTable> t = r.tables();
    assertThat(
            cols(
                t.get(0),
                "window_start",
                "window_end",
                "keys",
                "old_values",
                "new_values",
                "reason",
                "policy",
                "run_id"))
        .containsExactly(
            "2024-05-14 10:00:00 2024-05-14 10:05:00 "
                + "{\"page\":\"/home\"} {\"views\":1,\"total_duration_s\":7.0} "
                + "{\"views\":2,\"total_duration_s\":12.0} LATE_ARRIVAL restate "
                + runId);
    assertThat(cols(t.get(1), "keys", "measure", "old_value", "new_value", "change"))
        .containsExactly(
            "{\"page\":\"/home\"} total_duration_s 7.0 12.0 5.0",
            "{\"page\":\"/home\"} views 1.0 2.0 1.0");
    assertThat(cols(t.get(2), "run_id", "metric", "reason", "policy", "rows_restated"))
        .containsExactly(runId + " page_5m LATE_ARRIVAL restate 1");
    assertThat(
            notebook("02_what_changed", Map.of("metric", "page_5m", "until", "2000-01-01"))
                .tables()
                .get(0)
                .rows())
        .isEmpty();
  }

  @Test
  @Order(5)
  void latenessShowsTheProfileAndTheDrops() throws IOException {
    NotebookRunner.Result r = notebook("03_lateness", Map.of());

    List<ResultTable> t = r.tables();
    // n: the profiler measures first arrivals of bronze rows with both times, valid or
    // FUTURE_EVENT_TIME: the 7 distinct valid events (the second copy of h1 is a redelivery,
    // counted apart) and x4; max: h4, 10:31 - 10:03; negative: x4.
    assertThat(cols(t.get(0), "source", "arrival_day", "n", "max_s", "negative_count"))
        .containsExactly("web 2024-05-14 8 1680.0 1");
    // over all days, from the merged sketches: one day of 8 events, so its own percentiles
    assertThat(cols(t.get(1), "source", "n", "sketched_n", "p50_s", "p95_s", "p99_s"))
        .containsExactly(cols(t.get(0), "source", "n", "n", "p50_s", "p95_s", "p99_s").get(0))
        .allMatch(line -> line.startsWith("web 8 8 "));
    // per hour of arrival: every copy arrived between 10:01 and 10:31, one hour holding the
    // day's figures (its beyond-watermark count is the day's)
    assertThat(
            cols(
                t.get(2),
                "source",
                "arrival_hour",
                "n",
                "max_s",
                "beyond_watermark_count",
                "redelivery_count"))
        .containsExactly(
            "web 2024-05-14 10:00 8 1680.0 "
                + cols(t.get(0), "beyond_watermark_count").get(0)
                + " 1");
    // the replay of silver's configured delay predicts the row the stream dropped (h4, 10:03
    // /home), which leaves one gold row to correct in each of the three metrics
    assertThat(
            cols(
                t.get(4),
                "query_name",
                "delay_s",
                "configured",
                "dropped_count",
                "gold_rows_to_correct"))
        .contains("silver_events 600.0 true 1 3");
    assertThat(cols(t.get(6), "query_name", "rows_dropped_by_watermark"))
        .containsExactly("silver_events 1");
  }

  @Test
  @Order(6)
  void dataQualityCountsEveryErrorReason() throws IOException {
    NotebookRunner.Result r = notebook("04_data_quality", Map.of());

    List<ResultTable> t = r.tables();
    assertThat(t.get(0).lines())
        .containsExactly(
            "web FUTURE_EVENT_TIME 1",
            "web INVALID_EVENT_TIME 1",
            "web MALFORMED 1",
            "web MISSING_EVENT_ID 1",
            "web MISSING_EVENT_TIME 1",
            "web VALID 8");
    assertThat(t.get(1).rows()).hasSize(5);
    assertThat(t.get(2).lines()).containsExactly("web 1 1 -3479.0");
    assertThat(t.get(3).lines()).containsExactly("8 7 1 6 2");
  }
}

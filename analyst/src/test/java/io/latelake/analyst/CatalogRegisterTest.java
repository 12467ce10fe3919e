package io.latelake.analyst;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import io.latelake.core.ExitCode;
import io.latelake.core.catalog.CatalogConfig;
import io.latelake.core.catalog.CatalogRegister;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.table.TableRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
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
 * {@code catalog register} on a small lake with a real Hive metastore (embedded Derby in the temp
 * lake): tables by name, the status view's rows, idempotency, and live reads after new writes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CatalogRegisterTest {
  @TempDir static Path tmp;
  SparkSession spark;
  Config config;
  TableRegistry tables;
  CatalogConfig catalog;

  @BeforeAll
  void buildLake() {
    config = AnalystLake.config(tmp.resolve("lake"));
    spark = AnalystLake.session(config);
    tables = TableRegistry.fromConfig(config);
    catalog = CatalogConfig.fromConfig(config);
    AnalystLake.write(spark, tables);
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

  List<String> describe(String table, String where, String expr) {
    return spark
        .sql("DESCRIBE TABLE " + table)
        .where(where)
        .selectExpr(expr)
        .as(Encoders.STRING())
        .collectAsList()
        .stream()
        .sorted()
        .toList();
  }

  @Test
  @Order(1)
  void registersEveryTableAndOneStatusViewPerMetric() {
    CatalogRegister.Result r = new CatalogRegister(spark, catalog).run();

    assertThat(r.names())
        .containsExactly(
            "latelake_gold.page_5m",
            "latelake_gold.page_5m_status",
            "latelake_monitoring.corrections_log",
            "latelake_monitoring.lateness_cdf",
            "latelake_monitoring.stream_progress");
    assertThat(r.tablesCreated()).isEqualTo(4);
    assertThat(r.tablesUnchanged()).isZero();
    assertThat(r.viewsCreated()).isEqualTo(1);
    // the metastore lives in the temp lake
    assertThat(Files.isDirectory(tmp.resolve("lake/metastore_db"))).isTrue();
    assertThat(rows("SELECT concat_ws(' ', page, views) FROM latelake_gold.page_5m"))
        .containsExactly("/home 1", "/home 2", "/pricing 2", "1");
    assertThat(
            rows(
                "SELECT concat_ws(' | ', date_format(window_start, 'yyyy-MM-dd HH:mm'), "
                    + "coalesce(page, 'NULL'), status, coalesce(last_change, 'NULL'), "
                    + "coalesce(date_format(last_changed_at, 'HH:mm'), 'NULL'), "
                    + "coalesce(last_change_reason, 'NULL'), date_format(last_watermark, 'HH:mm'), closed) "
                    + "FROM latelake_gold.page_5m_status"))
        .containsExactly(
            "2024-05-14 10:00 | /home | restated | {\"views\":1,\"total_duration_s\":7.0} → "
                + "{\"views\":2,\"total_duration_s\":12.0} | 11:00 | LATE_ARRIVAL | 11:05 | true",
            "2024-05-14 10:00 | /pricing | settled | NULL | NULL | NULL | 11:05 | true",
            "2024-05-14 10:05 | NULL | provisional | NULL | NULL | NULL | 11:05 | true",
            "2100-01-01 00:00 | /home | provisional | NULL | NULL | NULL | 11:05 | false");
  }

  @Test
  @Order(2)
  void theViewsStatusIsTheJavaGoldStatusOnAReplayedOldDataset() {
    io.latelake.core.metric.MetricSpec metric = catalog.metrics().get(0);
    List<String> java =
        io.latelake.core.metric.GoldStatus.withStatus(spark, tables, metric, catalog.horizon())
            .selectExpr("concat_ws(' ', date_format(window_end, 'yyyy-MM-dd HH:mm'), status)")
            .as(Encoders.STRING())
            .collectAsList()
            .stream()
            .sorted()
            .toList();

    assertThat(java)
        .containsExactly(
            "2024-05-14 10:05 restated",
            "2024-05-14 10:05 settled",
            "2024-05-14 10:10 provisional",
            "2100-01-01 00:05 provisional");
    assertThat(
            rows(
                "SELECT concat_ws(' ', date_format(window_end, 'yyyy-MM-dd HH:mm'), status) "
                    + "FROM latelake_gold.page_5m_status"))
        .isEqualTo(java);
  }

  @Test
  @Order(2)
  void completenessIsTheProfilersWindowEstimateOfTheSlowestSource() {
    long now = Instant.now().getEpochSecond();
    List<Row> rows =
        spark
            .sql(
                "SELECT unix_seconds(window_end), completeness FROM "
                    + "latelake_gold.page_5m_status")
            .collectAsList();
    assertThat(rows).hasSize(4);
    for (Row row : rows) {
      assertThat(row.getDouble(1))
          .as("window ending %s", row.get(0))
          .isCloseTo(AnalystLake.webCompleteness(row.getLong(0), now), within(1e-6));
    }
  }

  @Test
  @Order(3)
  void tablesAndViewsCarryComments() {
    assertThat(
            describe(
                "latelake_gold.page_5m",
                "col_name IN ('window_start', 'corrected_at')",
                "concat_ws(' = ', col_name, comment)"))
        .containsExactly(
            "corrected_at = When a correction last changed the row (UTC); null if " + "never.",
            "window_start = Window start, inclusive (UTC).");
    assertThat(
            describe(
                "latelake_gold.page_5m_status",
                "col_name = 'status'",
                "concat_ws(' = ', col_name, comment)"))
        .containsExactly(
            "status = provisional until window_end + lake.correction.horizon is "
                + "at or before last_watermark, then settled; restated once a correction changed the "
                + "row.");
  }

  @Test
  @Order(4)
  void registeringTwiceChangesNothing() {
    List<String> paths =
        List.of(
            tables.gold("page_5m"),
            tables.streamProgress(),
            tables.monitoring("corrections_log"),
            tables.monitoring("lateness_cdf"));
    List<Long> versions = paths.stream().map(p -> AnalystLake.version(spark, p)).toList();
    List<String> viewText =
        describe("EXTENDED latelake_gold.page_5m_status", "col_name = 'View Text'", "data_type");

    CatalogRegister.Result r = new CatalogRegister(spark, catalog).run();

    assertThat(r.tablesCreated()).isZero();
    assertThat(r.tablesUnchanged()).isEqualTo(4);
    assertThat(r.commentsSet()).isZero();
    assertThat(r.viewsCreated()).isZero();
    assertThat(r.viewsUnchanged()).isEqualTo(1);
    assertThat(paths.stream().map(p -> AnalystLake.version(spark, p)).toList()).isEqualTo(versions);
    assertThat(
            describe(
                "EXTENDED latelake_gold.page_5m_status", "col_name = 'View Text'", "data_type"))
        .isEqualTo(viewText);
    assertThat(
            spark
                .sql("SHOW TABLES IN latelake_gold")
                .selectExpr("tableName")
                .as(Encoders.STRING())
                .collectAsList())
        .containsExactlyInAnyOrder("page_5m", "page_5m_status");
  }

  @Test
  @Order(5)
  void rowsWrittenAfterRegistrationAreSeenThroughTheNamesAndTheView() {
    AnalystLake.save(
        spark,
        tables.gold("page_5m"),
        "SELECT TIMESTAMP'2024-05-14 10:30:00' AS "
            + "window_start, TIMESTAMP'2024-05-14 10:35:00' AS window_end, '/docs' AS page, 4L AS "
            + "views, 8.0D AS total_duration_s, TIMESTAMP'2024-05-14 10:31:00' AS updated_at, "
            + "TIMESTAMP'2024-05-14 12:00:00' AS corrected_at");
    AnalystLake.save(
        spark,
        tables.monitoring("corrections_log"),
        "SELECT 'r2' AS run_id, "
            + "'page_5m' AS metric, TIMESTAMP'2024-05-14 10:30:00' AS window_start, "
            + "TIMESTAMP'2024-05-14 10:35:00' AS window_end, '{\"page\":\"/docs\"}' AS keys, "
            + "'{\"views\":3,\"total_duration_s\":6.0}' AS old_values, "
            + "'{\"views\":4,\"total_duration_s\":8.0}' AS new_values, 'LATE_ARRIVAL' AS reason, "
            + "'restate' AS policy, TIMESTAMP'2024-05-14 12:00:00' AS corrected_at");

    assertThat(
            rows(
                "SELECT concat_ws(' ', page, status, last_change) FROM "
                    + "latelake_gold.page_5m_status WHERE page = '/docs'"))
        .containsExactly(
            "/docs restated {\"views\":3,\"total_duration_s\":6.0} → "
                + "{\"views\":4,\"total_duration_s\":8.0}");
    assertThat(rows("SELECT CAST(count(*) AS STRING) FROM latelake_gold.page_5m"))
        .containsExactly("5");
  }

  @Test
  @Order(6)
  void aNameRegisteredAtAnotherLocationAndADisabledCatalogAreRefused() {
    Config other =
        config.withValue(
            "lake.root", ConfigValueFactory.fromAnyRef(tmp.resolve("other").toString()));
    AnalystLake.save(
        spark,
        TableRegistry.fromConfig(other).gold("page_5m"),
        "SELECT * FROM latelake_gold.page_5m");
    assertThatThrownBy(() -> new CatalogRegister(spark, CatalogConfig.fromConfig(other)).run())
        .isInstanceOfSatisfying(
            io.latelake.core.catalog.CatalogException.class,
            e -> assertThat(e.exitCode()).isEqualTo(ExitCode.USAGE))
        .hasMessage(
            "Cannot register latelake_gold.page_5m at 'file:"
                + tmp.resolve("other")
                + "/gold/page_5m': the name is registered at 'file:"
                + tmp.resolve("lake")
                + "/gold/page_5m' (another lake.root?)");
    assertThatThrownBy(
            () ->
                new CatalogRegister(
                        spark,
                        CatalogConfig.fromConfig(
                            config.withValue(
                                "lake.catalog.enabled", ConfigValueFactory.fromAnyRef(false))))
                    .run())
        .hasMessage("Cannot register the catalog: lake.catalog.enabled is false");
    assertThatThrownBy(
            () ->
                CatalogConfig.fromConfig(
                    config.withValue(
                        "lake.catalog.databases.gold",
                        ConfigValueFactory.fromAnyRef("gold; DROP"))))
        .isInstanceOf(LakeConfigException.class)
        .hasMessageContaining("lake.catalog.databases.gold");
  }

  @Test
  @Order(7)
  void theSourcesViewShowsEachListedSourceItsIdlenessAndTheRowsSilverDroppedOfIt() {
    Config c =
        config
            .withValue(
                "lake.root", ConfigValueFactory.fromAnyRef(tmp.resolve("sources").toString()))
            .withValue("lake.sources", ConfigValueFactory.fromIterable(List.of("a", "b", "c")))
            .withValue("lake.sources-idle-after", ConfigValueFactory.fromAnyRef("20 minutes"))
            .withValue("lake.catalog.databases.bronze", ConfigValueFactory.fromAnyRef("src"))
            .withValue("lake.catalog.databases.gold", ConfigValueFactory.fromAnyRef("src_gold"))
            .withValue(
                "lake.catalog.databases.monitoring", ConfigValueFactory.fromAnyRef("src_mon"));
    TableRegistry t = TableRegistry.fromConfig(c);
    // a last arrived 10:40:01, b 10:05:01 (quiet 35 minutes), c never
    AnalystLake.save(
        spark,
        t.bronzeEvents(),
        "SELECT * FROM VALUES "
            + "('a', TIMESTAMP'2024-05-14 10:40:01', TIMESTAMP'2024-05-14 10:40:05', NULL), "
            + "('b', TIMESTAMP'2024-05-14 10:05:01', TIMESTAMP'2024-05-14 10:05:05', NULL), "
            + "('b', TIMESTAMP'2024-05-14 10:50:00', TIMESTAMP'2024-05-14 10:50:05', 'BAD_JSON') "
            + "AS t(source, enqueued_time, ingested_at, error)");
    // silver: b lost 2 and 1 rows, a 1, unlisted sources 1 (in no column); one micro-batch's 4
    // drops were not split; gold's 7 rows are not silver's
    AnalystLake.save(
        spark,
        t.streamProgress(),
        "SELECT * FROM VALUES "
            + "('silver_events', 0L, 2L, map('a', 0L, 'b', 2L)), "
            + "('silver_events', 1L, 3L, map('a', 1L, 'b', 1L, '(unlisted)', 1L)), "
            + "('silver_events', 2L, 4L, CAST(NULL AS MAP<STRING, BIGINT>)), "
            + "('silver_events', 3L, 0L, CAST(NULL AS MAP<STRING, BIGINT>)), "
            + "('gold_page_5m', 0L, 7L, CAST(NULL AS MAP<STRING, BIGINT>)) "
            + "AS t(query_name, batch_id, rows_dropped_by_watermark, dropped_by_source)");
    CatalogRegister.Result r = new CatalogRegister(spark, CatalogConfig.fromConfig(c)).run();
    assertThat(r.names()).contains("src_mon.sources_status");
    assertThat(
            rows(
                "SELECT concat_ws(' ', source, cast(last_arrival AS STRING), cast(quiet_s AS"
                    + " STRING), cast(idle AS STRING), cast(dropped_rows AS STRING),"
                    + " cast(unsplit_dropped_rows AS STRING)) FROM src_mon.sources_status"))
        .containsExactly(
            "a 2024-05-14 10:40:01 0.0 false 1 4",
            "b 2024-05-14 10:05:01 2100.0 true 3 4",
            "c true 0 4");
  }
}

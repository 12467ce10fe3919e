package io.latelake.analyst;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import io.latelake.core.catalog.CatalogConfig;
import io.latelake.core.catalog.CatalogRegister;
import io.latelake.core.table.TableRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The notebooks' period parameters and removed windows, on the small lake of {@link AnalystLake}
 * plus two ingest days of bronze and silver and a correction that removed a window (all its events
 * were duplicates: {@code new_values} null).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NotebookPeriodsTest {
  @TempDir static Path tmp;
  SparkSession spark;

  @BeforeAll
  void buildLake() {
    Config config = AnalystLake.config(tmp.resolve("lake"));
    spark = AnalystLake.session(config);
    TableRegistry tables = TableRegistry.fromConfig(config);
    AnalystLake.write(spark, tables);
    AnalystLake.save(
        spark,
        tables.monitoring("corrections_log"),
        "SELECT 'r2' AS run_id, "
            + "'page_5m' AS metric, TIMESTAMP'2024-05-14 10:10:00' AS window_start, "
            + "TIMESTAMP'2024-05-14 10:15:00' AS window_end, '{\"page\":\"/old\"}' AS keys, "
            + "'{\"views\":3,\"total_duration_s\":9.0}' AS old_values, CAST(NULL AS STRING) AS "
            + "new_values, 'DUPLICATE_REMOVED' AS reason, 'restate' AS policy, "
            + "TIMESTAMP'2024-05-15 09:00:00' AS corrected_at");
    // 14 May: e1 twice, e2, one malformed record; 15 May: e3 three times, e4.
    AnalystLake.save(
        spark,
        tables.bronzeEvents(),
        "SELECT event_id, "
            + "TIMESTAMP'2024-05-14 10:00:00' AS event_time, "
            + "TIMESTAMP'2024-05-14 10:00:01' AS enqueued_time, ingested_at, "
            + "CAST(ingested_at AS DATE) AS ingest_date, 'web' AS source, '{}' AS payload, error, "
            + "CAST(NULL AS STRING) AS error_detail FROM VALUES "
            + "('e1', TIMESTAMP'2024-05-14 10:01:00', CAST(NULL AS STRING)), "
            + "('e1', TIMESTAMP'2024-05-14 10:02:00', NULL), "
            + "('e2', TIMESTAMP'2024-05-14 10:03:00', NULL), "
            + "(NULL, TIMESTAMP'2024-05-14 10:04:00', 'MALFORMED'), "
            + "('e3', TIMESTAMP'2024-05-15 08:00:00', NULL), "
            + "('e3', TIMESTAMP'2024-05-15 08:01:00', NULL), "
            + "('e3', TIMESTAMP'2024-05-15 08:02:00', NULL), "
            + "('e4', TIMESTAMP'2024-05-15 08:03:00', NULL) AS t(event_id, ingested_at, error)");
    // Silver kept e1, e2 and e3; e4 was behind its watermark.
    AnalystLake.save(
        spark,
        tables.silverEvents(),
        "SELECT event_id, "
            + "TIMESTAMP'2024-05-14 10:00:00' AS event_time, ingested_at, 'web' AS source FROM "
            + "VALUES ('e1', TIMESTAMP'2024-05-14 10:01:00'), ('e2', TIMESTAMP'2024-05-14 10:03:00'), "
            + "('e3', TIMESTAMP'2024-05-15 08:00:00') AS t(event_id, ingested_at)");
    new CatalogRegister(spark, CatalogConfig.fromConfig(config)).run();
  }

  @AfterAll
  void stop() {
    spark.stop();
    SparkSession.clearActiveSession();
    SparkSession.clearDefaultSession();
  }

  NotebookRunner.Result notebook(String name, Map<String, String> params) throws IOException {
    NotebookRunner.Result r =
        new NotebookRunner(spark, 100)
            .run(
                Notebook.parse(name, Files.readString(Path.of("..", "notebooks", name + ".sql"))),
                params);
    assertThat(r.cells().stream().flatMap(c -> c.error().stream()).toList()).as(name).isEmpty();
    return r;
  }

  static List<String> cols(ResultTable t, String... names) {
    return t.rows().stream()
        .map(
            row ->
                String.join(
                    " ",
                    List.of(names).stream()
                        .map(n -> row.get(t.columns().indexOf(n)))
                        .map(v -> v == null ? "NULL" : v)
                        .toList()))
        .toList();
  }

  @Test
  void biggestChangesShowARemovedWindowWithNoNewValue() throws IOException {
    List<ResultTable> day15 =
        notebook("02_what_changed", Map.of("metric", "page_5m", "since", "2024-05-15")).tables();
    assertThat(
            cols(
                day15.get(1),
                "window_start",
                "keys",
                "measure",
                "old_value",
                "new_value",
                "change",
                "reason"))
        .containsExactly(
            "2024-05-14 10:10:00 {\"page\":\"/old\"} total_duration_s 9.0 NULL -9.0 "
                + "DUPLICATE_REMOVED",
            "2024-05-14 10:10:00 {\"page\":\"/old\"} views 3.0 NULL -3.0 DUPLICATE_REMOVED");

    List<ResultTable> all = notebook("02_what_changed", Map.of("metric", "page_5m")).tables();
    assertThat(cols(all.get(1), "run_id", "measure", "old_value", "new_value", "change"))
        .containsExactlyInAnyOrder(
            "r2 total_duration_s 9.0 NULL -9.0",
            "r0 total_duration_s NULL 7.0 7.0",
            "r1 total_duration_s 7.0 12.0 5.0",
            "r2 views 3.0 NULL -3.0",
            "r0 views NULL 1.0 1.0",
            "r1 views 1.0 2.0 1.0")
        .startsWith(
            "r2 total_duration_s 9.0 NULL -9.0",
            "r0 total_duration_s NULL 7.0 7.0",
            "r1 total_duration_s 7.0 12.0 5.0",
            "r2 views 3.0 NULL -3.0");
  }

  @Test
  void duplicatesCountOnlyTheIngestDaysOfThePeriod() throws IOException {
    String cell = "valid_rows distinct_event_ids duplicate_copies silver_rows not_in_silver";
    assertThat(cols(notebook("04_data_quality", Map.of()).tables().get(3), cell.split(" ")))
        .containsExactly("7 4 3 3 4");
    assertThat(
            cols(
                notebook("04_data_quality", Map.of("until", "2024-05-14")).tables().get(3),
                cell.split(" ")))
        .containsExactly("3 2 1 2 1");
    assertThat(
            cols(
                notebook("04_data_quality", Map.of("since", "2024-05-15", "until", "2024-05-15"))
                    .tables()
                    .get(3),
                cell.split(" ")))
        .containsExactly("4 2 2 1 3");
  }
}

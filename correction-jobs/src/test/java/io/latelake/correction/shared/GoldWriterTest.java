package io.latelake.correction.shared;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delta.tables.DeltaTable;
import io.latelake.core.config.ConfigLoader;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.testing.SparkTestBase;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The corrections_log insert reads only the log files that may hold the same entries: the metric's
 * rows within the corrections' window range (Delta's data skipping on the MERGE's target), and
 * still logs nothing twice.
 */
class GoldWriterTest extends SparkTestBase {
  @TempDir Path tmp;

  private static final StructType GOLD = TransformsTest.GOLD;

  /** corrections of page /p in the 5-minute window starting at {@code start}: 1 → 2 events */
  private Dataset<Row> corrections(String start) {
    return change(start, 1, 2);
  }

  /**
   * corrections of page /p in the 5-minute window starting at {@code start}: {@code from} → {@code
   * to} events, value_sum 10 per event
   */
  private Dataset<Row> change(String start, long from, long to) {
    Timestamp ws = Timestamp.from(Instant.parse(start));
    Timestamp we = new Timestamp(ws.getTime() + 300_000);
    Dataset<Row> fresh =
        spark.createDataFrame(List.of(RowFactory.create(ws, we, "/p", to, 10 * to)), GOLD);
    Dataset<Row> old =
        spark.createDataFrame(List.of(RowFactory.create(ws, we, "/p", from, 10 * from)), GOLD);
    return Corrections.diff(fresh, old, TransformsTest.PAGE_5M);
  }

  /** The file holding {@code table}'s rows of the window starting at {@code start}, deleted. */
  private String deleteFileOf(String table, String start) throws Exception {
    String file =
        spark
            .read()
            .format("delta")
            .load(table)
            .filter("window_start = timestamp'" + start + "'")
            .selectExpr("input_file_name()")
            .first()
            .getString(0);
    java.nio.file.Files.delete(Path.of(java.net.URI.create(file)));
    return file;
  }

  private long lastInserted(String path) {
    return DeltaTable.forPath(spark, path)
        .history(1)
        .selectExpr("cast(operationMetrics['numTargetRowsInserted'] AS BIGINT)")
        .first()
        .getLong(0);
  }

  @Test
  void theLogInsertReadsOnlyTheFilesOfTheCorrectionsWindowsAndLogsNothingTwice() throws Exception {
    CorrectionTables tables =
        new CorrectionTables(
            TableRegistry.fromConfig(
                ConfigLoader.load(
                    Optional.empty(), List.of("lake.root=\"" + tmp.resolve("lake") + "\""))));
    tables.createMonitoring(spark);
    GoldWriter writer = new GoldWriter(3, Duration.ofMillis(10));
    Timestamp at = Timestamp.from(Instant.parse("2024-06-01T00:00:00Z"));
    // three runs, a day apart: one log file each
    List<Long> inserted = new ArrayList<>();
    for (String start :
        List.of("2024-05-14T10:00:00Z", "2024-05-15T10:00:00Z", "2024-05-16T10:00:00Z")) {
      Dataset<Row> c = corrections(start);
      writer.log(
          c,
          tables.log(),
          TransformsTest.PAGE_5M,
          "r",
          "restate",
          at,
          TouchedWindows.of(c, TransformsTest.PAGE_5M.window()));
      inserted.add(lastInserted(tables.log()));
    }
    assertThat(inserted).containsExactly(1L, 1L, 1L);
    // the first run's file taken away from storage: a read of it would fail
    String first =
        spark
            .read()
            .format("delta")
            .load(tables.log())
            .filter("window_start = timestamp'2024-05-14 10:00:00'")
            .selectExpr("input_file_name()")
            .first()
            .getString(0);
    java.nio.file.Files.delete(Path.of(java.net.URI.create(first)));

    long versionBefore =
        DeltaTable.forPath(spark, tables.log()).history(1).first().<Long>getAs("version");
    // the last run again: only its window's file is read, nothing is inserted twice
    Dataset<Row> again = corrections("2024-05-16T10:00:00Z");
    writer.log(
        again,
        tables.log(),
        TransformsTest.PAGE_5M,
        "r2",
        "restate",
        at,
        TouchedWindows.of(again, TransformsTest.PAGE_5M.window()));
    // an insert-only MERGE that inserts nothing commits nothing
    assertThat(DeltaTable.forPath(spark, tables.log()).history(1).first().<Long>getAs("version"))
        .isEqualTo(versionBefore);
    // without a range (backfill) the metric's whole log is read, the missing file with it
    assertThatThrownBy(
            () ->
                writer.log(again, tables.log(), TransformsTest.PAGE_5M, "r3", "backfill", at, null))
        .hasStackTraceContaining(first.substring(first.lastIndexOf('/') + 1));
  }

  @Test
  void correctionsOfTwoWindowsDaysApartOpenNeitherTheGoldNorTheLogFileOfTheDayBetween()
      throws Exception {
    CorrectionTables tables =
        new CorrectionTables(
            TableRegistry.fromConfig(
                ConfigLoader.load(
                    Optional.empty(), List.of("lake.root=\"" + tmp.resolve("apart") + "\""))));
    tables.createMonitoring(spark);
    String gold = tmp.resolve("apart/gold/page_5m").toString();
    io.latelake.core.table.DeltaTables.createIfNotExists(
        spark,
        gold,
        io.latelake.core.metric.GoldLayout.tableSchema(GOLD),
        List.of(),
        java.util.Map.of());
    GoldWriter writer = new GoldWriter(3, Duration.ofMillis(10));
    Timestamp at = Timestamp.from(Instant.parse("2024-06-01T00:00:00Z"));
    List<String> days =
        List.of("2024-05-14T10:00:00Z", "2024-05-15T10:00:00Z", "2024-05-16T10:00:00Z");
    // one run per day: one gold file and one log file each (1 event → 2)
    for (String start : days) {
      Dataset<Row> c = change(start, 1, 2);
      TouchedWindows w = TouchedWindows.of(c, TransformsTest.PAGE_5M.window());
      writer.log(c, tables.log(), TransformsTest.PAGE_5M, "r", "restate", at, w);
      writer.restate(c, gold, TransformsTest.PAGE_5M, at, w);
    }
    // the middle day's files taken away from storage: a read of either would fail
    deleteFileOf(gold, "2024-05-15 10:00:00");
    deleteFileOf(tables.log(), "2024-05-15 10:00:00");

    // one run correcting the first and the last day (2 events → 3): two runs, a day between
    Dataset<Row> both = change(days.get(0), 2, 3).union(change(days.get(2), 2, 3));
    TouchedWindows windows = TouchedWindows.of(both, TransformsTest.PAGE_5M.window());
    assertThat(windows.rows()).isEqualTo(2);
    assertThat(windows.runs())
        .containsExactly(
            new TouchedWindows.Run(
                Timestamp.from(Instant.parse(days.get(0))),
                Timestamp.from(Instant.parse(days.get(0)))),
            new TouchedWindows.Run(
                Timestamp.from(Instant.parse(days.get(2))),
                Timestamp.from(Instant.parse(days.get(2)))));
    Timestamp later = Timestamp.from(Instant.parse("2024-06-02T00:00:00Z"));
    writer.log(both, tables.log(), TransformsTest.PAGE_5M, "r2", "restate", later, windows);
    assertThat(lastInserted(tables.log())).isEqualTo(2L);
    writer.restate(both, gold, TransformsTest.PAGE_5M, later, windows);

    List<String> rows =
        spark
            .read()
            .format("delta")
            .load(gold)
            .filter(
                "window_start <= timestamp'2024-05-14 10:00:00' "
                    + "OR window_start >= timestamp'2024-05-16 10:00:00'")
            .selectExpr(
                "concat_ws(' ', date_format(window_start, 'yyyy-MM-dd HH:mm'), events, value_sum,"
                    + " date_format(corrected_at, 'yyyy-MM-dd'))")
            .as(org.apache.spark.sql.Encoders.STRING())
            .collectAsList()
            .stream()
            .sorted()
            .toList();
    assertThat(rows)
        .containsExactly("2024-05-14 10:00 3 30 2024-06-02", "2024-05-16 10:00 3 30 2024-06-02");
  }
}

package io.latelake.core.metric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latelake.core.table.TableRegistry;
import io.latelake.core.testing.SparkTestBase;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status rule on a replayed old dataset: windows of 2024 read in 2026, so a wall-clock rule
 * would call every one of them settled; the last watermark of the gold stream decides instead.
 */
class GoldStatusTest extends SparkTestBase {
  static final MetricSpec PAGE_5M =
      new MetricSpec(
          "page_5m", Duration.ofMinutes(5), List.of("page"), List.of(), LatePolicy.RESTATE);
  static final Duration HORIZON = Duration.ofHours(1);

  @TempDir static Path tmp;
  TableRegistry tables;

  @BeforeAll
  void writeLake() {
    tables = new TableRegistry(tmp.resolve("lake").toString());
    save(
        tables.gold("page_5m"),
        "SELECT * FROM VALUES "
            + "(TIMESTAMP'2024-05-14 10:00:00', TIMESTAMP'2024-05-14 10:05:00', 'restated', "
            + "TIMESTAMP'2024-05-14 11:00:00'), "
            + "(TIMESTAMP'2024-05-14 10:00:00', TIMESTAMP'2024-05-14 10:05:00', 'horizon-passed', "
            + "CAST(NULL AS TIMESTAMP)), "
            + "(TIMESTAMP'2024-05-14 10:05:00', TIMESTAMP'2024-05-14 10:10:00', 'closed-in-horizon', "
            + "CAST(NULL AS TIMESTAMP)), "
            + "(TIMESTAMP'2024-05-14 10:20:00', TIMESTAMP'2024-05-14 10:25:00', 'open', "
            + "CAST(NULL AS TIMESTAMP)) "
            + "AS t(window_start, window_end, page, corrected_at)");
    // Two gold micro-batches replayed in 2026; the silver query's later watermark is not gold's.
    save(
        tables.streamProgress(),
        "SELECT * FROM VALUES "
            + "('gold_page_5m', 0L, TIMESTAMP'2026-11-30 08:00:00', TIMESTAMP'2024-05-14 10:20:00'), "
            + "('gold_page_5m', 1L, TIMESTAMP'2026-11-30 08:01:00', TIMESTAMP'2024-05-14 11:05:00'), "
            + "('gold_page_5m', 2L, TIMESTAMP'2026-11-30 08:02:00', CAST(NULL AS TIMESTAMP)), "
            + "('silver', 0L, TIMESTAMP'2026-11-30 08:00:00', TIMESTAMP'2024-05-15 00:00:00') "
            + "AS t(query_name, batch_id, batch_timestamp, watermark)");
  }

  void save(String path, String select) {
    spark.sql(select).write().format("delta").mode("append").save(path);
  }

  List<String> statuses(Dataset<Row> withStatus) {
    return withStatus
        .selectExpr("concat_ws(' ', page, status)")
        .as(Encoders.STRING())
        .collectAsList()
        .stream()
        .sorted()
        .toList();
  }

  @Test
  void settledOnceWindowEndPlusHorizonIsAtOrBeforeTheGoldStreamsLastWatermark() {
    assertThat(GoldStatus.lastWatermark(spark, tables, PAGE_5M, Optional.empty()))
        .contains(Instant.parse("2024-05-14T11:05:00Z"));
    assertThat(statuses(GoldStatus.withStatus(spark, tables, PAGE_5M, HORIZON)))
        .containsExactly(
            "closed-in-horizon provisional",
            "horizon-passed settled",
            "open provisional",
            "restated restated");
  }

  @Test
  void asOfATimeOnlyTheMicroBatchesStartedByThenCount() {
    Optional<Instant> then =
        GoldStatus.lastWatermark(
            spark, tables, PAGE_5M, Optional.of(Instant.parse("2026-11-30T08:00:30Z")));
    assertThat(then).contains(Instant.parse("2024-05-14T10:20:00Z"));
    Dataset<Row> gold = spark.read().format("delta").load(tables.gold("page_5m"));
    assertThat(statuses(GoldStatus.withStatus(gold, then, HORIZON)))
        .containsExactly(
            "closed-in-horizon provisional",
            "horizon-passed provisional",
            "open provisional",
            "restated restated");
    assertThat(
            GoldStatus.lastWatermark(
                spark, tables, PAGE_5M, Optional.of(Instant.parse("2026-11-30T07:59:59Z"))))
        .isEmpty();
  }

  @Test
  void withoutAReportedWatermarkOrACorrectedAtColumnNothingIsSettledOrRestated() {
    TableRegistry empty = new TableRegistry(tmp.resolve("no-progress").toString());
    assertThat(GoldStatus.lastWatermark(spark, empty, PAGE_5M, Optional.empty())).isEmpty();
    Dataset<Row> gold = spark.read().format("delta").load(tables.gold("page_5m"));
    assertThat(statuses(GoldStatus.withStatus(gold, Optional.empty(), HORIZON)))
        .containsExactly(
            "closed-in-horizon provisional",
            "horizon-passed provisional",
            "open provisional",
            "restated restated");
    assertThat(
            statuses(
                GoldStatus.withStatus(
                    gold.drop("corrected_at"),
                    Optional.of(Instant.parse("2024-05-14T11:05:00Z")),
                    HORIZON)))
        .containsExactly(
            "closed-in-horizon provisional",
            "horizon-passed settled",
            "open provisional",
            "restated settled");
  }

  /**
   * Three appends to {@code stream_progress}, one file each: two days ago the query's watermark was
   * 10:20, yesterday morning an older checkpoint's 11:05 (before a backfill moved it aside), a
   * minute ago the new checkpoint's 10:40. The first file is then deleted from storage: the read
   * must not open it (its largest watermark is below the recent one), and still finds 11:05.
   */
  @Test
  void theLastWatermarkIsReadFromTheRecentFilesAndAnyFileWithALargerWatermark() throws Exception {
    Instant now = Instant.now();
    TableRegistry lake = new TableRegistry(tmp.resolve("recent").toString());
    java.util.function.BiFunction<Duration, String, String> row =
        (ago, wm) ->
            "('gold_page_5m', TIMESTAMP'"
                + now.minus(ago).truncatedTo(java.time.temporal.ChronoUnit.MILLIS)
                + "', TIMESTAMP'2024-05-14 "
                + wm
                + "')";
    String schema = " AS t(query_name, batch_timestamp, watermark)";
    save(
        lake.streamProgress(),
        "SELECT * FROM VALUES " + row.apply(Duration.ofDays(2), "10:20:00") + schema);
    List<Path> first = parquetFiles(lake.streamProgress());
    save(
        lake.streamProgress(),
        "SELECT * FROM VALUES " + row.apply(Duration.ofHours(30), "11:05:00") + schema);
    save(
        lake.streamProgress(),
        "SELECT * FROM VALUES "
            + row.apply(Duration.ofMinutes(1), "10:40:00")
            + ", ('silver', TIMESTAMP'2024-05-14 10:00:00', TIMESTAMP'2024-05-15 00:00:00')"
            + schema);
    assertThat(first).hasSize(1);
    java.nio.file.Files.delete(first.get(0));

    assertThat(GoldStatus.lastWatermark(spark, lake, PAGE_5M, Optional.empty()))
        .contains(Instant.parse("2024-05-14T11:05:00Z"));
    // as of 40 hours ago only the first micro-batch had started: its file is read, and is gone
    assertThatThrownBy(
            () ->
                GoldStatus.lastWatermark(
                    spark, lake, PAGE_5M, Optional.of(now.minus(Duration.ofHours(40)))))
        .hasStackTraceContaining(first.get(0).getFileName().toString());
  }

  static List<Path> parquetFiles(String table) throws java.io.IOException {
    try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(Path.of(table))) {
      return files.filter(f -> f.toString().endsWith(".parquet")).toList();
    }
  }

  @Test
  void theRuleAsSqlIsWhatTheStatusViewsUse() {
    assertThat(
            GoldStatus.sql(
                "g.corrected_at", "g.window_end", "wm.last_watermark", Duration.ofMinutes(90)))
        .isEqualTo(
            "CASE WHEN g.corrected_at IS NOT NULL THEN 'restated' WHEN "
                + "timestampadd(MICROSECOND, 5400000000, g.window_end) <= wm.last_watermark "
                + "THEN 'settled' ELSE 'provisional' END");
  }
}

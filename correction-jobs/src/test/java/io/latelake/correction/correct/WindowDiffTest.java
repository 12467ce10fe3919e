package io.latelake.correction.correct;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latelake.core.table.TableRegistry;
import io.latelake.core.testing.SparkTestBase;
import io.latelake.correction.shared.TransformsTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code correct} reads bronze around each closed window and gold over the closed windows only, not
 * over the range from the first to the last: two windows 19 days apart with a 1-day id horizon
 * leave the bronze file of the days between them and the gold file of a window between them unread.
 * The test deletes both files from storage; the corrections are still found, and a read of the
 * whole range fails on each missing file.
 */
class WindowDiffTest extends SparkTestBase {
  static final Duration HORIZON = Duration.ofDays(1);

  @TempDir Path tmp;

  static Instant at(String iso) {
    return Instant.parse(iso);
  }

  List<Path> parquet(String table) throws Exception {
    try (Stream<Path> files = Files.list(Path.of(table))) {
      return files.filter(f -> f.toString().endsWith(".parquet")).sorted().toList();
    }
  }

  void append(String table, Row... rows) {
    spark
        .createDataFrame(List.of(rows), TransformsTest.BRONZE)
        .coalesce(1)
        .write()
        .format("delta")
        .mode("append")
        .save(table);
  }

  @Test
  void closedWindowsFarApartReadOnlyTheBronzeAroundEachAndTheirOwnGold() throws Exception {
    TableRegistry reg = new TableRegistry(tmp.resolve("lake").toString());
    String bronze = reg.bronzeEvents();
    // a1 was published; a2 arrived two hours late into the same window
    append(
        bronze,
        TransformsTest.kafka("a1", "2024-05-01T10:00:00Z", "2024-05-01T10:00:30Z", 0, 0, "home", 1),
        TransformsTest.kafka(
            "a2", "2024-05-01T10:01:00Z", "2024-05-01T12:00:00Z", 0, 1, "home", 2));
    List<Path> before = parquet(bronze);
    append(
        bronze,
        TransformsTest.kafka(
            "b1", "2024-05-10T10:00:00Z", "2024-05-10T10:00:01Z", 0, 2, "home", 5));
    List<Path> middle = new ArrayList<>(parquet(bronze));
    middle.removeAll(before);
    append(
        bronze,
        TransformsTest.kafka(
            "c1", "2024-05-20T10:02:00Z", "2024-05-20T10:02:01Z", 0, 3, "home", 7));
    // gold: one file per window, as windows published far apart are
    String goldTable = reg.gold("page_5m");
    writeGold(goldTable, "2024-05-01T10:00:00Z", 1L, 1L);
    List<Path> goldBefore = parquet(goldTable);
    writeGold(goldTable, "2024-05-10T10:00:00Z", 1L, 5L);
    List<Path> goldMiddle = new ArrayList<>(parquet(goldTable));
    goldMiddle.removeAll(goldBefore);
    WindowPlanner.Plan plan =
        WindowPlanner.plan(
            List.of(at("2024-05-20T10:00:00Z"), at("2024-05-01T10:00:00Z")),
            Duration.ofMinutes(5),
            Optional.of(at("2024-05-21T00:00:00Z")));
    assertThat(plan.readSpans(Duration.ofMinutes(5), HORIZON))
        .containsExactly(
            new WindowPlanner.Span(at("2024-04-30T10:00:00Z"), at("2024-05-02T10:05:00Z")),
            new WindowPlanner.Span(at("2024-05-19T10:00:00Z"), at("2024-05-21T10:05:00Z")));

    // b1's file and its window's gold file: in the range from the first window to the last, in
    // neither window's span
    assertThat(middle).hasSize(1);
    Files.delete(middle.get(0));
    assertThat(goldMiddle).hasSize(1);
    Files.delete(goldMiddle.get(0));

    assertThat(
            WindowDiff.corrections(spark, reg, TransformsTest.PAGE_5M, plan, 2L, 1L, HORIZON)
                .selectExpr(
                    "concat_ws(' | ', date_format(window_start, 'MM-dd HH:mm'), keys, _action,"
                        + " reason, coalesce(to_json(old_values), '-'),"
                        + " coalesce(to_json(new_values), '-'))")
                .as(Encoders.STRING())
                .collectAsList()
                .stream()
                .sorted()
                .toList())
        .containsExactly(
            "05-01 10:00 | {\"page\":\"home\"} | UPSERT | LATE_ARRIVAL | "
                + "{\"events\":1,\"value_sum\":1} | {\"events\":2,\"value_sum\":3}",
            "05-20 10:00 | {\"page\":\"home\"} | UPSERT | NEW_WINDOW | - | "
                + "{\"events\":1,\"value_sum\":7}");
    // the whole range's read needs the deleted file
    assertThatThrownBy(
            () ->
                io.latelake.correction.shared.LakeReads.bronzeAround(
                        spark,
                        bronze,
                        java.util.OptionalLong.of(2L),
                        plan.start(),
                        plan.end(),
                        HORIZON)
                    .count())
        .hasStackTraceContaining(middle.get(0).getFileName().toString());
    // and so does gold's read of the whole range
    assertThatThrownBy(
            () ->
                spark
                    .read()
                    .format("delta")
                    .load(goldTable)
                    .filter(
                        "window_start >= timestamp'2024-05-01 10:00:00'"
                            + " AND window_start < timestamp'2024-05-20 10:05:00'")
                    .count())
        .hasStackTraceContaining(goldMiddle.get(0).getFileName().toString());
  }

  private void writeGold(String table, String windowStart, long events, long valueSum) {
    Instant start = at(windowStart);
    spark
        .createDataFrame(
            List.of(
                RowFactory.create(
                    Timestamp.from(start),
                    Timestamp.from(start.plus(Duration.ofMinutes(5))),
                    "home",
                    events,
                    valueSum)),
            TransformsTest.GOLD)
        .coalesce(1)
        .write()
        .format("delta")
        .mode("append")
        .save(table);
  }
}

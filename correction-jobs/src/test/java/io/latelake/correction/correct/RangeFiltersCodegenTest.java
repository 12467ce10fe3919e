package io.latelake.correction.correct;

import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.core.testing.SparkTestBase;
import io.latelake.correction.shared.TouchedWindows;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The largest filters correct builds, its touched windows' runs and its bronze read spans, compile
 * in Delta's data skipping: this session generates Java code as latelake's jobs do (the other test
 * sessions evaluate expressions interpreted) and fails instead of falling back to interpreted
 * evaluation, so a filter whose generated method grows beyond 64 KB fails the test (it did at 64
 * ranges). The table: one row a day from 2024-01-01 at midnight (UTC), 200 days, in 8 files.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RangeFiltersCodegenTest extends SparkTestBase {
  private static final Instant DAY0 = Instant.parse("2024-01-01T00:00:00Z");
  @TempDir static Path tmp;
  private String table;

  private static Instant day(long n) {
    return DAY0.plus(Duration.ofDays(n));
  }

  @BeforeAll
  void codegenWithoutFallbackAndATable() {
    spark.conf().set("spark.sql.codegen.factoryMode", "FALLBACK");
    spark.conf().set("spark.sql.codegen.wholeStage", "true");
    spark.conf().set("spark.sql.codegen.fallback", "false");
    table = tmp.resolve("days").toString();
    spark
        .range(200)
        .selectExpr(
            "timestamp_seconds(" + DAY0.getEpochSecond() + " + id * 86400) AS window_start",
            "timestamp_seconds(" + DAY0.getEpochSecond() + " + id * 86400) AS event_time")
        .repartition(8)
        .write()
        .format("delta")
        .save(table);
  }

  private Dataset<Row> days() {
    return spark.read().format("delta").load(table);
  }

  @Test
  void theMostTouchedWindowRunsAMergeNamesCompile() {
    // one run a window wide every third day
    List<TouchedWindows.Run> runs = new ArrayList<>();
    for (int i = 0; i < TouchedWindows.MAX_RUNS; i++) {
      Timestamp start = Timestamp.from(day(3L * i));
      runs.add(new TouchedWindows.Run(start, start));
    }
    assertThat(days().filter(new TouchedWindows(0, runs).bound("window_start")).count())
        .isEqualTo(TouchedWindows.MAX_RUNS);
  }

  @Test
  void theMostBronzeReadSpansCompile() {
    // 64 closed windows every second day, 5 minutes wide, read with a horizon of an hour: 64 spans
    // capped to 32, the first 31 kept (equal gaps: the earlier ones), the other 33 joined into one
    // from day 62 to day 126: 31 rows + 65 rows
    List<Instant> closed = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      closed.add(day(2L * i));
    }
    WindowPlanner.Plan plan =
        new WindowPlanner.Plan(closed, List.of(), day(126).plus(Duration.ofMinutes(5)));
    List<WindowPlanner.Span> spans = plan.readSpans(Duration.ofMinutes(5), Duration.ofHours(1));
    assertThat(spans).hasSize(WindowPlanner.MAX_SPANS);
    assertThat(spans.get(31))
        .isEqualTo(
            new WindowPlanner.Span(
                day(62).minus(Duration.ofHours(1)), day(126).plus(Duration.ofMinutes(65))));
    assertThat(days().filter(WindowDiff.within(spans)).count()).isEqualTo(96);
  }

  @Test
  void withoutRunsTheBoundMatchesNoRow() {
    // corrections whose window_start is null: no run, and no file to open
    assertThat(days().filter(new TouchedWindows(3, List.of()).bound("window_start")).count())
        .isZero();
  }
}

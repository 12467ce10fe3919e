package io.latelake.correction.shared;

import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.core.metric.LatePolicy;
import io.latelake.core.metric.Measure;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.testing.SparkTestBase;
import io.latelake.correction.rollup.Rollups;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** The correction path's pure transformations, on small in-memory data (no I/O). */
public class TransformsTest extends SparkTestBase {
  public static final MetricSpec PAGE_5M =
      new MetricSpec(
          "page_5m",
          Duration.ofMinutes(5),
          List.of("page"),
          List.of(
              new Measure("events", Measure.Function.COUNT, Optional.empty()),
              new Measure("value_sum", Measure.Function.SUM, Optional.of("value"))),
          LatePolicy.RESTATE);

  public static final StructType BRONZE =
      new StructType()
          .add("event_id", DataTypes.StringType)
          .add("event_time", DataTypes.TimestampType)
          .add("enqueued_time", DataTypes.TimestampType)
          .add("ingested_at", DataTypes.TimestampType)
          .add("kafka_partition", DataTypes.IntegerType)
          .add("kafka_offset", DataTypes.LongType)
          .add("source_file", DataTypes.StringType)
          .add("page", DataTypes.StringType)
          .add("value", DataTypes.LongType)
          .add("error", DataTypes.StringType);

  /** Gold rows of {@link #PAGE_5M}: window, page, events, value_sum. */
  public static final StructType GOLD =
      new StructType()
          .add("window_start", DataTypes.TimestampType)
          .add("window_end", DataTypes.TimestampType)
          .add("page", DataTypes.StringType)
          .add("events", DataTypes.LongType)
          .add("value_sum", DataTypes.LongType);

  public static Timestamp t(String hhmmss) {
    return Timestamp.from(Instant.parse("2024-05-14T" + hhmmss + "Z"));
  }

  static Row bronze(
      String id, String eventTime, String enqueued, String page, long value, String error) {
    return RowFactory.create(
        id,
        eventTime == null ? null : t(eventTime),
        t(enqueued),
        t(enqueued),
        null,
        null,
        "f",
        page,
        value,
        error);
  }

  /** A valid Kafka row at an instant (ISO), partition and offset; ingested when enqueued. */
  public static Row kafka(
      String id,
      String eventTime,
      String enqueued,
      int partition,
      long offset,
      String page,
      long value) {
    Timestamp enq = Timestamp.from(Instant.parse(enqueued));
    return RowFactory.create(
        id,
        Timestamp.from(Instant.parse(eventTime)),
        enq,
        enq,
        partition,
        offset,
        null,
        page,
        value,
        null);
  }

  Dataset<Row> df(Row... rows) {
    return spark.createDataFrame(List.of(rows), BRONZE);
  }

  List<String> strings(Dataset<Row> d, String expr) {
    List<String> out = new ArrayList<>(d.selectExpr(expr).as(Encoders.STRING()).collectAsList());
    out.sort(null);
    return out;
  }

  @Test
  void exactDedupKeepsTheEarliestEnqueuedCopyAndRecomputeSkipsInvalidAndNullTimes() {
    Dataset<Row> in =
        df(
            bronze("a", "12:01:00", "12:01:05", "home", 1, null),
            bronze("a", "12:01:00", "12:40:00", "home", 1, null),
            bronze("b", "12:02:00", "12:30:00", "home", 3, null),
            bronze("b", "12:07:00", "12:02:09", "home", 30, null),
            bronze("c", null, "12:01:06", "home", 2, "MISSING_EVENT_TIME"),
            bronze("d", "13:02:00", "12:03:00", "home", 9, "FUTURE_EVENT_TIME"),
            bronze("e", "12:03:00", "12:03:30", "home", 4, null));
    assertThat(
            strings(
                Recompute.exactDedup(Recompute.validEvents(in)),
                "concat_ws(' ', event_id, date_format(enqueued_time, 'HH:mm:ss'), value)"))
        .containsExactly("a 12:01:05 1", "b 12:02:09 30", "e 12:03:30 4");
    assertThat(
            strings(
                Recompute.gold(in, PAGE_5M),
                "concat_ws(' ', page, date_format(window_start, 'HH:mm'), events, value_sum)"))
        .containsExactly("home 12:00 2 5", "home 12:05 1 30");
  }

  @Test
  void c31RetryReStampedIntoALaterWindowIsADuplicateWhereverItsFirstCopyLies() {
    // c31-x first arrives at 12:01:01 with event time 12:01; its retry carries 12:25
    Dataset<Row> bronze =
        df(
            bronze("c31-x", "12:01:00", "12:01:01", "home", 5, null),
            bronze("c31-y", "12:30:00", "12:30:01", "other", 1, null),
            bronze("c31-x", "12:25:00", "12:31:00", "home", 5, null),
            bronze("c31-w", "12:50:00", "12:50:01", "zz", 1, null));
    Instant from = Instant.parse("2024-05-14T12:25:00Z");
    Instant to = Instant.parse("2024-05-14T12:30:00Z");
    // the old fault: a recompute that reads only the window's own time range keeps the retry
    Dataset<Row> windowOnly =
        bronze.filter(io.latelake.core.dedup.ExactDedup.eventTimeAround(from, to, Duration.ZERO));
    assertThat(
            strings(
                Recompute.gold(windowOnly, PAGE_5M, from, to),
                "concat_ws(' ', page, date_format(window_start, 'HH:mm'), events, value_sum)"))
        .containsExactly("home 12:25 1 5");
    // within the id horizon the first copy is seen: the window's correct content is empty
    Dataset<Row> around =
        bronze.filter(
            io.latelake.core.dedup.ExactDedup.eventTimeAround(from, to, Duration.ofMinutes(30)));
    assertThat(Recompute.gold(around, PAGE_5M, from, to).collectAsList()).isEmpty();
    // and the first copy's window keeps its one event
    Instant noon = Instant.parse("2024-05-14T12:00:00Z");
    assertThat(
            strings(
                Recompute.gold(bronze, PAGE_5M, noon, noon.plusSeconds(300)),
                "concat_ws(' ', page, date_format(window_start, 'HH:mm'), events, value_sum)"))
        .containsExactly("home 12:00 1 5");
  }

  @Test
  void recomputeOfTouchedWindowsEqualsTheRangeRecomputeRestrictedToThem() {
    Dataset<Row> bronze =
        df(
            // first copy at 12:01, retry re-stamped into the touched 12:25 window: not counted
            // there
            bronze("x", "12:01:00", "12:01:01", "home", 5, null),
            bronze("x", "12:25:00", "12:31:00", "home", 5, null),
            // first copy in the touched 12:25 window, a later copy outside: counted there
            bronze("y", "12:26:00", "12:26:01", "home", 7, null),
            bronze("y", "12:03:00", "12:40:00", "home", 7, null),
            // two copies inside the window: the earlier enqueued one counts
            bronze("z", "12:27:00", "12:29:00", "home", 3, null),
            bronze("z", "12:28:00", "12:28:30", "home", 30, null),
            // invalid and untouched rows
            bronze("bad", "12:27:30", "12:27:31", "home", 100, "INVALID_FIELD"),
            bronze("u", "12:16:00", "12:16:01", "home", 9, null),
            bronze("v", "12:41:00", "12:41:01", "other", 2, null));
    Instant from = Instant.parse("2024-05-14T12:00:00Z");
    Instant to = Instant.parse("2024-05-14T12:45:00Z");
    Dataset<Row> starts =
        spark.createDataFrame(
            List.of(
                RowFactory.create(java.sql.Timestamp.from(Instant.parse("2024-05-14T12:25:00Z"))),
                RowFactory.create(java.sql.Timestamp.from(Instant.parse("2024-05-14T12:40:00Z")))),
            new org.apache.spark.sql.types.StructType()
                .add("window_start", org.apache.spark.sql.types.DataTypes.TimestampType));
    String shape = "concat_ws(' ', page, date_format(window_start, 'HH:mm'), events, value_sum)";
    assertThat(strings(Recompute.goldOfWindows(bronze, PAGE_5M, starts, from, to), shape))
        .containsExactly("home 12:25 2 37", "other 12:40 1 2")
        .isEqualTo(
            strings(Recompute.gold(bronze, PAGE_5M, from, to).join(starts, "window_start"), shape));
  }

  @Test
  void copiesWithEqualEnqueuedTimesKeepTheLowestPartitionThenOffset() {
    Dataset<Row> in =
        spark.createDataFrame(
            List.of(
                kafka("k", "2024-05-14T12:01:00Z", "2024-05-14T12:01:05Z", 1, 3, "p1-o3", 1),
                kafka("k", "2024-05-14T12:02:00Z", "2024-05-14T12:01:05Z", 0, 9, "p0-o9", 2),
                kafka("k", "2024-05-14T12:03:00Z", "2024-05-14T12:01:05Z", 0, 7, "p0-o7", 3),
                kafka("k", "2024-05-14T12:00:00Z", "2024-05-14T12:01:06Z", 0, 1, "later", 4)),
            BRONZE);
    assertThat(strings(Recompute.exactDedup(in), "page")).containsExactly("p0-o7");
    assertThat(strings(Recompute.exactDedup(in.repartition(2)), "page")).containsExactly("p0-o7");
  }

  @Test
  void dailyRollupFollowsNewYorkDaysAcrossSpringForwardAndFallBack() {
    java.time.ZoneId ny = java.time.ZoneId.of("America/New_York");
    assertThat(
            Duration.between(
                Rollups.startOfDay(java.time.LocalDate.of(2024, 3, 10), ny),
                Rollups.startOfDay(java.time.LocalDate.of(2024, 3, 11), ny)))
        .hasHours(23);
    assertThat(
            Duration.between(
                Rollups.startOfDay(java.time.LocalDate.of(2024, 11, 3), ny),
                Rollups.startOfDay(java.time.LocalDate.of(2024, 11, 4), ny)))
        .hasHours(25);
    String[][] events = {
      {"2024-03-10T04:59:59Z", "mar"}, // 03-09 23:59:59 EST
      {"2024-03-10T05:00:00Z", "mar"}, // 03-10 00:00 EST
      {"2024-03-10T06:30:00Z", "mar"}, // 01:30 EST, just before the skipped hour
      {"2024-03-10T07:30:00Z", "mar"}, // 03:30 EDT, just after it
      {"2024-03-11T03:59:59Z", "mar"}, // 03-10 23:59:59 EDT (the 23rd hour)
      {"2024-03-11T04:30:00Z", "mar"}, // 03-11 00:30 EDT (a fixed -05:00 would say 03-10)
      {"2024-11-03T03:59:59Z", "nov"}, // 11-02 23:59:59 EDT
      {"2024-11-03T04:00:00Z", "nov"}, // 11-03 00:00 EDT
      {"2024-11-03T05:30:00Z", "nov"}, // the first 01:30 (EDT)
      {"2024-11-03T06:30:00Z", "nov"}, // the second 01:30 (EST)
      {"2024-11-04T04:30:00Z", "nov"}, // 11-03 23:30 EST (a fixed -04:00 would say 11-04)
      {"2024-11-04T05:00:00Z", "nov"}
    }; // 11-04 00:00 EST
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < events.length; i++) {
      rows.add(kafka("e" + i, events[i][0], events[i][0], 0, i, events[i][1], i));
    }
    Dataset<Row> in = spark.createDataFrame(rows, BRONZE);
    Instant from = Rollups.startOfDay(java.time.LocalDate.of(2024, 3, 9), ny);
    Instant to = Rollups.startOfDay(java.time.LocalDate.of(2024, 11, 5), ny);
    assertThat(
            strings(
                Rollups.daily(in, PAGE_5M, ny, from, to),
                "concat_ws(' ', event_date, page, events, value_sum)"))
        .containsExactly(
            "2024-03-09 mar 1 0",
            "2024-03-10 mar 4 10",
            "2024-03-11 mar 1 5",
            "2024-11-02 nov 1 6",
            "2024-11-03 nov 4 34",
            "2024-11-04 nov 1 11");
    // a range of one local day reads exactly its 23 hours
    assertThat(
            strings(
                Rollups.daily(
                    in,
                    PAGE_5M,
                    ny,
                    Rollups.startOfDay(java.time.LocalDate.of(2024, 3, 10), ny),
                    Rollups.startOfDay(java.time.LocalDate.of(2024, 3, 11), ny)),
                "concat_ws(' ', event_date, page, events, value_sum)"))
        .containsExactly("2024-03-10 mar 4 10");
    // UTC days for comparison
    assertThat(
            strings(
                Rollups.daily(in, PAGE_5M, java.time.ZoneOffset.UTC, from, to)
                    .filter("page = 'nov'"),
                "concat_ws(' ', event_date, page, events, value_sum)"))
        .containsExactly("2024-11-03 nov 4 30", "2024-11-04 nov 2 21");
  }

  @Test
  void windowStartMatchesSparksTumblingWindow() {
    Dataset<Row> in =
        df(
            bronze("a", "12:04:59", "12:05:00", "p", 1, null),
            bronze("b", "12:05:00", "12:05:00", "p", 1, null));
    assertThat(
            strings(
                in.withColumn(
                    "ws",
                    io.latelake.core.metric.MetricAggregation.windowStart(
                        org.apache.spark.sql.functions.col("event_time"), Duration.ofMinutes(5))),
                "concat_ws(' ', event_id, date_format(ws, 'HH:mm:ss'))"))
        .containsExactly("a 12:00:00", "b 12:05:00");
  }

  @Test
  void diffReportsOnlyChangedRowsWithTheirReason() {
    StructType gold = GOLD;
    Dataset<Row> recomputed =
        spark.createDataFrame(
            List.of(
                RowFactory.create(t("10:00:00"), t("10:05:00"), "/home", 2L, 12L),
                RowFactory.create(t("10:00:00"), t("10:05:00"), "/pricing", 2L, 10L),
                RowFactory.create(t("10:05:00"), t("10:10:00"), "/home", 1L, 5L),
                RowFactory.create(t("10:05:00"), t("10:10:00"), null, 1L, 1L)),
            gold);
    Dataset<Row> published =
        spark.createDataFrame(
            List.of(
                RowFactory.create(t("10:00:00"), t("10:05:00"), "/home", 1L, 7L),
                RowFactory.create(t("10:00:00"), t("10:05:00"), "/pricing", 2L, 10L),
                RowFactory.create(t("10:05:00"), t("10:10:00"), "/home", 2L, 10L),
                RowFactory.create(t("10:05:00"), t("10:10:00"), "/old", 1L, 1L)),
            gold);
    assertThat(
            strings(
                Corrections.diff(recomputed, published, PAGE_5M),
                "concat_ws(' | ', date_format(window_start, 'HH:mm'), keys, _action, reason, "
                    + "coalesce(to_json(old_values), '-'), coalesce(to_json(new_values), '-'))"))
        .containsExactly(
            "10:00 | {\"page\":\"/home\"} | UPSERT | LATE_ARRIVAL | {\"events\":1,\"value_sum\":7}"
                + " | {\"events\":2,\"value_sum\":12}",
            "10:05 | {\"page\":\"/home\"} | UPSERT | DUPLICATE_REMOVED | "
                + "{\"events\":2,\"value_sum\":10} | {\"events\":1,\"value_sum\":5}",
            "10:05 | {\"page\":\"/old\"} | DELETE | DUPLICATE_REMOVED | "
                + "{\"events\":1,\"value_sum\":1} | -",
            "10:05 | {} | UPSERT | NEW_WINDOW | - | {\"events\":1,\"value_sum\":1}");
  }

  @Test
  void diffKeepsOldAndNewValuesAsStructsOfTheMeasures() {
    StructType gold = GOLD;
    Dataset<Row> recomputed =
        spark.createDataFrame(
            List.of(RowFactory.create(t("10:00:00"), t("10:05:00"), "/home", 2L, 12L)), gold);
    Dataset<Row> published =
        spark.createDataFrame(
            List.of(RowFactory.create(t("10:00:00"), t("10:05:00"), "/home", 1L, 7L)), gold);
    Dataset<Row> diff = Corrections.diff(recomputed, published, PAGE_5M);
    StructType values =
        new StructType().add("events", DataTypes.LongType).add("value_sum", DataTypes.LongType);
    assertThat(diff.schema().apply("old_values").dataType()).isEqualTo(values);
    assertThat(diff.schema().apply("new_values").dataType()).isEqualTo(values);
    assertThat(
            strings(
                diff,
                "concat_ws(' ', old_values.events, old_values.value_sum, new_values.events, "
                    + "new_values.value_sum)"))
        .containsExactly("1 7 2 12");
  }

  @Test
  void aNullMeasureIsWrittenAsNullInTheLogsJsonNotLeftOut() {
    StructType gold = GOLD;
    Dataset<Row> recomputed =
        spark.createDataFrame(
            List.of(RowFactory.create(t("12:05:00"), t("12:10:00"), "home", 2L, null)), gold);
    Dataset<Row> published =
        spark.createDataFrame(
            List.of(RowFactory.create(t("12:05:00"), t("12:10:00"), "home", 1L, null)), gold);
    assertThat(
            Corrections.diff(recomputed, published, PAGE_5M)
                .select(Corrections.asJson("old_values"), Corrections.asJson("new_values"))
                .selectExpr("concat_ws(' -> ', old_values, new_values)")
                .as(org.apache.spark.sql.Encoders.STRING())
                .collectAsList())
        .containsExactly("{\"events\":1,\"value_sum\":null} -> {\"events\":2,\"value_sum\":null}");
  }

  @Test
  void weeklyRollupSumsDaysIntoIsoWeeks() {
    StructType daily =
        new StructType()
            .add("event_date", DataTypes.DateType)
            .add("page", DataTypes.StringType)
            .add("events", DataTypes.LongType)
            .add("value_sum", DataTypes.LongType);
    Dataset<Row> d =
        spark.createDataFrame(
            List.of(
                RowFactory.create(java.sql.Date.valueOf("2024-12-29"), "p", 1L, 2L),
                RowFactory.create(java.sql.Date.valueOf("2024-12-30"), "p", 2L, 3L),
                RowFactory.create(java.sql.Date.valueOf("2025-01-05"), "p", 4L, 5L)),
            daily);
    assertThat(
            strings(
                Rollups.weekly(d, PAGE_5M),
                "concat_ws(' ', week_start, iso_year, iso_week, page, events, value_sum, days)"))
        .containsExactly("2024-12-23 2024 52 p 1 2 1", "2024-12-30 2025 1 p 6 8 2");
  }
}

package io.latelake.correction;

import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.core.metric.LatePolicy;
import io.latelake.core.metric.Measure;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.testing.SparkTestBase;
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
class TransformsTest extends SparkTestBase {
  static final MetricSpec PAGE_5M = new MetricSpec("page_5m", Duration.ofMinutes(5),
      List.of("page"), List.of(new Measure("events", Measure.Function.COUNT, Optional.empty()),
      new Measure("value_sum", Measure.Function.SUM, Optional.of("value"))), LatePolicy.RESTATE);

  static final StructType BRONZE = new StructType()
      .add("event_id", DataTypes.StringType)
      .add("event_time", DataTypes.TimestampType)
      .add("enqueued_time", DataTypes.TimestampType)
      .add("ingested_at", DataTypes.TimestampType)
      .add("kafka_offset", DataTypes.LongType)
      .add("source_file", DataTypes.StringType)
      .add("page", DataTypes.StringType)
      .add("value", DataTypes.LongType)
      .add("error", DataTypes.StringType);

  static Timestamp t(String hhmmss) {
    return Timestamp.from(Instant.parse("2024-05-14T" + hhmmss + "Z"));
  }

  static Row bronze(String id, String eventTime, String enqueued, String page, long value,
      String error) {
    return RowFactory.create(id, eventTime == null ? null : t(eventTime), t(enqueued),
        t(enqueued), null, "f", page, value, error);
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
    Dataset<Row> in = df(
        bronze("a", "12:01:00", "12:01:05", "home", 1, null),
        bronze("a", "12:01:00", "12:40:00", "home", 1, null),
        bronze("b", "12:02:00", "12:30:00", "home", 3, null),
        bronze("b", "12:07:00", "12:02:09", "home", 30, null),
        bronze("c", null, "12:01:06", "home", 2, "MISSING_EVENT_TIME"),
        bronze("d", "13:02:00", "12:03:00", "home", 9, "FUTURE_EVENT_TIME"),
        bronze("e", "12:03:00", "12:03:30", "home", 4, null));
    assertThat(strings(Recompute.exactDedup(Recompute.validEvents(in)),
        "concat_ws(' ', event_id, date_format(enqueued_time, 'HH:mm:ss'), value)"))
        .containsExactly("a 12:01:05 1", "b 12:02:09 30", "e 12:03:30 4");
    assertThat(strings(Recompute.gold(in, PAGE_5M),
        "concat_ws(' ', page, date_format(window_start, 'HH:mm'), events, value_sum)"))
        .containsExactly("home 12:00 2 5", "home 12:05 1 30");
  }

  @Test
  void windowStartMatchesSparksTumblingWindow() {
    Dataset<Row> in = df(bronze("a", "12:04:59", "12:05:00", "p", 1, null),
        bronze("b", "12:05:00", "12:05:00", "p", 1, null));
    assertThat(strings(in.withColumn("ws", Recompute.windowStart(
            org.apache.spark.sql.functions.col("event_time"), Duration.ofMinutes(5))),
        "concat_ws(' ', event_id, date_format(ws, 'HH:mm:ss'))"))
        .containsExactly("a 12:00:00", "b 12:05:00");
  }

  @Test
  void diffReportsOnlyChangedRowsWithTheirReason() {
    StructType gold = new StructType()
        .add("window_start", DataTypes.TimestampType).add("window_end", DataTypes.TimestampType)
        .add("page", DataTypes.StringType).add("events", DataTypes.LongType)
        .add("value_sum", DataTypes.LongType);
    Dataset<Row> recomputed = spark.createDataFrame(List.of(
        RowFactory.create(t("10:00:00"), t("10:05:00"), "/home", 2L, 12L),
        RowFactory.create(t("10:00:00"), t("10:05:00"), "/pricing", 2L, 10L),
        RowFactory.create(t("10:05:00"), t("10:10:00"), "/home", 1L, 5L),
        RowFactory.create(t("10:05:00"), t("10:10:00"), null, 1L, 1L)), gold);
    Dataset<Row> published = spark.createDataFrame(List.of(
        RowFactory.create(t("10:00:00"), t("10:05:00"), "/home", 1L, 7L),
        RowFactory.create(t("10:00:00"), t("10:05:00"), "/pricing", 2L, 10L),
        RowFactory.create(t("10:05:00"), t("10:10:00"), "/home", 2L, 10L),
        RowFactory.create(t("10:05:00"), t("10:10:00"), "/old", 1L, 1L)), gold);
    assertThat(strings(Corrections.diff(recomputed, published, PAGE_5M),
        "concat_ws(' | ', date_format(window_start, 'HH:mm'), keys, _action, reason, "
            + "coalesce(old_values, '-'), coalesce(new_values, '-'))"))
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
  void weeklyRollupSumsDaysIntoIsoWeeks() {
    StructType daily = new StructType().add("event_date", DataTypes.DateType)
        .add("page", DataTypes.StringType).add("events", DataTypes.LongType)
        .add("value_sum", DataTypes.LongType);
    Dataset<Row> d = spark.createDataFrame(List.of(
        RowFactory.create(java.sql.Date.valueOf("2024-12-29"), "p", 1L, 2L),
        RowFactory.create(java.sql.Date.valueOf("2024-12-30"), "p", 2L, 3L),
        RowFactory.create(java.sql.Date.valueOf("2025-01-05"), "p", 4L, 5L)), daily);
    assertThat(strings(Rollups.weekly(d, PAGE_5M),
        "concat_ws(' ', week_start, iso_year, iso_week, page, events, value_sum, days)"))
        .containsExactly("2024-12-23 2024 52 p 1 2 1", "2024-12-30 2025 1 p 6 8 2");
  }

  @Test
  void statusIsRestatedSettledOrProvisionalFromWallClock() {
    StructType s = new StructType().add("window_end", DataTypes.TimestampType)
        .add("corrected_at", DataTypes.TimestampType).add("id", DataTypes.StringType);
    Dataset<Row> g = spark.createDataFrame(List.of(
        RowFactory.create(t("10:05:00"), t("11:00:00"), "corrected"),
        RowFactory.create(t("10:05:00"), null, "old"),
        RowFactory.create(t("10:50:00"), null, "recent")), s);
    Dataset<Row> out = g.withColumn("status", GoldStatus.status(
        org.apache.spark.sql.functions.lit(t("11:05:00")), Duration.ofHours(1)));
    assertThat(strings(out, "concat_ws(' ', id, status)"))
        .containsExactly("corrected restated", "old settled", "recent provisional");
  }
}

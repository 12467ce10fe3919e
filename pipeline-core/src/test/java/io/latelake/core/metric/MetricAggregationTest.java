package io.latelake.core.metric;

import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.core.testing.SparkTestBase;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** Windowed metric rows from a few static silver rows, without I/O. */
class MetricAggregationTest extends SparkTestBase {
  private static final StructType SILVER =
      StructType.fromDDL(
          "event_id STRING, " + "event_time TIMESTAMP, page STRING, value BIGINT, amount DOUBLE");
  private static final MetricSpec PAGE_5M =
      new MetricSpec(
          "page_5m",
          Duration.ofMinutes(5),
          List.of("page"),
          List.of(
              new Measure("views", Measure.Function.COUNT, Optional.empty()),
              new Measure("total", Measure.Function.SUM, Optional.of("value")),
              new Measure("spent", Measure.Function.SUM, Optional.of("amount")),
              new Measure("lo", Measure.Function.MIN, Optional.of("value")),
              new Measure("hi", Measure.Function.MAX, Optional.of("value"))),
          LatePolicy.RESTATE);

  @Test
  void tumblingWindowsPerGroupWithEveryMeasureAndNullAsAGroup() {
    Dataset<Row> out = MetricAggregation.aggregate(silver(), PAGE_5M);

    assertThat(out.schema().simpleString())
        .isEqualTo(
            "struct<window_start:timestamp,"
                + "window_end:timestamp,page:string,views:bigint,total:decimal(38,0),spent:double,lo:bigint,"
                + "hi:bigint>");
    assertThat(rows(out))
        .containsExactlyInAnyOrder(
            "10:00-10:05 home 2 8 3.0 3 5",
            "10:05-10:10 home 1 1 0.5 1 1",
            "10:00-10:05 null 2 6 2.5 2 4");
  }

  @Test
  void theWatermarkDoesNotChangeABatchAggregation() {
    assertThat(
            rows(
                MetricAggregation.aggregate(
                    silver().withWatermark("event_time", "10 seconds"), PAGE_5M)))
        .containsExactlyInAnyOrder(
            "10:00-10:05 home 2 8 3.0 3 5",
            "10:05-10:10 home 1 1 0.5 1 1",
            "10:00-10:05 null 2 6 2.5 2 4");
  }

  @Test
  void anAverageIsItsSumOverItsNonNullCountAndNullWhenEveryValueIsNull() {
    MetricSpec avg =
        new MetricSpec(
            "avg_5m",
            Duration.ofMinutes(5),
            List.of("page"),
            List.of(
                new Measure("views", Measure.Function.COUNT, Optional.empty()),
                new Measure("mean", Measure.Function.AVG, Optional.of("value")),
                new Measure("mean_sum", Measure.Function.SUM, Optional.of("value")),
                new Measure("mean_count", Measure.Function.COUNT, Optional.of("value"))),
            LatePolicy.RESTATE);
    Dataset<Row> in =
        silver()
            .selectExpr(
                "event_id",
                "event_time",
                "page",
                "CASE WHEN event_id IN ('a', 'c', 'e') THEN NULL ELSE value END AS value");
    List<String> rows = new ArrayList<>();
    for (Row r : MetricAggregation.aggregate(in, avg).collectAsList()) {
      rows.add(
          hhmm(r.getTimestamp(0))
              + " "
              + r.get(2)
              + " "
              + r.get(3)
              + " "
              + r.get(4)
              + " "
              + r.get(5)
              + " "
              + r.get(6));
    }
    assertThat(rows)
        .containsExactlyInAnyOrder(
            "10:00 home 2 5.0 5 1", "10:05 home 1 null null 0", "10:00 null 2 2.0 2 1");
  }

  @Test
  void withoutGroupByOneRowPerWindow() {
    MetricSpec all =
        new MetricSpec(
            "all_10m",
            Duration.ofMinutes(10),
            List.of(),
            List.of(new Measure("events", Measure.Function.COUNT, Optional.empty())),
            LatePolicy.RESTATE);
    List<String> rows = new ArrayList<>();
    for (Row r : MetricAggregation.aggregate(silver(), all).collectAsList()) {
      rows.add(hhmm(r.getTimestamp(0)) + "-" + hhmm(r.getTimestamp(1)) + " " + r.getLong(2));
    }
    assertThat(rows).containsExactly("10:00-10:10 5");
  }

  private Dataset<Row> silver() {
    return spark.createDataFrame(
        Arrays.asList(
            event("a", "10:01:00", "home", 3, 1.0),
            event("b", "10:04:59.999", "home", 5, 2.0),
            event("c", "10:05:00", "home", 1, 0.5),
            event("d", "10:02:00", null, 2, 1.5),
            event("e", "10:03:00", null, 4, 1.0)),
        SILVER);
  }

  private static Row event(String id, String time, String page, long value, double amount) {
    return RowFactory.create(
        id, Timestamp.from(Instant.parse("2024-05-14T" + time + "Z")), page, value, amount);
  }

  private static List<String> rows(Dataset<Row> out) {
    List<String> rows = new ArrayList<>();
    for (Row r : out.collectAsList()) {
      rows.add(
          hhmm(r.getTimestamp(0))
              + "-"
              + hhmm(r.getTimestamp(1))
              + " "
              + r.getString(2)
              + " "
              + r.getLong(3)
              + " "
              + r.getDecimal(4)
              + " "
              + r.getDouble(5)
              + " "
              + r.getLong(6)
              + " "
              + r.getLong(7));
    }
    return rows;
  }

  private static String hhmm(Timestamp t) {
    return t.toInstant().toString().substring(11, 16);
  }
}

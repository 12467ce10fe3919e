package io.latelake.profiler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.latelake.core.testing.SparkTestBase;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** Expected completeness and status over gold rows. */
class CompletenessViewTest extends SparkTestBase {
  private static final StructType GOLD =
      new StructType()
          .add("window_start", DataTypes.TimestampType)
          .add("window_end", DataTypes.TimestampType)
          .add("page", DataTypes.StringType)
          .add("views", DataTypes.LongType)
          .add("updated_at", DataTypes.TimestampType)
          .add("corrected_at", DataTypes.TimestampType);

  @Test
  void addsAgeCompletenessAndASimpleStatus() {
    LatenessCdf cdf = new LatenessCdf(new double[] {0, 0.5, 1.0}, new double[] {0, 60, 600});
    List<Row> gold =
        List.of(
            RowFactory.create(
                Fixtures.ts("2024-05-14T12:00:00Z"),
                Fixtures.ts("2024-05-14T12:05:00Z"),
                "home",
                3L,
                null,
                null),
            RowFactory.create(
                Fixtures.ts("2024-05-14T11:00:00Z"),
                Fixtures.ts("2024-05-14T11:05:00Z"),
                "home",
                4L,
                null,
                Fixtures.ts("2024-05-14T12:00:00Z")),
            RowFactory.create(
                Fixtures.ts("2024-05-13T12:00:00Z"),
                Fixtures.ts("2024-05-13T12:05:00Z"),
                "home",
                5L,
                null,
                null));
    Instant now = Instant.parse("2024-05-14T12:05:00Z");
    List<Row> out =
        CompletenessView.over(spark.createDataFrame(gold, GOLD), cdf, now, Duration.ofHours(2))
            .orderBy("window_start")
            .collectAsList();
    assertThat(out)
        .extracting(
            r -> r.getAs("views"),
            r -> r.getAs("age_s"),
            r -> r.getAs("expected_completeness"),
            r -> r.getAs("status"))
        .containsExactly(
            tuple(5L, 86400.0, 1.0, "settled"),
            tuple(4L, 3600.0, 1.0, "restated"),
            tuple(3L, 0.0, cdf.windowCompleteness(0, 300), "provisional"));
    // a window seen at its end: events (k + 0.5) / 32 * 300 s old, F = 0.5 + 0.5 (a - 60) / 540
    // above 60 s and a / 120 below; the mean over the 32 midpoints is 0.5390625
    assertThat(cdf.windowCompleteness(0, 300))
        .isCloseTo(0.5390625, org.assertj.core.data.Offset.offset(1e-12));
  }
}

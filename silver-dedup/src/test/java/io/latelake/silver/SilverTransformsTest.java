package io.latelake.silver;

import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.core.testing.SparkTestBase;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Silver's pure functions on a few static bronze rows. {@code dropDuplicatesWithinWatermark} exists
 * only on streams, so {@link SilverTransforms#dedup} reads the rows as a file stream, one
 * available-now run per micro-batch of input, on one checkpoint.
 */
class SilverTransformsTest extends SparkTestBase {
  private static final StructType BRONZE =
      StructType.fromDDL(
          "event_id STRING, "
              + "event_time TIMESTAMP, enqueued_time TIMESTAMP, timestamp_type INT, "
              + "ingested_at TIMESTAMP, source STRING, payload STRING, page STRING, error STRING");

  @TempDir Path tmp;

  @Test
  void validRowsOnceEachWithLatenessAndRowsBehindTheWatermarkDropped() throws Exception {
    long first =
        run(
            bronze("a", "10:00:00", "10:00:01.5", "home", null),
            bronze("a", "10:00:00", "10:00:01.5", "home", null),
            bronze("b", "10:00:02", "10:00:01.75", "cart", null),
            bronze("c", "10:00:03", "10:00:03.000001", null, null),
            bronze("d", "10:00:04", "10:00:05", "home", "MALFORMED"),
            bronze("e", "11:00:00", "10:00:05", "home", "FUTURE_EVENT_TIME"));
    // The watermark is now 10:00:03 - 1 minute: the erroneous 11:00 row did not move it.
    long second =
        run(
            bronze("a", "10:00:00", "10:01:00", "home", null),
            bronze("f", "09:58:00", "10:01:00", "home", null),
            bronze("g", "10:00:10", "10:01:00", "cart", null));

    Dataset<Row> silver = spark.read().format("delta").load(tmp + "/silver");
    assertThat(silver.columns())
        .containsExactly(
            "event_id",
            "event_time",
            "enqueued_time",
            "timestamp_type",
            "ingested_at",
            "source",
            "page",
            "lateness_s");
    List<String> rows = new ArrayList<>();
    for (Row r : silver.collectAsList()) {
      rows.add(
          r.getString(0)
              + " "
              + r.getTimestamp(1).toInstant()
              + " "
              + r.getTimestamp(2).toInstant()
              + " "
              + r.getInt(3)
              + " "
              + r.getString(5)
              + " "
              + r.getString(6)
              + " "
              + r.getDouble(7));
    }
    assertThat(rows)
        .containsExactlyInAnyOrder(
            "a 2024-05-14T10:00:00Z 2024-05-14T10:00:01.500Z 1 web home 1.5",
            "b 2024-05-14T10:00:02Z 2024-05-14T10:00:01.750Z 1 web cart -0.25",
            "c 2024-05-14T10:00:03Z 2024-05-14T10:00:03.000001Z 1 web null 1.0E-6",
            "g 2024-05-14T10:00:10Z 2024-05-14T10:01:00Z 1 web cart 50.0");
    assertThat(List.of(first, second)).containsExactly(0L, 1L);
  }

  @Test
  void theWatermarkDelayIsGivenToSparkInMilliseconds() {
    assertThat(SilverTransforms.interval(Duration.ofMinutes(2))).isEqualTo("120000 milliseconds");
    assertThat(SilverTransforms.interval(Duration.ofMillis(100))).isEqualTo("100 milliseconds");
  }

  /**
   * Lands {@code rows} as one file and runs dedup (1 minute watermark) over what is new into {@code
   * silver}.
   *
   * @return rows dropped by the watermark in this run
   */
  private long run(Row... rows) throws Exception {
    spark
        .createDataFrame(Arrays.asList(rows), BRONZE)
        .coalesce(1)
        .write()
        .mode("append")
        .parquet(tmp + "/bronze");
    Dataset<Row> bronze = spark.readStream().schema(BRONZE).parquet(tmp + "/bronze");
    StreamingQuery q =
        SilverTransforms.dedup(bronze, Duration.ofMinutes(1), List.of("page"))
            .writeStream()
            .format("delta")
            .outputMode("append")
            .option("checkpointLocation", tmp + "/checkpoint")
            .trigger(Trigger.AvailableNow())
            .start(tmp + "/silver");
    q.awaitTermination();
    long dropped = 0;
    for (StreamingQueryProgress p : q.recentProgress()) {
      for (var op : p.stateOperators()) {
        dropped += op.numRowsDroppedByWatermark();
      }
    }
    return dropped;
  }

  private static Row bronze(
      String id, String eventTime, String enqueued, String page, String error) {
    return RowFactory.create(
        id, ts(eventTime), ts(enqueued), 1, ts("10:10:00"), "web", "{}", page, error);
  }

  private static Timestamp ts(String time) {
    return Timestamp.from(Instant.parse("2024-05-14T" + time + "Z"));
  }
}

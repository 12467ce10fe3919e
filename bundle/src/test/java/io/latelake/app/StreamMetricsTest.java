package io.latelake.app;

import static io.latelake.app.LakeFixture.event;
import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import io.latelake.core.metrics.StreamMetrics;
import io.latelake.core.testing.SparkTestBase;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.SparkEnv;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * latelake's stream figures in Spark's metrics system ({@link StreamMetrics}): after three lock
 * steps of the fast path, one with a row behind the watermark and one with a duplicate, each
 * query's counters equal the sums of its rows in {@code monitoring.stream_progress}, and its
 * watermark gauge the last watermark recorded.
 */
class StreamMetricsTest extends SparkTestBase {
  @TempDir Path tmp;

  @Test
  void theSourceCountsWhatStreamProgressRecords() {
    StreamMetrics metrics = StreamMetrics.install(spark);
    try {
      assertThat(
              scala.jdk.javaapi.CollectionConverters.asJava(
                      SparkEnv.get().metricsSystem().getSourcesByName(StreamMetrics.SOURCE_NAME))
                  .size())
          .isEqualTo(1);
      LakeFixture f = new LakeFixture(tmp.resolve("lake"));
      try (FastPath fast = new FastPath(spark, f.config)) {
        f.land(
            event("a", "2024-05-14T12:20:00Z", "2024-05-14T12:20:01Z", "p", 1),
            event("b", "2024-05-14T12:21:00Z", "2024-05-14T12:21:01Z", "p", 2));
        fast.step();
        // c is behind the watermark 12:11 (dropped), a is a duplicate, the third is quarantined
        f.land(
            event("c", "2024-05-14T12:02:00Z", "2024-05-14T12:22:00Z", "p", 4),
            event("a", "2024-05-14T12:20:00Z", "2024-05-14T12:22:01Z", "p", 1),
            "{not json");
        fast.step();
        f.land(event("d", "2024-05-14T12:40:00Z", "2024-05-14T12:40:01Z", "q", 2));
        fast.step();
      }
      MetricRegistry r = metrics.metricRegistry();
      List<Row> progress =
          spark
              .read()
              .format("delta")
              .load(f.root + "/monitoring/stream_progress")
              .groupBy("query_name")
              .agg(
                  org.apache.spark.sql.functions.count("*"),
                  org.apache.spark.sql.functions.sum("input_rows"),
                  org.apache.spark.sql.functions.sum("rows_dropped_by_watermark"),
                  org.apache.spark.sql.functions.sum("rows_dropped_duplicates"),
                  org.apache.spark.sql.functions.max("watermark"),
                  org.apache.spark.sql.functions.sum("rows_quarantined"))
              .orderBy("query_name")
              .collectAsList();
      assertThat(progress.stream().map(p -> p.getString(0)).toList())
          .containsExactly("bronze_web", "gold_page_5m", "silver_events");
      for (Row p : progress) {
        String q = p.getString(0) + ".";
        assertThat(r.counter(q + "batches").getCount()).as(q).isEqualTo(p.getLong(1));
        assertThat(r.counter(q + "input_rows").getCount()).as(q).isEqualTo(p.getLong(2));
        assertThat(r.counter(q + "rows_dropped_by_watermark").getCount())
            .as(q)
            .isEqualTo(p.getLong(3));
        assertThat(r.counter(q + "rows_dropped_duplicates").getCount())
            .as(q)
            .isEqualTo(p.isNullAt(4) ? 0 : p.getLong(4));
        assertThat(r.counter(q + "rows_quarantined").getCount())
            .as(q)
            .isEqualTo(p.isNullAt(6) ? 0 : p.getLong(6));
        double watermark = p.isNullAt(5) ? 0 : p.getTimestamp(5).getTime() / 1000.0;
        assertThat(r.getGauges().get(q + "watermark_seconds").getValue())
            .as(q)
            .isEqualTo(watermark);
      }
      // the figures themselves: 6 records read by bronze, 1 of them quarantined, 1 dropped and 1
      // duplicate in silver
      assertThat(r.counter("bronze_web.input_rows").getCount()).isEqualTo(6);
      assertThat(r.counter("bronze_web.rows_quarantined").getCount()).isEqualTo(1);
      assertThat(r.counter("silver_events.rows_dropped_by_watermark").getCount()).isEqualTo(1);
      assertThat(r.counter("silver_events.rows_dropped_duplicates").getCount()).isEqualTo(1);
      assertThat(r.getGauges().get("silver_events.watermark_seconds").getValue())
          .isEqualTo(java.time.Instant.parse("2024-05-14T12:30:00Z").getEpochSecond() + 0.0);
      // the watermark's lag behind the latest enqueued time (d, 12:40:01): 601 s
      assertThat(r.getGauges().get("arrivals.latest_enqueued_seconds").getValue())
          .isEqualTo(java.time.Instant.parse("2024-05-14T12:40:01Z").getEpochSecond() + 0.0);
      assertThat(r.getGauges().get("silver_events.watermark_lag_seconds").getValue())
          .isEqualTo(601.0);
      assertThat(r.getGauges().get("gold_page_5m.watermark_lag_seconds").getValue())
          .isEqualTo(601.0);
      assertThat(r.getGauges().get("bronze_web.latest_enqueued_seconds").getValue())
          .isEqualTo(java.time.Instant.parse("2024-05-14T12:40:01Z").getEpochSecond() + 0.0);
    } finally {
      metrics.uninstall(spark);
    }
  }
}

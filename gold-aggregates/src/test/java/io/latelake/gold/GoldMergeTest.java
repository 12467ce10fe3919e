package io.latelake.gold;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.typesafe.config.Config;
import io.delta.tables.DeltaTable;
import io.latelake.core.config.ConfigLoader;
import io.latelake.core.metric.GoldLayout;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.metric.Metrics;
import io.latelake.core.streaming.MicroBatchCommits;
import io.latelake.core.table.DeltaTables;
import io.latelake.core.testing.SparkTestBase;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One micro-batch of windowed aggregates MERGEd into {@code gold.<metric>}: new keys inserted, a
 * changed measure updated (and stamped), an unchanged one left with its {@code updated_at}, a NULL
 * group-by value matched null-safe, a replayed batch id skipped (by this JVM's record, and after a
 * restart by the commit's marker), and a no-data micro-batch committing nothing.
 */
class GoldMergeTest extends SparkTestBase {
  @TempDir Path tmp;

  private static final String SELECT =
      "SELECT CAST(ws AS TIMESTAMP) AS window_start,"
          + " CAST(ws AS TIMESTAMP) + INTERVAL 5 MINUTES AS window_end, page, events, value_sum"
          + " FROM VALUES ";

  private Dataset<Row> batch(String values) {
    return spark.sql(SELECT + values + " AS t(ws, page, events, value_sum)");
  }

  private List<Row> gold(String path) {
    return spark
        .read()
        .format("delta")
        .load(path)
        .orderBy("window_start", "page")
        .select("window_start", "page", "events", "value_sum", "updated_at", "corrected_at")
        .collectAsList();
  }

  private long version(String path) {
    return DeltaTable.forPath(spark, path).history(1).select("version").first().getLong(0);
  }

  @Test
  void aMicroBatchIsMergedOnceByKeyAndOnlyChangedRowsAreStamped() throws Exception {
    Config config =
        ConfigLoader.load(
            Optional.empty(),
            List.of(
                "lake.root=\"" + tmp + "\"",
                "lake.event.fields=[{name=page, type=string}, {name=value, type=long}]",
                "lake.gold.metrics={page_5m={window=\"5 minutes\", group-by=[page], measures=["
                    + "{name=events, function=count}, {name=value_sum, function=sum, column=value}]}}"));
    MetricSpec metric = Metrics.fromConfig(config).get(0);
    String path = tmp.resolve("gold").toString();
    Dataset<Row> first =
        batch(
            "('2024-05-14 12:00:00', 'p', 2L, 3L), ('2024-05-14 12:00:00', NULL, 1L, 1L),"
                + " ('2024-05-14 12:05:00', 'q', 1L, 5L)");
    DeltaTables.createIfNotExists(
        spark, path, GoldLayout.tableSchema(first.schema()), List.of(), Map.of());

    GoldMerge.merge(first, 0, path, metric);
    List<Row> afterFirst = gold(path);
    assertThat(afterFirst)
        .extracting(r -> r.get(1), r -> r.getLong(2), r -> r.get(3).toString())
        .containsExactly(tuple(null, 1L, "1"), tuple("p", 2L, "3"), tuple("q", 1L, "5"));
    assertThat(afterFirst).allSatisfy(r -> assertThat(r.isNullAt(4)).isFalse());
    assertThat(afterFirst).allSatisfy(r -> assertThat(r.isNullAt(5)).isTrue());
    Timestamp stamped = afterFirst.get(0).getTimestamp(4);

    // the same batch id again (a replay after a crash), other values: skipped
    long before = version(path);
    GoldMerge.merge(batch("('2024-05-14 12:00:00', 'p', 9L, 9L)"), 0, path, metric);
    assertThat(version(path)).isEqualTo(before);
    assertThat(gold(path)).isEqualTo(afterFirst);
    // the same after a restart: the new JVM finds batch 0 in the marker of the table's last commit
    MicroBatchCommits.forgetAll();
    GoldMerge.merge(batch("('2024-05-14 12:00:00', 'p', 9L, 9L)"), 0, path, metric);
    assertThat(version(path)).isEqualTo(before);
    assertThat(gold(path)).isEqualTo(afterFirst);
    assertThat(
            DeltaTable.forPath(spark, path)
                .history(1)
                .select("userMetadata")
                .as(org.apache.spark.sql.Encoders.STRING())
                .first())
        .isEqualTo("{\"latelake_writer\":\"latelake-gold_page_5m\",\"micro_batch\":0}");

    // the next batch: p changes, the NULL page's row comes again unchanged, r is new
    Thread.sleep(5);
    GoldMerge.merge(
        batch(
            "('2024-05-14 12:00:00', 'p', 3L, 7L), ('2024-05-14 12:00:00', NULL, 1L, 1L),"
                + " ('2024-05-14 12:10:00', 'r', 1L, 2L)"),
        1,
        path,
        metric);
    List<Row> afterSecond = gold(path);
    assertThat(afterSecond)
        .extracting(r -> r.get(1), r -> r.getLong(2), r -> r.get(3).toString())
        .containsExactly(
            tuple(null, 1L, "1"), tuple("p", 3L, "7"), tuple("q", 1L, "5"), tuple("r", 1L, "2"));
    // unchanged rows keep their updated_at; the changed one is stamped again
    assertThat(afterSecond.get(0).getTimestamp(4)).isEqualTo(stamped);
    assertThat(afterSecond.get(2).getTimestamp(4)).isEqualTo(afterFirst.get(2).getTimestamp(4));
    assertThat(afterSecond.get(1).getTimestamp(4)).isAfter(afterFirst.get(1).getTimestamp(4));

    // a no-data micro-batch: no commit
    before = version(path);
    GoldMerge.merge(first.limit(0), 2, path, metric);
    assertThat(version(path)).isEqualTo(before);
  }
}

package io.latelake.correction.shared;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latelake.core.metric.GoldLayout;
import io.latelake.core.table.DeltaRetry;
import io.latelake.core.table.DeltaTables;
import io.latelake.core.testing.SparkTestBase;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Concurrent commits to one gold table: a conflict is retried (bounded), never failed on the first
 * loss and never duplicated.
 */
class ConcurrentCommitTest extends SparkTestBase {
  @TempDir Path tmp;

  /** A stand-in for ConcurrentAppendException and its siblings (same public base class). */
  static RuntimeException conflict() {
    return new RuntimeException(
        "commit failed",
        new io.delta.exceptions.DeltaConcurrentModificationException("files were added") {});
  }

  @Test
  void aConflictIsRetriedAndTheLastAttemptsFailureNamesTheSetting() {
    AtomicInteger calls = new AtomicInteger();
    String result =
        DeltaRetry.run(
            "test commit",
            3,
            Duration.ofMillis(1),
            () -> {
              if (calls.incrementAndGet() < 3) {
                throw conflict();
              }
              return "done";
            });
    assertThat(result).isEqualTo("done");
    assertThat(calls).hasValue(3);

    assertThatThrownBy(
            () ->
                DeltaRetry.run(
                    "test commit",
                    2,
                    Duration.ofMillis(1),
                    () -> {
                      throw conflict();
                    }))
        .isInstanceOf(io.latelake.core.table.StorageException.class)
        .hasMessageStartingWith(
            "Cannot commit test commit: lost to a concurrent commit 2 times "
                + "(lake.correction.max-commit-attempts = 2)");
    assertThatThrownBy(
            () ->
                DeltaRetry.run(
                    "x",
                    5,
                    Duration.ofMillis(1),
                    () -> {
                      throw new IllegalStateException("not a conflict");
                    }))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void twoWritersMergingIntoOneGoldTableAtOnceBothLandExactlyOnce() throws Exception {
    String path = tmp.resolve("gold").toString();
    StructType agg = TransformsTest.GOLD;
    DeltaTables.createIfNotExists(spark, path, GoldLayout.tableSchema(agg), List.of(), Map.of());
    StructType corr = agg.add("_action", DataTypes.StringType);
    GoldWriter writer = new GoldWriter(20, Duration.ofMillis(50));
    Timestamp at = Timestamp.from(Instant.parse("2024-05-15T00:00:00Z"));
    ExecutorService pool = Executors.newFixedThreadPool(2);
    List<Future<?>> done = new ArrayList<>();
    for (String page : List.of("a", "b")) {
      done.add(
          pool.submit(
              () -> {
                for (int i = 0; i < 4; i++) {
                  Timestamp ws =
                      Timestamp.from(Instant.parse("2024-05-14T10:00:00Z").plusSeconds(300L * i));
                  Dataset<Row> one =
                      spark.createDataFrame(
                          List.of(
                              RowFactory.create(
                                  ws,
                                  new Timestamp(ws.getTime() + 300_000),
                                  page,
                                  1L + i,
                                  10L * i,
                                  "UPSERT")),
                          corr);
                  writer.restate(
                      one,
                      path,
                      TransformsTest.PAGE_5M,
                      at,
                      TouchedWindows.of(one, TransformsTest.PAGE_5M.window()));
                }
              }));
    }
    for (Future<?> f : done) {
      f.get();
    }
    pool.shutdown();
    List<String> rows =
        spark
            .read()
            .format("delta")
            .load(path)
            .selectExpr(
                "concat_ws(' ', page, date_format(window_start, 'HH:mm'), events, value_sum)")
            .as(Encoders.STRING())
            .collectAsList()
            .stream()
            .sorted()
            .toList();
    assertThat(rows)
        .containsExactly(
            "a 10:00 1 0",
            "a 10:05 2 10",
            "a 10:10 3 20",
            "a 10:15 4 30",
            "b 10:00 1 0",
            "b 10:05 2 10",
            "b 10:10 3 20",
            "b 10:15 4 30");
  }
}

package io.latelake.core.streaming;

import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.core.streaming.MicroBatchCommits.Decision;
import io.latelake.core.testing.SparkTestBase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Encoders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a micro-batch's write is decided: from what this JVM settled, else from the newest marker of
 * the writer in the table's history, else by Delta's own transaction identifiers.
 */
class MicroBatchCommitsTest extends SparkTestBase {
  @TempDir Path tmp;

  /** Appends one row to {@code path}, the commit's userMetadata {@code metadata} (null: none). */
  private void commit(String path, String metadata) {
    var w = spark.createDataset(List.of(1L), Encoders.LONG()).toDF("value").write().format("delta");
    if (metadata != null) {
      w = w.option("userMetadata", metadata);
    }
    w.mode("append").save(path);
  }

  @Test
  void whatTheJvmSettledDecidesWithoutTheTableAndAnUnsettledWriteIsForgotten() {
    String path = tmp.resolve("never-written").toString();
    List<Decision> seen = new ArrayList<>();
    MicroBatchCommits.settled(path, "w", 5);
    seen.add(MicroBatchCommits.before(spark, path, "w", 6)); // the next one: written blind
    seen.add(MicroBatchCommits.before(spark, path, "w", 6)); // not settled since: look
    MicroBatchCommits.settled(path, "w", 7);
    seen.add(MicroBatchCommits.before(spark, path, "w", 7)); // settled: skipped
    MicroBatchCommits.settled(path, "w", 8);
    seen.add(MicroBatchCommits.before(spark, path, "w", 10)); // a gap: look
    seen.add(MicroBatchCommits.before(spark, path, "other", 0)); // another writer: look

    assertThat(seen)
        .containsExactly(
            Decision.WRITE,
            Decision.WRITE_CHECKED_BY_DELTA,
            Decision.SKIP,
            Decision.WRITE_CHECKED_BY_DELTA,
            Decision.WRITE_CHECKED_BY_DELTA);
  }

  @Test
  void afterARestartTheWritersNewestMarkerInTheHistoryDecides() {
    String path = tmp.resolve("marked").toString();
    commit(path, null);
    commit(path, MicroBatchCommits.marker("w", 2));
    commit(path, MicroBatchCommits.marker("w", 3));
    commit(path, MicroBatchCommits.marker("other", 9));
    commit(path, "not a marker, though it says \"latelake_writer\":\"w\"");
    commit(path, "{\"latelake_writer\":\"w2\",\"micro_batch\":50}");
    commit(path, null);
    MicroBatchCommits.forgetAll();

    assertThat(
            List.of(
                MicroBatchCommits.before(spark, path, "w", 2),
                MicroBatchCommits.before(spark, path, "w", 3),
                MicroBatchCommits.before(spark, path, "w", 4),
                MicroBatchCommits.before(spark, path, "other", 10),
                MicroBatchCommits.before(spark, path, "x", 0)))
        .containsExactly(
            Decision.SKIP,
            Decision.SKIP,
            Decision.WRITE,
            Decision.WRITE,
            Decision.WRITE_CHECKED_BY_DELTA);
    assertThat(MicroBatchCommits.marker("w", 4))
        .isEqualTo("{\"latelake_writer\":\"w\",\"micro_batch\":4}");
  }
}

package io.latelake.core.streaming;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.tables.DeltaTable;
import io.latelake.core.testing.SparkTestBase;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The progress writer's compaction of small files: every row stays exactly once, and a compacted
 * file that has reached the bound is not rewritten again.
 */
class ProgressWriterTest extends SparkTestBase {
  @TempDir Path tmp;

  private static final UUID QUERY = UUID.fromString("00000000-0000-0000-0000-000000000001");

  private static Row row(long batch) {
    Object[] v = new Object[StreamProgressTable.SCHEMA.size()];
    v[0] = "silver_events";
    v[1] = QUERY.toString();
    v[3] = batch;
    v[4] = Timestamp.from(Instant.parse("2024-05-14T10:00:00Z").plusSeconds(batch));
    v[5] = batch * 10;
    return RowFactory.create(v);
  }

  /** One append per row: each row queued, then flushed. */
  private static void append(ProgressWriter w, long from, long to) {
    for (long b = from; b < to; b++) {
      w.enqueue(QUERY, List.of(row(b)), b);
      w.flush();
    }
  }

  private String files(String path) {
    Row d = DeltaTable.forPath(spark, path).detail().first();
    long optimizes =
        DeltaTable.forPath(spark, path).history().filter("operation = 'OPTIMIZE'").count();
    return d.<Long>getAs("numFiles") + " files, " + optimizes + " compactions";
  }

  private List<Long> batches(String path) {
    return spark
        .read()
        .format("delta")
        .load(path)
        .orderBy("batch_id")
        .select("batch_id")
        .as(Encoders.LONG())
        .collectAsList();
  }

  @Test
  void everyThirdAppendCompactsTheSmallFilesAndAFileAtTheBoundIsLeftAlone() {
    String path = tmp.resolve("progress").toString();
    List<String> seen = new ArrayList<>();
    try (ProgressWriter w = new ProgressWriter(spark, path, true, 3, 1L << 20)) {
      append(w, 0, 2);
      seen.add(files(path));
      append(w, 2, 3);
      seen.add(files(path));
      append(w, 3, 6);
      seen.add(files(path));
    }
    // 2 appends: 2 files; the 3rd: compacted into 1; the 6th: the 3 new ones compacted with it
    assertThat(seen)
        .containsExactly(
            "2 files, 0 compactions", "1 files, 1 compactions", "1 files, 2 compactions");
    // the bound set to the 6-row file's size: it is no longer small
    long compacted = DeltaTable.forPath(spark, path).detail().first().getAs("sizeInBytes");
    try (ProgressWriter w = new ProgressWriter(spark, path, true, 3, compacted)) {
      append(w, 6, 9);
    }
    // the 6-row file kept; the three one-row files compacted into one
    assertThat(files(path)).isEqualTo("2 files, 3 compactions");
    assertThat(
            spark
                .read()
                .format("delta")
                .load(path)
                .filter("batch_id < 6")
                .selectExpr("input_file_name()")
                .distinct()
                .count())
        .isEqualTo(1L);
    assertThat(batches(path)).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
  }
}

package io.latelake.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.core.streaming.Checkpoints;
import java.util.List;
import java.util.stream.LongStream;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.SparkSession;

/** {@code monitoring.stream_progress} holds exactly one row per committed micro-batch. */
final class ProgressAssert {
  private ProgressAssert() {}

  static void exactlyOncePerBatch(SparkSession spark, Object root, List<String> queries) {
    var progress = spark.read().format("delta").load(root + "/monitoring/stream_progress");
    assertThat(progress.select("query_name").distinct().as(Encoders.STRING()).collectAsList())
        .containsExactlyInAnyOrderElementsOf(queries);
    for (String q : queries) {
      long committed =
          new Checkpoints(spark, root + "/_checkpoints/" + q).lastCommitted().getAsLong();
      List<Long> ids =
          progress
              .filter(progress.col("query_name").equalTo(q))
              .select("batch_id")
              .as(Encoders.LONG())
              .collectAsList()
              .stream()
              .sorted()
              .toList();
      assertThat(ids).as(q).isEqualTo(LongStream.rangeClosed(0, committed).boxed().toList());
    }
  }
}

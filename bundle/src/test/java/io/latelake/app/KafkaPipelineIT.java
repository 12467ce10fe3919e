package io.latelake.app;

import static io.latelake.app.LakeFixture.event;
import static io.latelake.app.LakeFixture.goldRows;
import static io.latelake.app.LakeFixture.ids;
import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.core.testing.KafkaBroker;
import io.latelake.core.testing.SparkTestBase;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bronze → silver → gold from a real Kafka broker (KRaft, its own JVM on 127.0.0.1), with malformed
 * records and duplicates, across a restart.
 */
class KafkaPipelineIT extends SparkTestBase {
  @TempDir static Path tmp;

  private static KafkaBroker broker;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = KafkaBroker.start(tmp.resolve("kafka"));
    broker.createTopic("web", 2, true);
    broker.createTopic("legacy", 1, false);
  }

  @AfterAll
  static void stopBroker() {
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void kafkaRecordsFlowThroughEveryLayerExactlyOnce() {
    LakeFixture f =
        new LakeFixture(
            tmp.resolve("lake"),
            "lake.bronze.source=kafka",
            "lake.bronze.kafka.bootstrap-servers=\"" + broker.bootstrapServers() + "\"",
            "lake.bronze.kafka.topics=[web, legacy]");
    FastPath fast = new FastPath(spark, f.config);
    broker.produce(
        "web",
        0,
        List.of(
            event("k1", "2024-05-14T10:01:00Z", "", "/home", 1),
            event("k2", "2024-05-14T10:02:00Z", "", "/home", 2),
            "not json at all",
            event("k1", "2024-05-14T10:01:00Z", "", "/home", 1)));
    broker.produce(
        "web",
        1,
        List.of(
            event("k3", "2024-05-14T10:03:00Z", "", "/pricing", 4),
            "{\"event_time\":\"2024-05-14T10:03:00Z\",\"page\":\"/pricing\",\"value\":9}"));
    broker.produce("legacy", 0, List.of(event("k4", "2024-05-14T10:06:00Z", "", "/home", 8)));
    FastPath.Step first = fast.step();
    assertThat(first.bronze().inputRows()).isEqualTo(7);

    String bronze = f.root + "/bronze/events";
    List<String> rows =
        spark
            .read()
            .format("delta")
            .load(bronze)
            .selectExpr(
                "concat_ws(' ', source, kafka_partition, kafka_offset, timestamp_type, "
                    + "coalesce(event_id, '-'), coalesce(error, 'OK'))")
            .as(Encoders.STRING())
            .collectAsList()
            .stream()
            .sorted()
            .toList();
    assertThat(rows)
        .containsExactly(
            "legacy 0 0 0 k4 OK",
            "web 0 0 1 k1 OK",
            "web 0 1 1 k2 OK",
            "web 0 2 1 - MALFORMED",
            "web 0 3 1 k1 OK",
            "web 1 0 1 k3 OK",
            "web 1 1 1 - MISSING_EVENT_ID");
    Row payload =
        spark
            .read()
            .format("delta")
            .load(bronze)
            .filter("error = 'MALFORMED'")
            .select("payload", "enqueued_time")
            .first();
    assertThat(payload.getString(0)).isEqualTo("not json at all");
    assertThat(payload.get(1)).isNotNull();
    assertThat(ids(spark, f.root + "/silver/events")).containsExactly("k1", "k2", "k3", "k4");
    assertThat(goldRows(spark, f.root + "/gold/page_5m"))
        .containsExactly(
            "/home 2024-05-14T10:00:00Z 2 3",
            "/home 2024-05-14T10:05:00Z 1 8",
            "/pricing 2024-05-14T10:00:00Z 1 4");

    // After a stop, only new records are read; none twice.
    broker.produce("web", 1, List.of(event("k5", "2024-05-14T10:04:00Z", "", "/pricing", 16)));
    FastPath.Step second = fast.step();
    assertThat(second.bronze().inputRows()).isEqualTo(1);
    assertThat(spark.read().format("delta").load(bronze).count()).isEqualTo(8);
    assertThat(
            spark
                .read()
                .format("delta")
                .load(bronze)
                .dropDuplicates("source", "kafka_partition", "kafka_offset")
                .count())
        .isEqualTo(8);
    assertThat(goldRows(spark, f.root + "/gold/page_5m"))
        .containsExactly(
            "/home 2024-05-14T10:00:00Z 2 3",
            "/home 2024-05-14T10:05:00Z 1 8",
            "/pricing 2024-05-14T10:00:00Z 2 20");
  }
}

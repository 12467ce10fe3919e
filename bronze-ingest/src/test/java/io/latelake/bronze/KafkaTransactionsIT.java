package io.latelake.bronze;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import io.latelake.bronze.replay.LandingWriter;
import io.latelake.core.config.ConfigLoader;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.job.JobContext;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.testing.KafkaBroker;
import io.latelake.core.testing.SparkTestBase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.spark.sql.Encoders;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Case C25: a transactional producer against a real broker (KRaft, its own JVM on 127.0.0.1).
 * Transactions A (a1, a2) and C (c1 and a tombstone) are committed, B (b1, b2) is aborted; the
 * three transaction markers take offsets 2, 5 and 8. Bronze reads read_committed by default.
 */
class KafkaTransactionsIT extends SparkTestBase {
  private static final String TOPIC = "c25";

  @TempDir static Path tmp;

  private static KafkaBroker broker;

  @BeforeAll
  static void startBrokerAndProduce() throws Exception {
    broker = KafkaBroker.start(tmp.resolve("kafka"));
    broker.createTopic(TOPIC, 1, true);
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "c25-producer");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      producer.initTransactions();
      producer.beginTransaction();
      send(producer, "c25-a1", event("c25-a1", "12:01:00", "home", 1));
      send(producer, "c25-a2", event("c25-a2", "12:02:00", "home", 2));
      producer.commitTransaction();
      producer.beginTransaction();
      send(producer, "c25-b1", event("c25-b1", "12:03:00", "home", 100));
      send(producer, "c25-b2", event("c25-b2", "12:04:00", "cart", 200));
      producer.flush();
      producer.abortTransaction();
      producer.beginTransaction();
      send(producer, "c25-c1", event("c25-c1", "12:06:00", "home", 4));
      send(producer, "c25-t1", null);
      producer.commitTransaction();
    }
  }

  @AfterAll
  static void stopBroker() {
    if (broker != null) {
      broker.close();
    }
  }

  private static void send(KafkaProducer<String, String> producer, String key, String value)
      throws Exception {
    producer.send(new ProducerRecord<>(TOPIC, 0, key, value)).get();
  }

  private static String event(String id, String time, String page, long value) {
    return "{\"event_id\":\""
        + id
        + "\",\"event_time\":\"2024-05-14T"
        + time
        + "Z\","
        + "\"page\":\""
        + page
        + "\",\"value\":"
        + value
        + "}";
  }

  private static Config config(Path root, String... extra) {
    List<String> sets =
        new ArrayList<>(
            List.of(
                "lake.root=\"" + root + "\"",
                "lake.bronze.source=kafka",
                "lake.bronze.kafka.bootstrap-servers=\"" + broker.bootstrapServers() + "\"",
                "lake.bronze.kafka.topics=[" + TOPIC + "]",
                "lake.event.fields=[{name=page, type=string}, {name=value, type=long}]"));
    sets.addAll(List.of(extra));
    return ConfigLoader.load(Optional.empty(), sets);
  }

  private BronzeJob.Result bronze(Config c) {
    return new BronzeJob(
            JobContext.start(spark, TableRegistry.fromConfig(c)), BronzeConfig.fromConfig(c))
        .run();
  }

  /** "offset event_id valid|error" per bronze row, sorted by offset. */
  private List<String> rows(Path root) {
    return spark
        .read()
        .format("delta")
        .load(root + "/bronze/events")
        .orderBy("kafka_offset")
        .selectExpr(
            "concat_ws(' ', kafka_offset, coalesce(event_id, '-'), "
                + "if(error IS NULL, 'valid', 'error'))")
        .as(Encoders.STRING())
        .collectAsList();
  }

  @Test
  void exactlyTheCommittedRecordsReachBronzeAndMarkerOffsetsAreNoLoss() throws Exception {
    Path root = tmp.resolve("committed");
    BronzeJob.Result r = bronze(config(root));

    assertThat(r.summary().inputRows()).isEqualTo(4);
    assertThat(rows(root))
        .containsExactly("0 c25-a1 valid", "1 c25-a2 valid", "6 c25-c1 valid", "7 - error");
    assertThat(
            spark
                .read()
                .format("delta")
                .load(root + "/bronze/events")
                .where("kafka_offset = 7")
                .selectExpr("payload IS NULL")
                .as(Encoders.BOOLEAN())
                .first())
        .isTrue();
    // failOnDataLoss is on, yet the stream consumed up to offset 9 (9 offsets, 4 records):
    // the gaps at 2, 5 and 8 (markers) and 3-4 (aborted) are not a loss.
    Path offsets = root.resolve("_checkpoints/bronze_events/offsets");
    try (var files = Files.list(offsets)) {
      Path last =
          files
              .filter(f -> f.getFileName().toString().matches("\\d+"))
              .max(
                  java.util.Comparator.comparingLong(
                      f -> Long.parseLong(f.getFileName().toString())))
              .orElseThrow();
      List<String> lines = Files.readAllLines(last);
      assertThat(lines.get(lines.size() - 1)).isEqualTo("{\"c25\":{\"0\":9}}");
    }
  }

  @Test
  void readUncommittedSetByAQuotedKeyReachesKafkaAndReadsTheAbortedRecords() {
    Path root = tmp.resolve("uncommitted");
    bronze(config(root, "lake.bronze.kafka.properties.\"isolation.level\"=read_uncommitted"));

    assertThat(rows(root))
        .containsExactly(
            "0 c25-a1 valid",
            "1 c25-a2 valid",
            "3 c25-b1 valid",
            "4 c25-b2 valid",
            "6 c25-c1 valid",
            "7 - error");
  }

  @Test
  void switchingAFilesRootToKafkaIsRefusedWithTheRemedy() throws Exception {
    Path root = tmp.resolve("switch");
    Config files = filesConfig(root);
    bronze(files);

    assertThatThrownBy(() -> bronze(config(root)))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'kafka' for key 'lake.bronze.source': bronze_events at "
                + root
                + "/bronze/events was written from files by the stream 'bronze_events', "
                + "whose checkpoint tracks files offsets; a stream cannot change its source. Keep "
                + "lake.bronze.source=files, or give the kafka stream a new lake.root.");
    assertThat(spark.read().format("delta").load(root + "/bronze/events").count()).isEqualTo(1);
  }

  @Test
  void switchingAKafkaRootToFilesIsRefusedFromTheCheckpoint() throws Exception {
    Path root = tmp.resolve("switch-back");
    bronze(config(root));
    long rows = spark.read().format("delta").load(root + "/bronze/events").count();
    Config files = filesConfig(root);

    assertThatThrownBy(() -> bronze(files))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'files' for key 'lake.bronze.source': bronze_events at "
                + root
                + "/bronze/events was written from kafka by the stream 'bronze_events', "
                + "whose checkpoint tracks kafka offsets; a stream cannot change its source. Keep "
                + "lake.bronze.source=kafka, or give the files stream a new lake.root.");
    // a1, a2, c1 and the tombstone: the committed records
    assertThat(rows).isEqualTo(4);
    assertThat(spark.read().format("delta").load(root + "/bronze/events").count()).isEqualTo(rows);
  }

  /** A files config for {@code root}, its landing folder holding one event. */
  private static Config filesConfig(Path root) throws Exception {
    new LandingWriter(root.resolve("landing"))
        .writeLines("a.jsonl", List.of(event("f-1", "12:00:00", "home", 1)));
    return config(
        root,
        "lake.bronze.source=files",
        "lake.bronze.files.path=\"" + root.resolve("landing") + "\"");
  }
}

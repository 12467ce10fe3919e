package io.latelake.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Starts the real single-node Kafka broker and round-trips records through it. */
class KafkaBrokerIT {

  @TempDir static Path workDir;

  private static KafkaBroker kafka;

  @BeforeAll
  static void startBroker() throws Exception {
    kafka = KafkaBroker.start(workDir);
  }

  @AfterAll
  static void stopBroker() {
    if (kafka != null) {
      kafka.close();
      kafka.close(); // idempotent
    }
  }

  @Test
  void bootstrapServersIsLoopbackOnly() {
    assertThat(kafka.bootstrapServers()).matches("127\\.0\\.0\\.1:\\d+");
    assertThat(kafka.logFile()).exists();
  }

  @Test
  void logAppendTimeTopicRoundTripsRecordsOnOnePartition() {
    kafka.createTopic("lat", 2, true);
    long before = System.currentTimeMillis();
    kafka.produce("lat", 0, List.of("one", "two", "three"));

    List<ConsumerRecord<String, String>> records = consumeAll(new TopicPartition("lat", 0), 3);

    assertThat(records).extracting(ConsumerRecord::value).containsExactly("one", "two", "three");
    assertThat(records).extracting(ConsumerRecord::partition).containsOnly(0);
    assertThat(records).extracting(ConsumerRecord::offset).containsExactly(0L, 1L, 2L);
    assertThat(records)
        .extracting(ConsumerRecord::timestampType)
        .containsOnly(TimestampType.LOG_APPEND_TIME);
    assertThat(records)
        .allSatisfy(r -> assertThat(r.timestamp()).isGreaterThanOrEqualTo(before - 1000));
    assertThat(consumeAll(new TopicPartition("lat", 1), 0)).isEmpty();
  }

  @Test
  void createTimeTopicIsDescribedAsCreateTime() throws Exception {
    kafka.createTopic("ct", 1, false);
    kafka.produce("ct", List.of("x"));

    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, "ct");
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    try (Admin admin = Admin.create(props)) {
      Map<ConfigResource, Config> configs = admin.describeConfigs(List.of(resource)).all().get();
      assertThat(configs.get(resource).get("message.timestamp.type").value())
          .isEqualTo("CreateTime");
    }
    assertThat(consumeAll(new TopicPartition("ct", 0), 1))
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.value()).isEqualTo("x");
              assertThat(r.timestampType()).isEqualTo(TimestampType.CREATE_TIME);
            });
  }

  /**
   * Reads a partition from the beginning until {@code expected} records arrived (or 30 s passed).
   */
  private static List<ConsumerRecord<String, String>> consumeAll(
      TopicPartition partition, int expected) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    List<ConsumerRecord<String, String>> records = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
      consumer.assign(List.of(partition));
      consumer.seekToBeginning(List.of(partition));
      long end = consumer.endOffsets(List.of(partition), Duration.ofSeconds(30)).get(partition);
      assertThat(end).isEqualTo(expected);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (records.size() < expected && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(500)).records(partition).forEach(records::add);
      }
    }
    return records;
  }
}

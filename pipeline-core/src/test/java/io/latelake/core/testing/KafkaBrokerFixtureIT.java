package io.latelake.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker fixture itself, whichever implementation {@code latelake.kafka.broker} selects: start,
 * create a LogAppendTime topic, produce (plainly and in a transaction), consume with Spark, stop,
 * and nothing of the broker is left running.
 */
class KafkaBrokerFixtureIT extends SparkTestBase {

  @TempDir Path tmp;

  @Test
  void brokerServesSparkAndLeavesNothingRunning() throws Exception {
    KafkaBroker kafka = KafkaBroker.start(tmp.resolve("kafka"));
    try {
      String requested = System.getProperty(KafkaBroker.IMPLEMENTATION_PROPERTY, "auto");
      if (!requested.equals("auto")) {
        assertThat(kafka.implementation().name()).isEqualToIgnoringCase(requested);
      }
      assertThat(kafka.isRunning()).isTrue();
      assertThat(kafka.bootstrapServers()).matches("127\\.0\\.0\\.1:\\d+");

      kafka.createTopic("fixture", 1, true);
      kafka.produce("fixture", 0, List.of("one", "two"));
      produceInTransaction(kafka.bootstrapServers(), "fixture", "three");

      List<String> rows =
          spark
              .read()
              .format("kafka")
              .option("kafka.bootstrap.servers", kafka.bootstrapServers())
              .option("kafka.isolation.level", "read_committed")
              .option("subscribe", "fixture")
              .option("startingOffsets", "earliest")
              .option("endingOffsets", "latest")
              .load()
              .filter("value IS NOT NULL")
              .selectExpr("concat_ws(' ', partition, timestampType, CAST(value AS STRING))")
              .orderBy("offset")
              .collectAsList()
              .stream()
              .map(row -> row.getString(0))
              .toList();
      assertThat(rows).containsExactly("0 1 one", "0 1 two", "0 1 three");
      assertThat(Files.readString(kafka.logFile())).contains("Kafka Server started");
    } finally {
      kafka.close();
    }
    assertThat(kafka.isRunning()).isFalse();
    assertThatThrownBy(() -> kafka.produce("fixture", List.of("late")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(kafka + " is closed");
  }

  @Test
  void unknownImplementationIsRejected() {
    String previous = System.getProperty(KafkaBroker.IMPLEMENTATION_PROPERTY);
    System.setProperty(KafkaBroker.IMPLEMENTATION_PROPERTY, "docker");
    try {
      assertThatThrownBy(() -> KafkaBroker.start(tmp.resolve("unused")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "Invalid value 'docker' for system property 'latelake.kafka.broker', "
                  + "expected auto, container or process");
    } finally {
      if (previous == null) {
        System.clearProperty(KafkaBroker.IMPLEMENTATION_PROPERTY);
      } else {
        System.setProperty(KafkaBroker.IMPLEMENTATION_PROPERTY, previous);
      }
    }
  }

  /** One record in a committed transaction: needs the single-node transaction state log. */
  private static void produceInTransaction(String bootstrap, String topic, String value) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "fixture-it");
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
      producer.initTransactions();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, 0, null, value));
      producer.commitTransaction();
    }
  }
}

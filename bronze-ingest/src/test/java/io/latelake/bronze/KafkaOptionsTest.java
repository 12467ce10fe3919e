package io.latelake.bronze;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import io.latelake.core.config.ConfigLoader;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.config.Settings;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Kafka option maps: unquoted names, checked against kafka-clients and Spark's Kafka source. */
class KafkaOptionsTest {
  private static final String KEY = "lake.bronze.kafka.properties";

  private static Map<String, String> options(String... sets) {
    Config c = ConfigLoader.load(Optional.empty(), List.of(sets));
    return KafkaOptions.sourceOptions(KEY, Settings.of(c).optionMap(KEY));
  }

  @Test
  void quotedAndNestedNamesReachKafkaUnquotedWithReadCommittedByDefault() {
    assertThat(
            options(
                KEY + ".\"security.protocol\"=SASL_SSL",
                KEY + ".sasl.mechanism=PLAIN",
                KEY + ".minPartitions=4"))
        .containsExactly(
            Map.entry("kafka.isolation.level", "read_committed"),
            Map.entry("minPartitions", "4"),
            Map.entry("kafka.sasl.mechanism", "PLAIN"),
            Map.entry("kafka.security.protocol", "SASL_SSL"));
  }

  @Test
  void clusterConfAppliesItsQuotedSecuritySettings() {
    Config c = ConfigLoader.load(Optional.of(Path.of("../conf/cluster.conf")), List.of());
    Map<String, String> o = KafkaOptions.sourceOptions(KEY, Settings.of(c).optionMap(KEY));
    assertThat(o)
        .containsEntry("kafka.security.protocol", "SASL_SSL")
        .containsEntry("kafka.sasl.mechanism", "SCRAM-SHA-512")
        .containsEntry("kafka.isolation.level", "read_committed");
  }

  @Test
  void isolationLevelCanBeOverriddenButOnlyToAValueKafkaKnows() {
    assertThat(options(KEY + ".\"isolation.level\"=read_uncommitted"))
        .containsExactly(Map.entry("kafka.isolation.level", "read_uncommitted"));
    assertThatThrownBy(() -> options(KEY + ".\"isolation.level\"=read_comitted"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'read_comitted' for key "
                + "'lake.bronze.kafka.properties.\"isolation.level\"': Kafka refuses it: String must "
                + "be one of: read_committed, read_uncommitted");
  }

  @Test
  void anOptionKafkaDoesNotKnowIsAConfigError() {
    assertThatThrownBy(() -> options(KEY + ".\"securty.protocol\"=SASL_SSL"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Unknown Kafka option 'securty.protocol' "
                + "(lake.bronze.kafka.properties.\"securty.protocol\"): neither a Kafka consumer "
                + "property nor a Spark Kafka source option; did you mean 'security.protocol'?");
    assertThatThrownBy(() -> options(KEY + ".\"kafka.security.protocol\"=SASL_SSL"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessageEndingWith("did you mean 'security.protocol'?");
  }

  @Test
  void optionsLatelakeOrSparkSetThemselvesAreRefused() {
    assertThatThrownBy(() -> options(KEY + ".startingOffsets=latest"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid key 'lake.bronze.kafka.properties.\"startingOffsets\"': latelake "
                + "sets this option itself; set lake.bronze.kafka.starting-offsets");
    assertThatThrownBy(() -> options(KEY + ".\"auto.offset.reset\"=latest"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid key 'lake.bronze.kafka.properties.\"auto.offset.reset\"': Spark's "
                + "Kafka source manages this consumer property itself and does not accept it");
  }

  @Test
  void aStringWhereTheMapBelongsNamesKeyAndValue() {
    assertThatThrownBy(() -> options(KEY + "=\"security.protocol=SASL_SSL\""))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'security.protocol=SASL_SSL' for key "
                + "'lake.bronze.kafka.properties': expected an object of options, e.g. "
                + "{ \"security.protocol\" = \"SASL_SSL\" }, not string");
  }

  @Test
  void aStringWhereTheMapBelongsHidesASecretValue() {
    assertThatThrownBy(() -> options(KEY + "=\"sasl.jaas.config=x password=hunter2\""))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '******' for key 'lake.bronze.kafka.properties': expected an "
                + "object of options, e.g. { \"security.protocol\" = \"SASL_SSL\" }, not string");
  }

  @Test
  void aBadValueOfAPasswordPropertyIsNotEchoed() {
    assertThatThrownBy(() -> options(KEY + ".\"ssl.key.password\"=[a, [b]]"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '******' for key "
                + "'lake.bronze.kafka.properties.\"ssl.key.password\"': expected a value or a list "
                + "of plain values");
  }

  @Test
  void illegalTopicNamesAreRefused() {
    assertThatThrownBy(
            () ->
                KafkaOptions.requireLegalTopic(
                    "lake.bronze.kafka.topics[0]", "events; rm -rf /tmp/x"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'events; rm -rf /tmp/x' for key 'lake.bronze.kafka.topics[0]': "
                + "not a legal Kafka topic name (1 to 249 characters of [a-zA-Z0-9._-], not '.' or "
                + "'..')");
    assertThatThrownBy(() -> KafkaOptions.requireLegalTopic("t", "a".repeat(250)))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '"
                + "a".repeat(250)
                + "' for key 't': not a legal Kafka "
                + "topic name (1 to 249 characters of [a-zA-Z0-9._-], not '.' or '..')");
    KafkaOptions.requireLegalTopic("t", "a".repeat(249));
    KafkaOptions.requireLegalTopic("t", "web-events_v1.2");
  }
}

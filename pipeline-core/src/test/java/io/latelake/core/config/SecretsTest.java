package io.latelake.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Secrets are masked in the effective-configuration log and in error messages. */
class SecretsTest {
  /** Key (as written in HOCON) → a distinct planted secret. */
  static final Map<String, String> PLANTED = new LinkedHashMap<>();

  static {
    String k = "lake.bronze.kafka.properties.";
    String s = "lake.spark.conf.";
    PLANTED.put(k + "\"sasl.jaas.config\"", "plant-01-jaas");
    PLANTED.put(k + "\"ssl.keystore.key\"", "plant-02-keystore-key");
    PLANTED.put(k + "\"ssl.key.password\"", "plant-03-key-password");
    PLANTED.put(k + "\"ssl.keystore.password\"", "plant-04-keystore-password");
    PLANTED.put(k + "\"ssl.truststore.password\"", "plant-05-truststore-password");
    PLANTED.put(k + "\"basic.auth.user.info\"", "plant-06-user-info");
    PLANTED.put(
        s + "\"spark.hadoop.fs.azure.account.key.acct.dfs.core.windows.net\"", "plant-07-azure");
    PLANTED.put(s + "\"spark.hadoop.fs.gs.auth.service.account.private.key\"", "plant-08-gcs");
    PLANTED.put(s + "\"spark.hadoop.fs.s3a.secret.key\"", "plant-09-s3a-secret");
    PLANTED.put(s + "\"spark.hadoop.fs.s3a.access.key\"", "plant-10-s3a-access");
    PLANTED.put(s + "\"spark.hadoop.fs.s3a.session.token\"", "plant-11-s3a-token");
    PLANTED.put(s + "\"spark.mycorp.vault\"", "plant-12-redaction-regex");
    PLANTED.put(s + "\"spark.hadoop.fs.gs.encryption.key\"", "plant-13-gcs-encryption");
    PLANTED.put(s + "\"spark.hadoop.fs.s3a.encryption.key\"", "plant-14-s3a-encryption");
    PLANTED.put(s + "\"spark.hadoop.fs.s3a.server-side-encryption.key\"", "plant-15-s3a-sse");
    PLANTED.put(s + "\"spark.hadoop.fs.adl.oauth2.credential\"", "plant-16-adl-oauth2");
    PLANTED.put(
        s + "\"spark.hadoop.fs.gs.auth.service.account.private.key.id\"", "plant-17-gcs-key-id");
  }

  private static List<String> sets() {
    List<String> out = new ArrayList<>();
    PLANTED.forEach((key, value) -> out.add(key + "=\"" + value + "\""));
    out.add("lake.spark.conf.\"spark.redaction.regex\"=\"(?i)secret|password|token|vault\"");
    return out;
  }

  @Test
  void theDefaultRegexIsSparksOwnDefault() {
    assertThat(Secrets.SPARK_REDACTION_REGEX)
        .isEqualTo(
            org.apache
                .spark
                .internal
                .config
                .package$
                .MODULE$
                .SECRET_REDACTION_PATTERN()
                .defaultValueString());
  }

  @Test
  void everyPlantedSecretIsMaskedInTheEffectiveConfiguration() {
    String text = ConfigLoader.describe(ConfigLoader.load(Optional.empty(), sets()));
    PLANTED.forEach(
        (key, value) -> {
          assertThat(text).contains("  " + key + " = ******\n").doesNotContain(value);
        });
    assertThat(text).contains("  lake.bronze.kafka.bootstrap-servers = \"127.0.0.1:9092\"\n");
    List<String> keys = text.lines().map(l -> l.trim().split(" = ")[0]).toList();
    assertThat(keys).isSorted();
  }

  @Test
  void withoutAConfiguredRegexOnlyTheDefaultsApply() {
    Config c =
        ConfigLoader.load(
            Optional.empty(), List.of("lake.spark.conf.\"spark.mycorp.vault\"=\"v\""));
    assertThat(ConfigLoader.describe(c)).contains("lake.spark.conf.\"spark.mycorp.vault\" = \"v\"");
    assertThat(Secrets.fromConfig(c).isSecretKey("spark.mycorp.vault")).isFalse();
  }

  @Test
  void aMistypedSecretOverrideIsRefusedWithoutEchoingTheSecret() {
    String set =
        "lake.bronze.kafka.properties.\"sasl.jaas.config=org.apache.kafka.common."
            + "security.plain.PlainLoginModule required username=\"u\" password=\"hunter2-jaas\";";
    assertThatThrownBy(() -> ConfigLoader.load(Optional.empty(), List.of(set)))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid override 'lake.bronze.kafka.properties.\"sasl.jaas.config=******' "
                + "for --set: the key is not a valid path (quote a name that holds dots, e.g. "
                + "lake.spark.conf.\"spark.x.y\"=value)")
        .satisfies(e -> assertThat(String.valueOf(e.getCause())).doesNotContain("hunter2"));
  }

  @Test
  void anUnparseableSecretValueIsNotEchoedNorIsTheParserMessage() {
    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    Optional.empty(),
                    List.of("lake.bronze.kafka.properties.\"ssl.key.password\"={hunter2")))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid override 'lake.bronze.kafka.properties.\"ssl.key.password\"=******' "
                + "for --set: the value is not valid HOCON (parser message hidden: the key or value "
                + "holds a secret)");
  }

  @Test
  void anInvalidValueUnderASecretKeyIsMaskedInTheMessage() {
    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    Optional.empty(),
                    List.of("lake.spark.conf.\"spark.sql.session.timeZone\"=\"token-zone\"")))
        .isInstanceOf(LakeConfigException.class)
        .hasMessageStartingWith(
            "Invalid value '******' for key " + "'lake.spark.conf.\"spark.sql.session.timeZone\"'");
    assertThat(
            LakeConfigException.invalid("lake.x.\"fs.azure.account.key.a.blob\"", "s3cr", "bad")
                .getMessage())
        .isEqualTo("Invalid value '******' for key 'lake.x.\"fs.azure.account.key.a.blob\"': bad");
  }

  @Test
  void secretValuesOfALoadedConfigAreRedactedFromAnyErrorText() {
    ConfigLoader.load(
        Optional.empty(),
        List.of(
            "lake.bronze.kafka.properties.\"sasl.jaas.config\""
                + "=\"org.apache.kafka.common.security.scram.ScramLoginModule required username=\\\"svc\\\" "
                + "password=\\\"r3dact-me\\\";\""));
    assertThat(Secrets.redact("Unexpected token r3dact-me in JAAS config"))
        .isEqualTo("Unexpected token ****** in JAAS config");
    assertThat(
            Secrets.revealsSecret(
                new IllegalStateException(
                    "wrapped", new IllegalArgumentException("password=r3dact-me"))))
        .isTrue();
    assertThat(Secrets.revealsSecret(new IllegalStateException("nothing secret"))).isFalse();
  }

  @Test
  void sparkRedactsWithTheRegexEveryKeyLatelakeMasks() {
    Config c = ConfigLoader.load(Optional.empty(), sets());
    Secrets secrets = Secrets.fromConfig(c);
    org.apache.spark.SparkConf conf =
        new org.apache.spark.SparkConf(false)
            .set(Secrets.SPARK_REDACTION_KEY, secrets.sparkRedactionRegex("(?i)mycorp[.]extra"));
    List<scala.Tuple2<String, String>> kvs = new ArrayList<>();
    PLANTED.forEach(
        (key, value) ->
            kvs.add(new scala.Tuple2<>(key.substring(key.indexOf('"')).replace("\"", ""), value)));
    kvs.add(new scala.Tuple2<>("spark.mycorp.extra", "plant-18-spark-submit-regex"));
    kvs.add(new scala.Tuple2<>("spark.sql.shuffle.partitions", "2"));
    var redacted =
        scala.jdk.javaapi.CollectionConverters.asJava(
            org.apache.spark.util.Utils.redact(
                conf, scala.jdk.javaapi.CollectionConverters.asScala(kvs).toSeq()));
    assertThat(redacted).hasSize(kvs.size());
    for (int i = 0; i < kvs.size() - 1; i++) {
      assertThat(redacted.get(i)._2()).as(kvs.get(i)._1()).isEqualTo("*********(redacted)");
    }
    assertThat(redacted.get(kvs.size() - 1)._2()).isEqualTo("2");
  }

  @Test
  void sparkRedactsRememberedSecretValuesInsideTexts() {
    ConfigLoader.load(
        Optional.empty(),
        List.of("lake.spark.conf.\"spark.hadoop.fs.gs.encryption.key\"=\"g$-value.(1)\""));
    String regex = Secrets.sparkStringRedactionRegex(null).orElseThrow();
    assertThat("key=g$-value.(1) in a plan".replaceAll(regex, "*")).isEqualTo("key=* in a plan");
    assertThat(Secrets.sparkStringRedactionRegex("(?i)mine").orElseThrow())
        .startsWith("(?:(?i)mine)|");
  }
}

package io.latelake.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import io.latelake.core.event.EventSchema;
import io.latelake.core.event.TimeFormat;
import io.latelake.core.metric.MetricDefinition;
import io.latelake.core.metric.Metrics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
  @TempDir Path tmp;

  private static Config load(String... sets) {
    return ConfigLoader.load(Optional.empty(), List.of(sets));
  }

  @Test
  void defaultsLoadAndValidate() {
    Config c = load();
    assertThat(c.getString("lake.bronze.source")).isEqualTo("files");
    EventSchema e = EventSchema.fromConfig(c);
    assertThat(e.idField()).isEqualTo("event_id");
    assertThat(e.timeFormat()).isEqualTo(TimeFormat.AUTO);
    assertThat(e.futureSkewTolerance()).isEqualTo(Duration.ofMinutes(5));
  }

  @Test
  void unknownKeyIsRejectedWithItsNameAndASuggestion() {
    assertThatThrownBy(() -> load("lake.silver.watermark-dely=\"5 minutes\""))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Unknown key 'lake.silver.watermark-dely' (set in --set "
                + "lake.silver.watermark-dely: 1); did you mean 'lake.silver.watermark-delay'?");
  }

  @Test
  void aReplacedKeyIsRejectedNamingTheKeyThatReplacedIt() throws Exception {
    assertThatThrownBy(() -> load("lake.profiler.correction-horizon=\"2 days\""))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Unknown key 'lake.profiler.correction-horizon' (set in --set "
                + "lake.profiler.correction-horizon: 1); did you mean 'lake.correction.horizon'? It "
                + "replaced this key");
    Path f = tmp.resolve("old.conf");
    Files.writeString(f, "lake.profiler {\n  correction-horizon = 2 days\n}\n");
    assertThatThrownBy(() -> ConfigLoader.load(Optional.of(f), List.of()))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Unknown key 'lake.profiler.correction-horizon' (set in "
                + f
                + ": 2); did "
                + "you mean 'lake.correction.horizon'? It replaced this key");
  }

  @Test
  void everyReplacedKeyPointsAtAKeyThatExists() {
    Config defaults = ConfigLoader.defaults().resolve();
    assertThat(ConfigLoader.REPLACED)
        .isNotEmpty()
        .allSatisfy(
            (old, now) -> {
              assertThat(defaults.hasPath(old)).as(old).isFalse();
              assertThat(defaults.hasPath(now)).as(now).isTrue();
            });
  }

  @Test
  void unknownKeyInAFileNamesTheFile() throws Exception {
    Path f = tmp.resolve("bad.conf");
    Files.writeString(f, "lake {\n  gold {\n    trigger-intervall = 5s\n  }\n}\n");
    assertThatThrownBy(() -> ConfigLoader.load(Optional.of(f), List.of()))
        .isInstanceOf(LakeConfigException.class)
        .hasMessageStartingWith("Unknown key 'lake.gold.trigger-intervall' (set in " + f + ": 3)")
        .hasMessageEndingWith("did you mean 'lake.gold.trigger-interval'?");
  }

  @Test
  void invalidDurationNamesKeyAndValue() {
    Config c = load("lake.silver.watermark-delay=\"ten minutes\"");
    assertThatThrownBy(() -> Settings.of(c).sub("lake.silver").positiveDuration("watermark-delay"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'ten minutes' for key 'lake.silver.watermark-delay': expected "
                + "a duration such as '10 minutes', '30 s' or '250 ms'");
  }

  @Test
  void missingRequiredMetricFieldNamesTheKey() {
    Config c = load("lake.gold.metrics.views={group-by=[], measures=[{name=n, function=count}]}");
    assertThatThrownBy(() -> Metrics.fromConfig(c))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage("Missing required key 'lake.gold.metrics.views.window'");
  }

  @Test
  void windowThatDoesNotDivideADayIsRefused() {
    Config c =
        load(
            "lake.event.fields=[{name=page, type=string}]",
            "lake.gold.metrics.page_views={window=\"7 minutes\", group-by=[page], "
                + "measures=[{name=views, function=count}]}");
    assertThatThrownBy(() -> Metrics.fromConfig(c))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Cannot start gold stream: window '7 minutes' does not divide a day "
                + "(lake.gold.metrics.page_views.window)");
  }

  @Test
  void sumOverAStringFieldIsRefused() {
    Config c =
        load(
            "lake.event.fields=[{name=page, type=string}]",
            "lake.gold.metrics.m={window=\"5 minutes\", group-by=[], "
                + "measures=[{name=s, function=sum, column=page}]}");
    assertThatThrownBy(() -> Metrics.fromConfig(c))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'page' for key 'lake.gold.metrics.m.measures[0].column': sum "
                + "needs a long or double field, not string");
  }

  @Test
  void anAverageIsStoredAsItsSumAndNonNullCountAndItsPartsMustNotClash() {
    String fields = "lake.event.fields=[{name=page, type=string}, {name=value, type=long}]";
    Config c =
        load(
            fields,
            "lake.gold.metrics.m={window=\"5 minutes\", group-by=[page], measures=["
                + "{name=n, function=count}, {name=with_value, function=count, column=value}, "
                + "{name=v, function=avg, column=value}]}");
    assertThat(MetricDefinition.of(Metrics.fromConfig(c).get(0)).canonical())
        .isEqualTo(
            "window=PT5M; group-by=[page]; measures=[n=count, with_value=count(value), "
                + "v=avg(value), v_sum=sum(value), v_count=count(value)]");
    Config clash =
        load(
            fields,
            "lake.gold.metrics.m={window=\"5 minutes\", group-by=[page], measures=["
                + "{name=v_sum, function=sum, column=value}, {name=v, function=avg, column=value}]}");
    assertThatThrownBy(() -> Metrics.fromConfig(clash))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'v' for key 'lake.gold.metrics.m.measures[1].name': its stored part "
                + "v_sum clashes with another measure or group-by column");
    Config text =
        load(
            fields,
            "lake.gold.metrics.m={window=\"5 minutes\", group-by=[], "
                + "measures=[{name=a, function=avg, column=page}]}");
    assertThatThrownBy(() -> Metrics.fromConfig(text))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'page' for key 'lake.gold.metrics.m.measures[0].column': avg "
                + "needs a long or double field, not string");
  }

  @Test
  void aGroupByOrMeasureNamedLikeARollupColumnIsRefused() {
    Config c =
        load(
            "lake.event.fields=[{name=year, type=string}, {name=value, type=long}]",
            "lake.gold.metrics.m={window=\"5 minutes\", group-by=[year], "
                + "measures=[{name=n, function=count}]}");
    assertThatThrownBy(() -> Metrics.fromConfig(c))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'year' for key 'lake.gold.metrics.m.group-by': is a column of the "
                + "daily and calendar rollup tables");
    Config days =
        load(
            "lake.event.fields=[{name=value, type=long}]",
            "lake.gold.metrics.m={window=\"5 minutes\", group-by=[], "
                + "measures=[{name=days, function=count}]}");
    assertThatThrownBy(() -> Metrics.fromConfig(days))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'days' for key 'lake.gold.metrics.m.measures[0].name': is a column of "
                + "the daily and calendar rollup tables");
  }

  @Test
  void reservedOrUnsafeFieldNamesAreRefused() {
    assertThatThrownBy(
            () ->
                EventSchema.fromConfig(
                    load("lake.event.fields=[{name=\"x; DROP TABLE\", type=string}]")))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'x; DROP TABLE' for key 'lake.event.fields[0].name': must be a "
                + "plain identifier (letters, digits, underscore)");
    assertThatThrownBy(
            () -> EventSchema.fromConfig(load("lake.event.fields=[{name=payload, type=string}]")))
        .isInstanceOf(LakeConfigException.class)
        .hasMessageStartingWith(
            "Invalid value 'payload' for key 'lake.event.fields[0].name': is "
                + "a column latelake writes itself");
  }

  @Test
  void everyBronzeColumnIsAReservedFieldName() {
    assertThat(EventSchema.RESERVED)
        .containsAll(io.latelake.core.event.BronzeRows.LEADING_COLUMNS)
        .contains("error", "error_detail", "lateness_s", "window_start", "corrected_at");
    assertThatThrownBy(
            () ->
                EventSchema.fromConfig(
                    load("lake.event.fields=[{name=payload_bytes, type=string}]")))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'payload_bytes' for key 'lake.event.fields[0].name': is a column "
                + "latelake writes itself; reserved names are "
                + EventSchema.RESERVED.stream().sorted().toList());
  }

  @Test
  void unknownTimeFormatIsRefused() {
    assertThatThrownBy(() -> EventSchema.fromConfig(load("lake.event.time-format=rfc2822")))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'rfc2822' for key 'lake.event.time-format': expected one of "
                + "iso-8601, epoch-seconds, epoch-millis, epoch-micros, epoch-nanos, auto");
  }

  @Test
  void overridesWinOverTheFileWhichWinsOverDefaults() throws Exception {
    Path f = tmp.resolve("a.conf");
    Files.writeString(
        f, "lake.silver.watermark-delay = 3 minutes\n" + "lake.gold.watermark-delay = 4 minutes\n");
    Config c = ConfigLoader.load(Optional.of(f), List.of("lake.gold.watermark-delay=5s"));
    assertThat(c.getDuration("lake.silver.watermark-delay")).isEqualTo(Duration.ofMinutes(3));
    assertThat(c.getDuration("lake.gold.watermark-delay")).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.getDuration("lake.bronze.trigger-interval")).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void missingFileAndMalformedOverrideAreUsageErrors() {
    assertThatThrownBy(() -> ConfigLoader.load(Optional.of(tmp.resolve("nope.conf")), List.of()))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Cannot read config file '" + tmp.resolve("nope.conf") + "': no such file (--config)");
    assertThatThrownBy(() -> load("lake.root"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessageStartingWith("Invalid override 'lake.root' for --set: expected key=value");
  }

  @Test
  void effectiveConfigIsSortedWithSecretsMasked() {
    String text =
        ConfigLoader.describe(
            load("lake.bronze.kafka.properties.\"sasl.jaas.config\"=\"user=a password=b\""));
    assertThat(text)
        .contains("lake.bronze.kafka.properties.\"sasl.jaas.config\" = ******")
        .doesNotContain("password=b");
    List<String> keys = text.lines().map(l -> l.trim().split(" = ")[0]).toList();
    assertThat(keys).isSorted();
  }

  @Test
  void settingsOutsideLakeAreRefusedWithAHintToSparkConf() {
    assertThatThrownBy(() -> load("spark.sql.shuffle.partitions=1"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid override 'spark.sql.shuffle.partitions=1' for --set: only keys "
                + "under lake. can be set; a Spark setting goes under lake.spark.conf, e.g. --set "
                + "'lake.spark.conf.\"spark.sql.shuffle.partitions\"=...'");
  }

  @Test
  void sparkConfNamesAreUnquotedAndValidated() {
    Config c =
        load(
            "lake.spark.conf.\"spark.sql.shuffle.partitions\"=3",
            "lake.spark.conf.spark.databricks.delta.snapshotPartitions=1",
            "lake.spark.conf.\"spark.sql.session.timeZone\"=UTC");
    assertThat(SparkConfOptions.fromConfig(c))
        .containsExactly(
            java.util.Map.entry("spark.databricks.delta.snapshotPartitions", "1"),
            java.util.Map.entry("spark.sql.session.timeZone", "UTC"),
            java.util.Map.entry("spark.sql.shuffle.partitions", "3"));
    assertThatThrownBy(() -> load("lake.spark.conf.\"sql.shuffle.partitions\"=3"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid key 'lake.spark.conf.\"sql.shuffle.partitions\"': not a Spark "
                + "setting (Spark settings start with spark.; Hadoop settings are written "
                + "spark.hadoop.<key>)");
    assertThatThrownBy(() -> load("lake.spark.conf=\"spark.sql.shuffle.partitions=3\""))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'spark.sql.shuffle.partitions=3' for key 'lake.spark.conf': "
                + "expected an object of options, e.g. { \"security.protocol\" = \"SASL_SSL\" }, "
                + "not string");
  }

  @Test
  void aSessionTimeZoneOtherThanUtcIsRefusedWithTheReason() {
    assertThatThrownBy(
            () -> load("lake.spark.conf.\"spark.sql.session.timeZone\"=" + "\"Europe/Berlin\""))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'Europe/Berlin' for key "
                + "'lake.spark.conf.\"spark.sql.session.timeZone\"': the session time zone must be "
                + "UTC: event times, windows, ingest dates and date arguments are UTC throughout");
  }
}

package io.latelake.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.core.cli.Launcher;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Bad usage fails with exit code 2 and a message naming key and value, before Spark starts. */
class LatelakeCliTest {
  private record Outcome(int code, String err, String out) {
    Outcome(int code, String err) {
      this(code, err, "");
    }
  }

  private static Outcome run(String... args) {
    StringWriter err = new StringWriter();
    StringWriter out = new StringWriter();
    int code =
        Launcher.execute(new LatelakeCli(), new PrintWriter(out), new PrintWriter(err), args);
    return new Outcome(code, err.toString(), out.toString());
  }

  private static String line(String text) {
    return "latelake: " + text + System.lineSeparator();
  }

  @Test
  void unknownKeyExitsTwoBeforeSparkStarts() {
    Outcome o = run("silver", "--set", "lake.silver.watermark-dely=\"5 minutes\"");
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err())
        .isEqualTo(
            "latelake: Unknown key 'lake.silver.watermark-dely' (set in "
                + "--set lake.silver.watermark-dely: 1); did you mean 'lake.silver.watermark-delay'?"
                + System.lineSeparator());
    assertThat(SparkSession.getDefaultSession().isEmpty()).isTrue();
  }

  @Test
  void aUsageErrorPrintsTheErrorAndWhereHelpIsNotTheWholeUsage() {
    Outcome o = run("correct", "--sinse", "2024-05-14");
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err())
        .isEqualTo(
            line("Unknown options: '--sinse', '2024-05-14'")
                + "See 'latelake correct --help'."
                + System.lineSeparator());
    assertThat(o.out()).isEmpty();
    assertThat(SparkSession.getDefaultSession().isEmpty()).isTrue();
  }

  @Test
  void invalidDurationExitsTwo() {
    Outcome o =
        run(
            "gold",
            "--set",
            "lake.gold.watermark-delay=soon",
            "--set",
            "lake.event.fields=[{name=page, type=string}]",
            "--set",
            "lake.gold.metrics.v={window=5m, group-by=[page], measures=[{name=n, function=count}]}");
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err())
        .isEqualTo(
            "latelake: Invalid value 'soon' for key "
                + "'lake.gold.watermark-delay': expected a duration such as '10 minutes', '30 s' or "
                + "'250 ms', or auto (the lateness profiler's recommendation)"
                + System.lineSeparator());
    assertThat(SparkSession.getDefaultSession().isEmpty()).isTrue();
  }

  @Test
  void missingRequiredFieldExitsTwo() {
    Outcome o = run("bronze", "--set", "lake.event.id-field=\"\"");
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err())
        .isEqualTo(
            "latelake: Invalid value '' for key 'lake.event.id-field': "
                + "must not be empty"
                + System.lineSeparator());
    assertThat(SparkSession.getDefaultSession().isEmpty()).isTrue();
  }

  @Test
  void goldWithoutAnyMetricExitsTwo() {
    Outcome o = run("gold");
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err())
        .startsWith(
            "latelake: Cannot start gold stream: no metric configured "
                + "(lake.gold.metrics is empty)");
  }

  @Test
  void unknownCommandAndMissingConfigFileExitTwo() {
    Outcome bronz = run("bronz");
    assertThat(bronz.code()).isEqualTo(2);
    assertThat(bronz.err())
        .isEqualTo(
            line("no command 'bronz'; did you mean 'bronze'?")
                + "See 'latelake --help' for the commands."
                + System.lineSeparator());
    // as scripts/latelake passes it: the launcher's --config after the command
    Outcome reprot = run("reprot", "--config", "/x/local.conf");
    assertThat(reprot.code()).isEqualTo(2);
    assertThat(reprot.err())
        .isEqualTo(
            line("no command 'reprot'; did you mean 'report'?")
                + "See 'latelake --help' for the commands."
                + System.lineSeparator());
    Outcome none = run("xyzzy");
    assertThat(none.code()).isEqualTo(2);
    assertThat(none.err())
        .isEqualTo(
            line("no command 'xyzzy'")
                + "See 'latelake --help' for the commands."
                + System.lineSeparator());
    // an option the top level does not know stays picocli's own message
    assertThat(run("--verbose").err()).startsWith(line("Unknown option: '--verbose'"));
    Outcome o = run("bronze", "--config", "/nonexistent/x.conf");
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err())
        .isEqualTo(
            "latelake: Cannot read config file '/nonexistent/x.conf': no "
                + "such file (--config)"
                + System.lineSeparator());
  }

  @Test
  void replayRefusesAMissingDatasetAndABadSlice() {
    Outcome o = run("replay", "--dataset", "/nonexistent.csv", "--landing", "/tmp/x");
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err())
        .isEqualTo(
            "latelake: Cannot replay '/nonexistent.csv': no such file "
                + "(--dataset)"
                + System.lineSeparator());
    Outcome slice =
        run("replay", "--dataset", "/nonexistent.csv", "--landing", "/tmp/x", "--slice", "PT0S");
    assertThat(slice.code()).isEqualTo(2);
    assertThat(slice.err())
        .isEqualTo(
            "latelake: Invalid value 'PT0S' for option '--slice': must be "
                + "a positive duration"
                + System.lineSeparator());
  }

  @Test
  void helpWorksOnEveryCommand() {
    List<String> commands =
        List.copyOf(new CommandLine(new LatelakeCli()).getSubcommands().keySet());
    assertThat(commands)
        .containsExactly(
            "bronze",
            "silver",
            "gold",
            "run",
            "demo",
            "replay",
            "correct",
            "apply-corrections",
            "rebuild",
            "cascade",
            "audit",
            "asof",
            "backfill",
            "profile",
            "report",
            "catalog",
            "sql",
            "notebook");
    for (String command : commands) {
      for (String flag : List.of("-h", "--help")) {
        Outcome o = run(command, flag);
        assertThat(o.code()).as(command + " " + flag + ": " + o.err()).isZero();
        assertThat(o.out()).as(command + " " + flag).startsWith("Usage: latelake " + command);
        assertThat(o.err()).as(command + " " + flag).isEmpty();
      }
    }
    assertThat(run("asof", "--help").out()).contains("--table-version=N");
    assertThat(run("run", "--help").out()).contains("--available-now");
    assertThat(SparkSession.getDefaultSession().isEmpty()).isTrue();
  }

  @Test
  void aSettingOutsideLakeIsRefusedWithAHintToSparkConf() {
    Outcome o = run("silver", "--set", "spark.sql.shuffle.partitions=1");
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err())
        .isEqualTo(
            line(
                "Invalid override 'spark.sql.shuffle.partitions=1' for "
                    + "--set: only keys under lake. can be set; a Spark setting goes under lake.spark.conf, "
                    + "e.g. --set 'lake.spark.conf.\"spark.sql.shuffle.partitions\"=...'"));
  }

  @Test
  void aSessionTimeZoneOtherThanUtcIsRefused() {
    Outcome o = run("bronze", "--set", "lake.spark.conf.\"spark.sql.session.timeZone\"=PST");
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err())
        .isEqualTo(
            line(
                "Invalid value 'PST' for key "
                    + "'lake.spark.conf.\"spark.sql.session.timeZone\"': the session time zone must be UTC: "
                    + "event times, windows, ingest dates and date arguments are UTC throughout"));
  }

  @Test
  void aMistypedSecretOverrideExitsTwoWithoutEchoingThePassword() {
    Outcome o =
        run(
            "bronze",
            "--set",
            "lake.bronze.kafka.properties.\"sasl.jaas.config="
                + "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"svc\" "
                + "password=\"hunter2\";");
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err())
        .isEqualTo(
            line(
                "Invalid override "
                    + "'lake.bronze.kafka.properties.\"sasl.jaas.config=******' for --set: the key is not a "
                    + "valid path (quote a name that holds dots, e.g. lake.spark.conf.\"spark.x.y\"=value)"));
  }

  @Test
  void kafkaInputErrorsExitTwoWithOneLine() {
    Outcome topic = run("bronze", "--set", "lake.bronze.kafka.topics=[\"events; rm -rf /tmp/x\"]");
    assertThat(topic.code()).isEqualTo(2);
    assertThat(topic.err())
        .isEqualTo(
            line(
                "Invalid value 'events; rm -rf /tmp/x' for key "
                    + "'lake.bronze.kafka.topics[0]': not a legal Kafka topic name (1 to 249 characters of "
                    + "[a-zA-Z0-9._-], not '.' or '..')"));
    Outcome map =
        run("bronze", "--set", "lake.bronze.kafka.properties=\"security.protocol=SASL_SSL\"");
    assertThat(map.code()).isEqualTo(2);
    assertThat(map.err())
        .isEqualTo(
            line(
                "Invalid value 'security.protocol=SASL_SSL' for key "
                    + "'lake.bronze.kafka.properties': expected an object of options, e.g. "
                    + "{ \"security.protocol\" = \"SASL_SSL\" }, not string"));
    Outcome unknown =
        run("bronze", "--set", "lake.bronze.kafka.properties.\"sasl.mechanisms\"=PLAIN");
    assertThat(unknown.code()).isEqualTo(2);
    assertThat(unknown.err())
        .isEqualTo(
            line(
                "Unknown Kafka option 'sasl.mechanisms' "
                    + "(lake.bronze.kafka.properties.\"sasl.mechanisms\"): neither a Kafka consumer property "
                    + "nor a Spark Kafka source option; did you mean 'sasl.mechanism'?"));
    assertThat(SparkSession.getDefaultSession().isEmpty()).isTrue();
  }
}

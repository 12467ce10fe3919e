package io.latelake.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.core.cli.Launcher;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/** Bad usage fails with exit code 2 and a message naming key and value, before Spark starts. */
class LatelakeCliTest {
  private record Outcome(int code, String err) {}

  private static Outcome run(String... args) {
    StringWriter err = new StringWriter();
    int code = Launcher.execute(new LatelakeCli(), new PrintWriter(new StringWriter()),
        new PrintWriter(err), args);
    return new Outcome(code, err.toString());
  }

  @Test
  void unknownKeyExitsTwoBeforeSparkStarts() {
    Outcome o = run("silver", "--set", "lake.silver.watermark-dely=\"5 minutes\"");
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err()).isEqualTo("latelake: Unknown key 'lake.silver.watermark-dely' (set in "
        + "--set lake.silver.watermark-dely: 1); did you mean 'lake.silver.watermark-delay'?"
        + System.lineSeparator());
    assertThat(SparkSession.getDefaultSession().isEmpty()).isTrue();
  }

  @Test
  void invalidDurationExitsTwo() {
    Outcome o = run("gold", "--set", "lake.gold.watermark-delay=soon",
        "--set", "lake.event.fields=[{name=page, type=string}]",
        "--set", "lake.gold.metrics.v={window=5m, group-by=[page], measures=[{name=n, function=count}]}");
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err()).isEqualTo("latelake: Invalid value 'soon' for key "
        + "'lake.gold.watermark-delay': expected a duration such as '10 minutes', '30 s' or "
        + "'250 ms'" + System.lineSeparator());
    assertThat(SparkSession.getDefaultSession().isEmpty()).isTrue();
  }

  @Test
  void missingRequiredFieldExitsTwo() {
    Outcome o = run("bronze", "--set", "lake.event.id-field=\"\"");
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err()).isEqualTo("latelake: Invalid value '' for key 'lake.event.id-field': "
        + "must not be empty" + System.lineSeparator());
    assertThat(SparkSession.getDefaultSession().isEmpty()).isTrue();
  }

  @Test
  void goldWithoutAnyMetricExitsTwo() {
    Outcome o = run("gold");
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err()).startsWith("latelake: Cannot start gold stream: no metric configured "
        + "(lake.gold.metrics is empty)");
  }

  @Test
  void unknownCommandAndMissingConfigFileExitTwo() {
    assertThat(run("bronz").code()).isEqualTo(2);
    Outcome o = run("bronze", "--config", "/nonexistent/x.conf");
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err()).isEqualTo("latelake: Cannot read config file '/nonexistent/x.conf': no "
        + "such file (--config)" + System.lineSeparator());
  }

  @Test
  void replayRefusesAMissingDatasetAndABadSlice() {
    Outcome o = run("replay", "--dataset", "/nonexistent.csv", "--landing", "/tmp/x");
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err()).isEqualTo("latelake: Cannot replay '/nonexistent.csv': no such file "
        + "(--dataset)" + System.lineSeparator());
    Outcome slice = run("replay", "--dataset", "/nonexistent.csv", "--landing", "/tmp/x",
        "--slice", "PT0S");
    assertThat(slice.code()).isEqualTo(2);
    assertThat(slice.err()).isEqualTo("latelake: Invalid value 'PT0S' for key '--slice': must be "
        + "a positive duration" + System.lineSeparator());
  }
}

package io.latelake.profiler;

import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.core.cli.Launcher;
import io.latelake.core.config.ConfigLoader;
import io.latelake.core.spark.SparkSessions;
import io.latelake.core.table.TableRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exit codes of {@code latelake profile}. The command stops its session, so this class builds its
 * own sessions instead of sharing one (it needs one before and one after a run).
 */
class ProfileMainTest {
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private PrintStream originalErr;

  @BeforeEach
  void captureErr() {
    originalErr = System.err;
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    System.setProperty("spark.master", "local[2]");
    System.setProperty("spark.ui.enabled", "false");
  }

  @AfterEach
  void restoreErr() {
    System.setErr(originalErr);
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aDayThatIsNotADayExitsTwoBeforeSpark() {
    assertThat(Launcher.execute(new ProfileMain(), "--days", "2024-13-01")).isEqualTo(2);
    assertThat(err())
        .contains(
            "latelake: Invalid value '2024-13-01' for option '--days': is not a calendar date");
    assertThat(Launcher.execute(new ProfileMain(), "--days", "2024-05-14' OR '1'='1")).isEqualTo(2);
    assertThat(err())
        .contains(
            "latelake: Invalid value '2024-05-14' OR '1'='1' for option "
                + "'--days': expected a UTC day YYYY-MM-DD or a range YYYY-MM-DD..YYYY-MM-DD");
    assertThat(Launcher.execute(new ProfileMain(), "--days", "2024-05-15..2024-05-14"))
        .isEqualTo(2);
    assertThat(err())
        .contains(
            "latelake: Invalid value '2024-05-15..2024-05-14' for option "
                + "'--days': the last day is before the first");
    assertThat(Launcher.execute(new ProfileMain(), "--days", "9999-12-30..9999-12-31"))
        .isEqualTo(2);
    assertThat(err())
        .contains(
            "latelake: Invalid value '9999-12-30..9999-12-31' for option "
                + "'--days': the first day is in the future (today: "
                + java.time.LocalDate.now(java.time.ZoneOffset.UTC)
                + " UTC)");
    assertThat(SparkSession.getActiveSession().isDefined()).isFalse();
  }

  @Test
  void badProfilerConfigExitsTwoNamingTheKey() {
    assertThat(
            Launcher.execute(
                new ProfileMain(), "--set", "lake.profiler.rules=[{metric=p98_s, above=1}]"))
        .isEqualTo(2);
    assertThat(err())
        .contains(
            "latelake: Invalid value 'p98_s' for key "
                + "'lake.profiler.rules[0].metric': expected one of "
                + AlertRule.METRICS);
    assertThat(
            Launcher.execute(
                new ProfileMain(),
                "--set",
                "lake.profiler.rules=[{metric=negative_share, above=2}]"))
        .isEqualTo(2);
    assertThat(err())
        .contains(
            "latelake: Invalid value '2' for key "
                + "'lake.profiler.rules[0].above': a share must be between 0 and 1");
    assertThat(
            Launcher.execute(
                new ProfileMain(), "--set", "lake.profiler.watermark-coverage=[0.99, 1.0]"))
        .isEqualTo(2);
    assertThat(err())
        .contains(
            "latelake: Invalid value '[0.99, 1]' for key "
                + "'lake.profiler.watermark-coverage': each coverage must be a share strictly between "
                + "0 and 1");
    assertThat(Launcher.execute(new ProfileMain(), "--set", "lake.correction.horizon=1 minute"))
        .isEqualTo(2);
    assertThat(err())
        .contains(
            "latelake: Invalid value '1 minute' for key "
                + "'lake.correction.horizon': must be at least lake.gold.watermark-delay (PT10M), or a "
                + "settled window could still be open");
    assertThat(
            Launcher.execute(new ProfileMain(), "--set", "lake.profiler.watermark-delay=2 hours"))
        .isEqualTo(2);
    assertThat(err())
        .contains(
            "latelake: Invalid value '2 hours' for key "
                + "'lake.profiler.watermark-delay': must not be longer than lake.correction.horizon "
                + "(PT1H)");
    assertThat(
            Launcher.execute(new ProfileMain(), "--set", "lake.profiler.correction-horizon=2 days"))
        .isEqualTo(2);
    assertThat(err())
        .contains(
            "latelake: Unknown key 'lake.profiler.correction-horizon' (set in "
                + "--set lake.profiler.correction-horizon: 1); did you mean 'lake.correction.horizon'? It "
                + "replaced this key");
    assertThat(Launcher.execute(new ProfileMain(), "--set", "lake.profiler.acuracy=5"))
        .isEqualTo(2);
    assertThat(err())
        .contains(
            "latelake: Unknown key 'lake.profiler.acuracy' (set in --set "
                + "lake.profiler.acuracy: 1); did you mean 'lake.profiler.accuracy'?");
  }

  @Test
  void reportBeforeAnyProfileExitsTwo(@TempDir Path dir) {
    assertThat(
            Launcher.execute(
                new ReportMain(),
                "--days",
                "2024-05-14",
                "--set",
                "lake.root=\"" + dir + "\"",
                "--set",
                "lake.spark.shuffle-partitions=2"))
        .isEqualTo(2);
    assertThat(err())
        .contains(
            "latelake: Cannot write the lateness report: table monitoring.lateness_stats does not"
                + " exist at "
                + dir
                + "/monitoring/lateness_stats (lake.root); run `latelake profile` first");
    assertThat(Launcher.execute(new ReportMain(), "--days", "yesterday")).isEqualTo(2);
    assertThat(err()).contains("latelake: Invalid value 'yesterday' for option '--days'");
  }

  @Test
  void anExceededRuleExitsThreeAndWritesOneAlertRowAlsoWithExactPercentiles(@TempDir Path dir) {
    SparkSession spark =
        SparkSessions.create(
            "fixture",
            ConfigLoader.load(Optional.empty(), List.of("lake.spark.shuffle-partitions=2")));
    TableRegistry tables = new TableRegistry(dir.toString());
    Fixtures.bronze(spark, Fixtures.withLateness("web", "2024-05-14T10:00:00Z", 1, 2, 3))
        .write()
        .format("delta")
        .partitionBy("ingest_date")
        .save(tables.bronzeEvents());
    String root = "lake.root=\"" + dir + "\"";
    assertThat(
            Launcher.execute(
                new ProfileMain(),
                "--days",
                "2024-05-14",
                "--set",
                root,
                "--set",
                "lake.spark.shuffle-partitions=2",
                "--set",
                "lake.profiler.rules=[{metric=max_s, above=3}]"))
        .isEqualTo(0);
    assertThat(
            Launcher.execute(
                new ProfileMain(),
                "--days",
                "2024-05-14",
                "--set",
                root,
                "--set",
                "lake.spark.shuffle-partitions=2",
                "--set",
                "lake.profiler.rules=[{metric=max_s, above=2.5}]",
                "--exact"))
        .isEqualTo(3);
    SparkSession after =
        SparkSessions.create(
            "check",
            ConfigLoader.load(Optional.empty(), List.of("lake.spark.shuffle-partitions=2")));
    try {
      assertThat(after.read().format("delta").load(tables.monitoring("alerts")).collectAsList())
          .extracting(r -> r.getAs("rule"), r -> r.getAs("observed"))
          .containsExactly(org.assertj.core.groups.Tuple.tuple("max_s > 2.5", 3.0));
      // the second run, with --exact, replaced the day's row: exact percentiles, no accuracy
      assertThat(
              after
                  .read()
                  .format("delta")
                  .load(tables.monitoring("lateness_stats"))
                  .collectAsList())
          .extracting(r -> r.getAs("p50_s"), r -> r.getAs("accuracy"))
          .containsExactly(org.assertj.core.groups.Tuple.tuple(2.0, null));
      // and overwrote the range's CDF and advice: no accuracy on any of their rows
      for (String table : List.of("lateness_cdf", "watermark_advice")) {
        assertThat(
                after.read().format("delta").load(tables.monitoring(table)).collectAsList().stream()
                    .map(r -> String.valueOf(r.<Integer>getAs("accuracy")))
                    .distinct())
            .as(table)
            .containsExactly("null");
      }
    } finally {
      after.stop();
    }
  }
}

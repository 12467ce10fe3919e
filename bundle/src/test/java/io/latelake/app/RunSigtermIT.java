package io.latelake.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.core.testing.SparkTestBase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM to {@code latelake run} and {@code latelake demo} in their own JVMs, on landing files.
 * During a micro-batch of {@code run}, it stops all three queries cleanly: exit 143, nothing logged
 * at ERROR, every micro-batch recorded once. During {@code demo}, it stops within the step that was
 * running: exit 143, one line saying so, nothing at ERROR, every micro-batch recorded once. The
 * {@code run} registers its tables (a Hive metastore on embedded Derby), as jobs do by default, so
 * the stop meets a job that registers. (Apart from {@link RunCommandIT}, so that the two test JVMs
 * share the integration tests evenly.)
 */
class RunSigtermIT extends SparkTestBase {
  private static final Duration BOUND = Duration.ofMinutes(10);

  @Test
  void sigtermDuringAMicroBatchStopsAllQueriesCleanly(@TempDir Path tmp) throws Exception {
    Path root = tmp.resolve("lake");
    RunCommandIT.land(root, 0, 20);
    int exit;
    String log;
    Path runLog = StreamProcess.logFile("RunSigtermIT-run");
    try (StreamProcess run = StreamProcess.run(runLog, RunCommandIT.sets(root))) {
      run.waitFor(
          "bronze micro-batch 2",
          BOUND,
          () -> run.logText().contains("[bronze_web] micro-batch 2:"));
      exit = run.terminate();
      log = run.logText();
    }
    assertThat(exit).isEqualTo(143);
    assertThat(log)
        .doesNotContain(" ERROR ")
        .contains("Stopped [bronze_web, silver_events, gold_page_5m]");
    ProgressAssert.exactlyOncePerBatch(
        spark, root, List.of("bronze_web", "silver_events", "gold_page_5m"));
    // Bronze stopped before the 20 files were read: the stop did not wait for the input.
    assertThat(DeltaTablesProbe.count(spark, root + "/bronze/events")).isLessThan(200);
  }

  @Test
  void sigtermDuringTheDemoStopsItWithinItsRunningStepWithoutAnError(@TempDir Path tmp)
      throws Exception {
    Path root = tmp.resolve("lake");
    Path dataset = StreamProcess.repoRoot().resolve("data/ooo-iot-umts/ooo_umts_events.csv.gz");
    // the first 4,000 arrivals in 10-second slices: 26 slices, 28 side-by-side steps
    int steps =
        io.latelake.bronze.replay.ReplayPlan.slices(
                    io.latelake.bronze.replay.CapturedEvents.read(dataset, "arrival_time")
                        .subList(0, 4000),
                    Duration.ofSeconds(10))
                .size()
            + 2;
    int exit;
    String log;
    Path demoRoot;
    try (StreamProcess demo =
        StreamProcess.start(
            io.latelake.cli.LatelakeCli.class,
            StreamProcess.logFile("RunSigtermIT-demo"),
            List.of(),
            "demo",
            "--config",
            StreamProcess.repoRoot().resolve("conf/local.conf").toString(),
            "--set",
            "lake.root=\"" + root + "\"",
            "--dataset",
            dataset.toString(),
            "--limit",
            "4000",
            "--slice",
            "PT10S")) {
      // the fourth slice landed: step 3, in which bronze, silver and gold each ran, has ended
      demo.waitFor("the demo's step 4", BOUND, () -> landed(root) >= 4);
      exit = demo.terminate();
      log = demo.logText();
      try (Stream<Path> dirs = Files.list(root)) {
        demoRoot =
            dirs.filter(d -> d.getFileName().toString().startsWith("demo-")).findFirst().get();
      }
    }
    assertThat(exit).isEqualTo(143);
    assertThat(log).doesNotContain(" ERROR ").doesNotContain("failed").doesNotContain("Exception");
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile(
                "demo stopped on request at step (\\d+)/(\\d+) \\((\\d+) complete\\): the"
                    + " tables under "
                    + java.util.regex.Pattern.quote(demoRoot.toAbsolutePath().toString())
                    + " keep every micro-batch committed before the stop")
            .matcher(log);
    assertThat(m.find()).as(log).isTrue();
    int completed = Integer.parseInt(m.group(3));
    assertThat(Integer.parseInt(m.group(1))).isEqualTo(completed + 1);
    assertThat(Integer.parseInt(m.group(2))).isEqualTo(steps);
    // it stopped within the step running at the SIGTERM: no later slice landed, no report
    assertThat(completed).isBetween(3, steps - 1);
    assertThat(landed(root)).isBetween(4L, completed + 1L);
    assertThat(log).doesNotContain("== latelake demo report ==");
    ProgressAssert.exactlyOncePerBatch(
        spark, demoRoot, List.of("bronze_ooo_umts", "silver_events", "gold_events_per_device_10s"));
  }

  /** How many landing files the demo under {@code root} has written. */
  private static long landed(Path root) {
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(f -> f.getParent().getFileName().toString().equals("landing"))
          .filter(f -> !f.getFileName().toString().startsWith("_")) // a file being written
          .count();
    } catch (java.io.IOException | java.io.UncheckedIOException e) {
      return 0; // not there yet, or written while walked
    }
  }
}

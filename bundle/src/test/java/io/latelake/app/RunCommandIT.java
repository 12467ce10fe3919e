package io.latelake.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.bronze.replay.LandingWriter;
import io.latelake.core.testing.SparkTestBase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code latelake run} in its own JVM on landing files: SIGTERM during a micro-batch stops all
 * three queries cleanly (exit 143, nothing logged at ERROR, every micro-batch recorded once);
 * {@code --available-now} takes each layer to the end of its input and exits 0; one query failing
 * stops the others and exits 1 naming it. SIGTERM during {@code latelake demo} stops it within the
 * step that was running: exit 143, one line saying so, nothing at ERROR, every micro-batch recorded
 * once.
 */
class RunCommandIT extends SparkTestBase {
  private static final Duration BOUND = Duration.ofMinutes(10);

  /** The {@code --set} overrides of a processing-time `run` on landing files under {@code root}. */
  static List<String> sets(Path root, String... extra) {
    List<String> sets =
        new ArrayList<>(
            List.of(
                "lake.root=\"" + root + "\"",
                "lake.spark.shuffle-partitions=2",
                "lake.bronze.source=files",
                "lake.bronze.files.path=\"" + root.resolve("landing") + "\"",
                "lake.bronze.files.enqueued-time=payload-field",
                "lake.bronze.files.enqueued-time-field=enqueued_time",
                "lake.bronze.files.max-files-per-trigger=1",
                "lake.bronze.trigger-interval=\"1 second\"",
                "lake.silver.trigger-interval=\"1 second\"",
                "lake.gold.trigger-interval=\"1 second\"",
                "lake.event.source-name=web",
                "lake.event.fields=[{name=page, type=string}, {name=value, type=long}]",
                "lake.silver.watermark-delay=\"10 minutes\"",
                "lake.gold.watermark-delay=\"10 minutes\"",
                "lake.gold.metrics.page_5m={window=\"5 minutes\", group-by=[page], measures=["
                    + "{name=events, function=count}, {name=value_sum, function=sum, column=value}]}"));
    sets.addAll(List.of(extra));
    return sets;
  }

  /** Lands {@code files} files of 10 events each, event ids unique. */
  private static void land(Path root, int from, int files) {
    LandingWriter w = new LandingWriter(root.resolve("landing"));
    for (int f = from; f < from + files; f++) {
      List<String> lines = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        int n = f * 10 + i;
        lines.add(
            LakeFixture.event(
                "e" + n,
                "2024-05-14T10:0" + (n % 10) + ":00Z",
                "2024-05-14T10:0" + (n % 10) + ":01Z",
                "/p" + (n % 2),
                1));
      }
      w.writeLines(String.format("f-%04d.jsonl", f), lines);
    }
  }

  @Test
  void sigtermDuringAMicroBatchStopsAllQueriesCleanly(@TempDir Path tmp) throws Exception {
    Path root = tmp.resolve("lake");
    land(root, 0, 20);
    int exit;
    String log;
    Path runLog = StreamProcess.logFile("RunCommandIT-sigterm");
    try (StreamProcess run = StreamProcess.run(runLog, sets(root))) {
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
    // Bronze stopped before the 30 files were read: the stop did not wait for the input.
    assertThat(DeltaTablesProbe.count(spark, root + "/bronze/events")).isLessThan(200);
  }

  @Test
  void availableNowRunsEachLayerToTheEndOfItsInputAndExitsZero(@TempDir Path tmp) throws Exception {
    Path root = tmp.resolve("lake");
    land(root, 0, 3);
    int exit;
    String log;
    Path runLog = StreamProcess.logFile("RunCommandIT-available-now");
    try (StreamProcess run = StreamProcess.run(runLog, sets(root), "--available-now")) {
      exit = run.await(BOUND);
      log = run.logText();
    }
    assertThat(exit).isZero();
    assertThat(log)
        .doesNotContain(" ERROR ")
        .contains("bronze_web done: 3 micro-batches, 30 rows read, 0 dropped by the watermark")
        .contains("gold_page_5m done: ");
    assertThat(DeltaTablesProbe.count(spark, root + "/bronze/events")).isEqualTo(30);
    assertThat(DeltaTablesProbe.sum(spark, root + "/gold/page_5m", "events")).isEqualTo(30);
    ProgressAssert.exactlyOncePerBatch(
        spark, root, List.of("bronze_web", "silver_events", "gold_page_5m"));

    // The next run resumes from the checkpoints: only the new file is read.
    land(root, 3, 1);
    try (StreamProcess run = StreamProcess.run(runLog, sets(root), "--available-now")) {
      exit = run.await(BOUND);
      log = run.logText();
    }
    assertThat(exit).isZero();
    assertThat(log)
        .doesNotContain(" ERROR ")
        .contains("bronze_web done: 1 micro-batches, 10 rows read, 0 dropped by the watermark");
    assertThat(DeltaTablesProbe.sum(spark, root + "/gold/page_5m", "events")).isEqualTo(40);
    ProgressAssert.exactlyOncePerBatch(
        spark, root, List.of("bronze_web", "silver_events", "gold_page_5m"));
  }

  @Test
  void oneQueryFailingStopsTheOthersAndExitsOne(@TempDir Path tmp) throws Exception {
    Path root = tmp.resolve("lake");
    land(root, 0, 1);
    int exit;
    String log;
    Path runLog = StreamProcess.logFile("RunCommandIT-failure");
    try (StreamProcess run = StreamProcess.run(runLog, sets(root))) {
      run.waitForTables(
          "gold", BOUND, () -> DeltaTablesProbe.sum(spark, root + "/gold/page_5m", "events") == 10);
      // Break gold: its table is no longer a Delta table, so its next MERGE fails.
      try (Stream<Path> files = Files.walk(root.resolve("gold/page_5m/_delta_log"))) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
      land(root, 1, 1);
      exit = run.await(BOUND);
      log = run.logText();
    }
    assertThat(exit).isEqualTo(1);
    assertThat(log)
        .contains("Stream gold_page_5m failed: ")
        .contains("; stopped bronze_web, silver_events");
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
            StreamProcess.logFile("RunCommandIT-demo-sigterm"),
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

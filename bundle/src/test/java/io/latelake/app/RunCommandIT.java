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
 * {@code latelake run} in its own JVM on landing files: {@code --available-now} takes each layer to
 * the end of its input and exits 0; one query failing stops the others and exits 1 naming it.
 * SIGTERM: {@link RunSigtermIT}.
 */
class RunCommandIT extends SparkTestBase {
  private static final Duration BOUND = Duration.ofMinutes(10);

  /**
   * Leaves table registration to the available-now runs, which start and resume with it, and to
   * {@link RunSigtermIT} (a Hive metastore on embedded Derby): about 9 s of each child's start.
   */
  static final String NO_REGISTER = "lake.catalog.jobs-register=false";

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
  static void land(Path root, int from, int files) {
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
        .contains("gold_page_5m done: ")
        // the tables registered by the job, in the lake's own Derby metastore
        .contains("CatalogRegister: Catalog: ");
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
        .contains("bronze_web done: 1 micro-batches, 10 rows read, 0 dropped by the watermark")
        // the resumed run finds every table registered
        .doesNotContain("CatalogRegister: Catalog: ");
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
    try (StreamProcess run = StreamProcess.run(runLog, sets(root, NO_REGISTER))) {
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
}

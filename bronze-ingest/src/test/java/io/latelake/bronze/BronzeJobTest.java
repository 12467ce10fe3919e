package io.latelake.bronze;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import io.latelake.bronze.replay.CapturedEvents;
import io.latelake.bronze.replay.LandingWriter;
import io.latelake.bronze.replay.ReplayPlan;
import io.latelake.core.config.ConfigLoader;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.job.JobContext;
import io.latelake.core.streaming.CheckpointException;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.testing.SparkTestBase;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BronzeJobTest extends SparkTestBase {
  private static final Path PHONE_DATA =
      repoRoot().resolve("data/ooo-iot-umts/ooo_umts_events.csv.gz");

  @TempDir Path tmp;

  static Path repoRoot() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.exists(p.resolve("data/ooo-iot-umts"))) {
      p = p.getParent();
    }
    if (p == null) {
      throw new IllegalStateException("repository root with data/ not found");
    }
    return p;
  }

  private Config config(Path root, String... extra) {
    List<String> sets = new ArrayList<>();
    sets.add("lake.root=\"" + root + "\"");
    sets.add("lake.bronze.files.path=\"" + root.resolve("landing") + "\"");
    sets.addAll(List.of(extra));
    return ConfigLoader.load(Optional.of(repoRoot().resolve("conf/ooo-umts.conf")), sets);
  }

  private long bronzeRows(Path root) {
    return spark.read().format("delta").load(root + "/bronze/events").count();
  }

  @Test
  void realPhoneDataEveryRecordBecomesExactlyOneValidRow() {
    Path root = tmp.resolve("phone");
    List<CapturedEvents.Event> events = CapturedEvents.read(PHONE_DATA, "arrival_time");
    assertThat(events).hasSize(46_800);
    List<List<CapturedEvents.Event>> slices = ReplayPlan.slices(events, Duration.ofMinutes(10));
    LandingWriter w = new LandingWriter(root.resolve("landing"));
    for (int i = 0; i < slices.size(); i++) {
      w.write(i + 1, slices.get(i));
    }
    Config c = config(root);
    BronzeJob.Result r =
        new BronzeJob(
                JobContext.start(spark, TableRegistry.fromConfig(c)), BronzeConfig.fromConfig(c))
            .run();

    assertThat(r.summary().inputRows()).isEqualTo(46_800);
    Row counts =
        spark
            .read()
            .format("delta")
            .load(root + "/bronze/events")
            .selectExpr(
                "count(*)",
                "count_if(error IS NULL)",
                "count(DISTINCT event_id)",
                "CAST(min(event_time) AS STRING)",
                "CAST(max(enqueued_time) AS STRING)",
                "count(DISTINCT source_file)")
            .first();
    assertThat(counts.getLong(0)).isEqualTo(46_800);
    assertThat(counts.getLong(1)).isEqualTo(46_800);
    assertThat(counts.getLong(2)).isEqualTo(46_800);
    assertThat(counts.getString(3)).isEqualTo("2014-11-10 12:53:39.862");
    assertThat(counts.getString(4)).isEqualTo("2014-11-10 14:06:54.47");
    assertThat(counts.getLong(5)).isEqualTo(slices.size());
  }

  @Test
  void restartResumesFromTheCheckpointWithoutLossOrDuplicates() throws Exception {
    Path root = tmp.resolve("restart");
    LandingWriter w = new LandingWriter(root.resolve("landing"));
    Config c = config(root, "lake.bronze.files.max-files-per-trigger=1");
    BronzeConfig bc = BronzeConfig.fromConfig(c);
    TableRegistry tables = TableRegistry.fromConfig(c);
    w.writeLines("a.jsonl", List.of(line("d-1:dev_1:1"), line("d-1:dev_1:2"), "{broken"));
    w.writeLines("b.jsonl", List.of(line("d-1:dev_1:3")));
    assertThat(new BronzeJob(JobContext.start(spark, tables), bc).run().summary().batches())
        .isEqualTo(2);
    assertThat(bronzeRows(root)).isEqualTo(4);

    // New input after a stop: only it is read.
    w.writeLines("c.jsonl", List.of(line("d-1:dev_1:4"), ""));
    new BronzeJob(JobContext.start(spark, tables), bc).run();
    assertThat(bronzeRows(root)).isEqualTo(6);

    // The last micro-batch ran but its commit was lost: the restart, in a JVM that knows nothing
    // of the earlier run, runs it again, finds the batch id it already committed in the marker of
    // bronze's last commit and skips the write: bronze stays as it was (the skipped batch reads
    // nothing, so it reports no input rows).
    Path commits = Path.of(root + "/_checkpoints/bronze_ooo_umts/commits");
    File[] done = commits.toFile().listFiles((d, n) -> n.matches("\\d+"));
    Arrays.sort(done, Comparator.comparingLong(f -> Long.parseLong(f.getName())));
    File last = done[done.length - 1];
    Files.delete(last.toPath());
    Files.deleteIfExists(commits.resolve("." + last.getName() + ".crc"));
    io.latelake.core.streaming.MicroBatchCommits.forgetAll();
    BronzeJob.Result again = new BronzeJob(JobContext.start(spark, tables), bc).run();
    assertThat(again.summary().batches()).isEqualTo(1);
    assertThat(again.summary().inputRows()).isEqualTo(0);
    assertThat(bronzeRows(root)).isEqualTo(6);
    List<String> errors =
        spark
            .read()
            .format("delta")
            .load(root + "/bronze/events")
            .selectExpr("coalesce(error, 'OK')")
            .as(org.apache.spark.sql.Encoders.STRING())
            .collectAsList()
            .stream()
            .sorted()
            .toList();
    assertThat(errors).containsExactly("MALFORMED", "MALFORMED", "OK", "OK", "OK", "OK");
    // Each micro-batch's input and quarantined rows, as monitoring.stream_progress records them:
    // a.jsonl's "{broken", none in b.jsonl (the file source may take either first), c.jsonl's
    // empty line; the replayed micro-batch read nothing.
    assertThat(
            spark
                .read()
                .format("delta")
                .load(tables.streamProgress())
                .filter("query_name = 'bronze_ooo_umts'")
                .selectExpr("concat_ws(' ', input_rows, rows_quarantined)")
                .as(org.apache.spark.sql.Encoders.STRING())
                .collectAsList())
        .containsExactlyInAnyOrder("3 1", "1 0", "2 1", "0 0");
  }

  private static String line(String id) {
    return "{\"event_id\":\""
        + id
        + "\",\"event_time\":\"2014-11-10T12:53:39.862Z\","
        + "\"arrival_time\":\"2014-11-10T12:53:40.001Z\",\"device_id\":\"dev_1\","
        + "\"session\":\"d-1\",\"seq\":\"1\",\"http_content_length\":\"264\"}";
  }

  @Test
  void aTableWithCommitsButNoCheckpointIsAnErrorNotARestartFromScratch() throws Exception {
    Path root = tmp.resolve("guard");
    new LandingWriter(root.resolve("landing")).writeLines("a.jsonl", List.of(line("x:1:1")));
    Config c = config(root);
    BronzeConfig bc = BronzeConfig.fromConfig(c);
    TableRegistry tables = TableRegistry.fromConfig(c);
    new BronzeJob(JobContext.start(spark, tables), bc).run();
    org.apache.commons.io.FileUtils.deleteDirectory(
        new File(root + "/_checkpoints/bronze_ooo_umts"));
    assertThatThrownBy(() -> new BronzeJob(JobContext.start(spark, tables), bc).run())
        .isInstanceOf(CheckpointException.class)
        .hasMessage(
            "Cannot start stream 'bronze_ooo_umts': table "
                + root
                + "/bronze/events "
                + "has commits but checkpoint "
                + root
                + "/_checkpoints/bronze_ooo_umts has none. "
                + "Restarting from scratch would read the input again; restore the checkpoint, or "
                + "delete the table and the checkpoint to rebuild on purpose.");
    assertThat(bronzeRows(root)).isEqualTo(1);
  }

  @Test
  void missingLandingFolderIsAConfigError() {
    Path root = tmp.resolve("nolanding");
    Config c = config(root);
    assertThatThrownBy(
            () ->
                new BronzeJob(
                        JobContext.start(spark, TableRegistry.fromConfig(c)),
                        BronzeConfig.fromConfig(c))
                    .run())
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '"
                + root.resolve("landing")
                + "' for key "
                + "'lake.bronze.files.path': the landing folder does not exist");
  }

  /**
   * A second landing folder (another {@code lake.event.source-name}, its own query and checkpoint)
   * added to a lake whose bronze already has rows: its first start is allowed; once it has rows and
   * loses its checkpoint, it is refused like any other query.
   */
  @Test
  void aNewSourceStartsOnALakeWithRowsAndItsLostCheckpointIsStillRefused() throws Exception {
    Path root = tmp.resolve("two-sources");
    String a = "{\"event_id\":\"a1\",\"event_time\":\"2024-05-14T10:00:00Z\"}";
    String b = "{\"event_id\":\"b1\",\"event_time\":\"2024-05-14T10:00:01Z\"}";
    new LandingWriter(root.resolve("landing-a")).writeLines("a.jsonl", List.of(a));
    new LandingWriter(root.resolve("landing-b")).writeLines("b.jsonl", List.of(b));
    Config ca =
        config(
            root,
            "lake.event.source-name=gw_a",
            "lake.bronze.files.path=\"" + root.resolve("landing-a") + "\"");
    Config cb =
        config(
            root,
            "lake.event.source-name=gw_b",
            "lake.bronze.files.path=\"" + root.resolve("landing-b") + "\"");
    TableRegistry tables = TableRegistry.fromConfig(ca);
    new BronzeJob(JobContext.start(spark, tables), BronzeConfig.fromConfig(ca)).run();
    new BronzeJob(JobContext.start(spark, tables), BronzeConfig.fromConfig(cb)).run();
    assertThat(
            spark
                .read()
                .format("delta")
                .load(root + "/bronze/events")
                .selectExpr("concat(source, ' ', event_id)")
                .as(org.apache.spark.sql.Encoders.STRING())
                .collectAsList())
        .containsExactlyInAnyOrder("gw_a a1", "gw_b b1");

    // The same folder under a new source name would read every file again: refused.
    Config renamed =
        config(
            root,
            "lake.event.source-name=gw_a_renamed",
            "lake.bronze.files.path=\"" + root.resolve("landing-a") + "\"");
    assertThatThrownBy(
            () ->
                new BronzeJob(JobContext.start(spark, tables), BronzeConfig.fromConfig(renamed))
                    .run())
        .isInstanceOf(CheckpointException.class)
        .hasMessageStartingWith("Cannot start stream 'bronze_gw_a_renamed': table ");

    org.apache.commons.io.FileUtils.deleteDirectory(
        root.resolve("_checkpoints/bronze_gw_b").toFile());
    assertThatThrownBy(
            () -> new BronzeJob(JobContext.start(spark, tables), BronzeConfig.fromConfig(cb)).run())
        .isInstanceOf(CheckpointException.class)
        .hasMessageStartingWith(
            "Cannot start stream 'bronze_gw_b': table " + root + "/bronze/events");
    assertThat(bronzeRows(root)).isEqualTo(2);
  }

  /** Two first starts at once on an empty lake: both create the table; neither fails. */
  @Test
  void tablesCreatedByTwoStartsAtOnceAreOneTable() throws Exception {
    var schema = new org.apache.spark.sql.types.StructType().add("id", "long");
    for (int round = 0; round < 8; round++) {
      String path = tmp.resolve("race-" + round).toString();
      var barrier = new java.util.concurrent.CyclicBarrier(2);
      var pool = java.util.concurrent.Executors.newFixedThreadPool(2);
      try {
        List<java.util.concurrent.Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
          done.add(
              pool.submit(
                  () -> {
                    barrier.await();
                    io.latelake.core.table.DeltaTables.createIfNotExists(
                        spark, path, schema, List.of(), java.util.Map.of());
                    return null;
                  }));
        }
        for (var f : done) {
          f.get();
        }
      } finally {
        pool.shutdown();
      }
      assertThat(spark.read().format("delta").load(path).columns()).containsExactly("id");
    }
  }
}

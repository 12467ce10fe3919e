package io.latelake.core.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latelake.core.job.JobContext;
import io.latelake.core.table.DeltaTables;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.testing.SparkTestBase;
import java.io.File;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.WriterAppender;
import org.apache.logging.log4j.core.layout.PatternLayout;
import org.apache.spark.metrics.source.CodegenMetrics;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The streaming template's common steps, on a one-stream job that copies positive values. */
class StreamingJobTest extends SparkTestBase {
  @TempDir Path tmp;

  /** Streams {@code <root>/input} into {@code <root>/output}, keeping values above its config. */
  private static final class CopyJob extends StreamingJob<Long> {
    CopyJob(JobContext context) {
      super(context, 0L, "copy");
    }

    @Override
    protected List<StreamPlan> plans() {
      String root = context.tables().root();
      return List.of(
          new StreamPlan(
              "copy_values",
              lakeTable("input_values", root + "/input", "input"),
              in -> in.filter(in.col("value").gt(config)),
              root + "/output",
              new StreamPlan.Append(),
              new TriggerSpec(true, Duration.ofSeconds(1))));
    }
  }

  /**
   * Streams {@code <root>/input} into {@code <root>/output}, deduplicated on {@code value} within a
   * 10 s watermark on event time {@code value} seconds, without empty commits.
   */
  private static final class DedupJob extends StreamingJob<Long> {
    DedupJob(JobContext context) {
      super(context, 0L, "dedup");
    }

    @Override
    protected List<StreamPlan> plans() {
      String root = context.tables().root();
      return List.of(
          new StreamPlan(
              "dedup_values",
              lakeTable("input_values", root + "/input", "input"),
              StreamingJobTest::dedup,
              root + "/output",
              new StreamPlan.Append().withoutEmptyCommits(),
              new TriggerSpec(true, Duration.ofSeconds(1))));
    }
  }

  /** {@link DedupJob}'s transform. */
  private static org.apache.spark.sql.Dataset<Row> dedup(org.apache.spark.sql.Dataset<Row> in) {
    return in.withColumn("t", org.apache.spark.sql.functions.timestamp_seconds(in.col("value")))
        .withWatermark("t", "10 seconds")
        .dropDuplicatesWithinWatermark("value")
        .select("value");
  }

  /**
   * Runs {@link DedupJob}'s stream through Delta's streaming sink, as silver wrote before, on the
   * same checkpoint, until its input is read.
   *
   * @return its micro-batches
   */
  private long runThroughTheDeltaSink(String root) throws Exception {
    org.apache.spark.sql.streaming.StreamingQuery q =
        dedup(spark.readStream().format("delta").load(root + "/input"))
            .writeStream()
            .queryName("dedup_values")
            .format("delta")
            .outputMode("append")
            .option("checkpointLocation", root + "/_checkpoints/dedup_values")
            .trigger(org.apache.spark.sql.streaming.Trigger.AvailableNow())
            .start(root + "/output");
    q.awaitTermination();
    return q.recentProgress().length;
  }

  /**
   * A lake whose silver wrote through Delta's streaming sink continues on the same checkpoint
   * without empty commits: a micro-batch the sink committed to the table but not to the checkpoint
   * (a crash in between, then the upgrade) is not written again, as the sink's transaction
   * identifiers (query id, batch id) are the ones the new write gives.
   */
  @Test
  void aStreamThatWroteThroughTheDeltaSinkContinuesWithoutEmptyCommitsOnItsCheckpoint()
      throws Exception {
    String root = tmp.resolve("upgrade").toString();
    JobContext context = JobContext.start(spark, new TableRegistry(root));
    append(root, 100L, 130L);
    // micro-batch 0 with rows, no-data micro-batch 1: two versions written by the sink
    long sink = runThroughTheDeltaSink(root);
    append(root, 125L);
    // micro-batch 2 through the sink, then its checkpoint commit lost
    long sinkAgain = runThroughTheDeltaSink(root);
    loseCheckpointCommit(root, 2);
    StreamSummary rerun = new DedupJob(context).run().summary();
    append(root, 140L);
    // micro-batch 3 with rows, no-data micro-batch 4 (the watermark moves to 130 s)
    StreamSummary after = new DedupJob(context).run().summary();

    assertThat(
            List.of(
                sink,
                sinkAgain,
                rerun.batches(),
                rerun.inputRows(),
                after.batches(),
                after.inputRows()))
        .containsExactly(2L, 1L, 1L, 1L, 2L, 1L);
    assertThat(output(root)).containsExactly(100L, 125L, 130L, 140L);
    // after version 0 (the sink's micro-batch 0, which created the table): the sink's micro-batches
    // 1 and 2, the rerun of 2 skipped, micro-batch 3 with rows, the no-data 4 without a commit
    assertThat(outputVersions(root))
        .containsExactly("1 STREAMING UPDATE", "2 STREAMING UPDATE", "3 WRITE");
  }

  /**
   * Without empty commits, the no-data micro-batch after a watermark move commits no table version,
   * and a micro-batch run again after a crash (its table commit made, its checkpoint commit lost)
   * writes nothing twice: the commit's marker (query id, batch id) is in the table's history.
   */
  @Test
  void withoutEmptyCommitsANoDataMicroBatchCommitsNothingAndARerunWritesNothingTwice()
      throws Exception {
    String root = tmp.resolve("dedup").toString();
    JobContext context = JobContext.start(spark, new TableRegistry(root));
    append(root, 100L, 100L, 130L);
    // micro-batch 0: 100 and 130; the watermark moves to 120 s: no-data micro-batch 1
    StreamSummary first = new DedupJob(context).run().summary();
    append(root, 125L);
    // micro-batch 2: 125 (ahead of the watermark, which stays)
    StreamSummary second = new DedupJob(context).run().summary();
    loseCheckpointCommit(root, 2);
    // a crash: the JVM that runs micro-batch 2 again knows nothing of the earlier run; the table's
    // history marks micro-batch 2 as committed
    MicroBatchCommits.forgetAll();
    StreamSummary rerun = new DedupJob(context).run().summary();

    assertThat(
            List.of(
                first.batches(),
                first.inputRows(),
                second.batches(),
                second.inputRows(),
                rerun.batches(),
                rerun.inputRows()))
        .containsExactly(2L, 3L, 1L, 1L, 1L, 1L);
    assertThat(output(root)).containsExactly(100L, 125L, 130L);
    // the table's versions after its creation: the two micro-batches with rows, nothing else,
    // each with its marker
    assertThat(outputVersions(root)).containsExactly("1 WRITE", "2 WRITE");
    assertThat(
            io.delta.tables.DeltaTable.forPath(spark, root + "/output")
                .history()
                .filter("version > 0")
                .orderBy("version")
                .selectExpr(
                    "regexp_replace(userMetadata, '\"latelake_writer\":\"[0-9a-f-]{36}\"',"
                        + " 'QUERY')")
                .as(Encoders.STRING())
                .collectAsList())
        .containsExactly("{QUERY,\"micro_batch\":0}", "{QUERY,\"micro_batch\":2}");
  }

  @Test
  void aMissingInputTableIsAConfigErrorAndNothingIsCreated() {
    String root = tmp.resolve("missing").toString();
    CopyJob job = new CopyJob(JobContext.start(spark, new TableRegistry(root)));

    assertThatThrownBy(job::starts)
        .isInstanceOf(io.latelake.core.table.MissingTableException.class)
        .hasMessage(
            "Cannot start copy stream: table input_values does not exist at "
                + root
                + "/input (lake.root); run `latelake input` first");
    assertThat(DeltaTables.exists(spark, root + "/output")).isFalse();
  }

  @Test
  void eachRunReadsWhatIsNewAndAMissingCheckpointIsAnError() throws Exception {
    String root = tmp.resolve("copy").toString();
    JobContext context = JobContext.start(spark, new TableRegistry(root));
    append(root, 1L, -1L, 2L);

    StreamSummary first = new CopyJob(context).run().summary();
    append(root, 5L);
    StreamSummary second = new CopyJob(context).run().summary();

    assertThat(List.of(first.queryName(), first.batches(), first.inputRows()))
        .containsExactly("copy_values", 1L, 3L);
    assertThat(List.of(second.batches(), second.inputRows())).containsExactly(1L, 1L);
    assertThat(output(root)).containsExactly(1L, 2L, 5L);
    // One progress row per micro-batch, written by the recorder's blind appends.
    assertThat(
            spark
                .read()
                .format("delta")
                .load(context.tables().streamProgress())
                .orderBy("batch_id")
                .select("query_name", "batch_id", "input_rows", "recovery")
                .collectAsList()
                .stream()
                .map(Row::toString)
                .toList())
        .containsExactly("[copy_values,0,3,null]", "[copy_values,1,1,null]");
    // The recorder created the table with a Delta checkpoint every 100 commits.
    assertThat(
            io.latelake.core.table.TableProperties.get(
                spark, context.tables().streamProgress(), "delta.checkpointInterval"))
        .contains("100");

    org.apache.commons.io.FileUtils.deleteDirectory(new File(root + "/_checkpoints/copy_values"));
    assertThatThrownBy(() -> new CopyJob(context).run())
        .isInstanceOf(CheckpointException.class)
        .hasMessage(
            "Cannot start stream 'copy_values': table "
                + root
                + "/output has commits "
                + "but checkpoint "
                + root
                + "/_checkpoints/copy_values has none. Restarting from "
                + "scratch would read the input again; restore the checkpoint, or delete the table "
                + "and the checkpoint to rebuild on purpose.");
    assertThat(output(root)).containsExactly(1L, 2L, 5L);
  }

  /**
   * A run that finds nothing new (a cron run between two arrivals) ends without waiting for a
   * progress event Spark never posts: its idle trigger is in {@code lastProgress()} but reaches
   * listeners as a QueryIdleEvent. The summary waits for the run's termination event instead, so
   * the runner logs no warning that the listener missed the run's end.
   */
  @Test
  void aRunWithoutNewDataEndsWithoutWaitingForAnUnpostedProgress() {
    String root = tmp.resolve("idle").toString();
    JobContext context = JobContext.start(spark, new TableRegistry(root));
    append(root, 4L);
    StreamSummary first = new CopyJob(context).run().summary();

    StreamSummary[] idleRun = new StreamSummary[1];
    String log = warnings("io.latelake", () -> idleRun[0] = new CopyJob(context).run().summary());
    StreamSummary idle = idleRun[0];

    assertThat(List.of(first.batches(), first.inputRows(), idle.batches(), idle.inputRows()))
        .containsExactly(1L, 1L, 0L, 0L);
    assertThat(log).isEmpty();
    assertThat(output(root)).containsExactly(4L);
    assertThat(spark.read().format("delta").load(context.tables().streamProgress()).count())
        .isEqualTo(1);
  }

  /**
   * A recorder that closes leaves a mark in the query's checkpoint of the rows the table holds. A
   * process that starts the query later trusts a mark that covers the checkpoint's last commit and
   * does not read the table; with an older mark (a run killed since) it reads the table and writes
   * what is missing. Here another table path string of the same table stands for that process: the
   * rows this JVM wrote count for their own path only.
   */
  @Test
  void aClosedRecorderLeavesAMarkThatSparesTheNextStartTheTableRead() throws Exception {
    String root = tmp.resolve("mark").toString();
    JobContext context = JobContext.start(spark, new TableRegistry(root));
    String table = context.tables().streamProgress();
    String checkpoint = context.tables().checkpoint("copy_values");
    append(root, 1L);
    new CopyJob(context).run();
    append(root, 2L);
    new CopyJob(context).run();
    UUID id = new Checkpoints(spark, checkpoint).queryId().orElseThrow();
    java.nio.file.Path markFile = java.nio.file.Path.of(checkpoint, ProgressMark.FILE);
    assertThat(java.nio.file.Files.readString(markFile))
        .isEqualTo(
            "{\"progress_table\":\""
                + table
                + "\",\"query_id\":\""
                + id
                + "\",\"recorded_through\":1}");

    // micro-batch 1's row lost, as when a process is killed between the commit and the row
    spark.sql("DELETE FROM delta.`" + table + "` WHERE batch_id = 1");
    String same = "file:" + table;
    ProgressMark.write(spark, checkpoint, same, id, 1);
    try (ProgressRecorder r = new ProgressRecorder(spark, same, Set.of()).start()) {
      assertThat(r.recordMissing("copy_values", checkpoint, "killed")).isZero();
    }
    ProgressMark.write(spark, checkpoint, same, id, 0);
    try (ProgressRecorder r = new ProgressRecorder(spark, same, Set.of()).start()) {
      assertThat(r.recordMissing("copy_values", checkpoint, "killed")).isEqualTo(1);
    }
    assertThat(progressRows(table, "batch_id", "recovery"))
        .containsExactly("[0,null]", "[1,killed]");
    assertThat(ProgressMark.read(spark, checkpoint, same, id)).isEqualTo(1);

    // a mark of another table or query id, or one cut short, counts as none
    assertThat(ProgressMark.read(spark, checkpoint, table, id)).isEqualTo(-1);
    assertThat(ProgressMark.read(spark, checkpoint, same, UUID.randomUUID())).isEqualTo(-1);
    java.nio.file.Files.writeString(markFile, "{\"progress_table\":");
    java.nio.file.Files.deleteIfExists(
        java.nio.file.Path.of(checkpoint, "." + ProgressMark.FILE + ".crc"));
    assertThat(ProgressMark.read(spark, checkpoint, same, id)).isEqualTo(-1);
  }

  @Test
  void aSharedWriteOnFlushRecorderWritesTheRowsOfSeveralRunsInOneAppend() {
    String root = tmp.resolve("shared").toString();
    JobContext context = JobContext.start(spark, new TableRegistry(root));
    String table = context.tables().streamProgress();
    append(root, 1L, 2L);
    try (ProgressRecorder shared =
        new ProgressRecorder(spark, table, Set.of()).writeOnFlush().start()) {
      StreamSummary first = new CopyJob(context).run(shared).summary();
      append(root, 3L);
      StreamSummary second = new CopyJob(context).run(shared).summary();
      assertThat(List.of(first.inputRows(), second.inputRows())).containsExactly(2L, 1L);
      // Nothing written before the flush: the table holds only its creation.
      assertThat(spark.read().format("delta").load(table).count()).isZero();

      shared.flush();
      assertThat(progressRows(table, "query_name", "batch_id", "input_rows"))
          .containsExactly("[copy_values,0,2]", "[copy_values,1,1]");
      // Both rows in one append (version 0 created the table).
      assertThat(
              io.delta.tables.DeltaTable.forPath(spark, table)
                  .history()
                  .filter("operation = 'WRITE'")
                  .select("version")
                  .as(Encoders.LONG())
                  .collectAsList())
          .containsExactly(1L);
    }
    assertThat(output(root)).containsExactly(1L, 2L, 3L);
  }

  @Test
  void aWriteAfterAFailureSkipsTheRowsTheTableAlreadyHolds() {
    String table = tmp.resolve("progress").toString();
    UUID x = UUID.randomUUID();
    UUID y = UUID.randomUUID();
    try (ProgressWriter writer = new ProgressWriter(spark, table, false)) {
      spark
          .createDataFrame(
              List.of(progress(x, 0), progress(x, 1), progress(x, 2), progress(y, 1)),
              StreamProgressTable.SCHEMA)
          .write()
          .format("delta")
          .mode("append")
          .save(table);

      assertThat(writer.withoutRecorded(x, List.of(progress(x, 1), progress(x, 3), progress(x, 4))))
          .extracting(r -> r.getLong(3))
          .containsExactly(3L, 4L);
      assertThat(writer.withoutRecorded(y, List.of(progress(y, 0), progress(y, 1))))
          .extracting(r -> r.getLong(3))
          .containsExactly(0L);
    }
  }

  /** A stream_progress row of query {@code id}, micro-batch {@code batch}, figures left null. */
  private static Row progress(UUID id, long batch) {
    Object[] cells = new Object[StreamProgressTable.SCHEMA.size()];
    cells[0] = "q";
    cells[1] = id.toString();
    cells[3] = batch;
    return RowFactory.create(cells);
  }

  /**
   * Each run of a scheduled stream starts a new query, which Spark runs in a clone of the session.
   * With Spark's defaults the classes generated for the query were compiled again at every start
   * (one executor class loader per session clone, see SparkSessions.CODEGEN_DEFAULTS).
   */
  @Test
  void aRestartedStreamCompilesNoClassItsEarlierRunAlreadyCompiled() {
    String root = tmp.resolve("codegen").toString();
    JobContext context = JobContext.start(spark, new TableRegistry(root));
    append(root, 1L, 2L);
    new CopyJob(context).run().summary();
    append(root, 3L);
    new CopyJob(context).run().summary();
    append(root, 4L, 5L);

    long before = CodegenMetrics.METRIC_COMPILATION_TIME().getCount();
    StreamSummary third = new CopyJob(context).run().summary();
    long compiled = CodegenMetrics.METRIC_COMPILATION_TIME().getCount() - before;

    assertThat(List.of(third.batches(), third.inputRows(), compiled)).containsExactly(1L, 2L, 0L);
    assertThat(output(root)).containsExactly(1L, 2L, 3L, 4L, 5L);
    assertThat(spark.conf().get("spark.sql.artifact.isolation.enabled")).isEqualTo("false");
    assertThat(spark.conf().get("spark.sql.codegen.cache.maxEntries")).isEqualTo("1000");
  }

  /**
   * A micro-batch on local paths writes offsets, commits, a Delta commit with its checksum and
   * Parquet files: with Hadoop's local file system each created file started a {@code chmod} and
   * each rename two {@code readlink} processes (SparkSessions.LOCAL_FS_DEFAULTS); none now.
   */
  @Test
  void aMicroBatchOnLocalPathsStartsNoFileSystemProcess() throws Exception {
    String root = tmp.resolve("processes").toString();
    JobContext context = JobContext.start(spark, new TableRegistry(root));
    append(root, 1L, 2L);
    new CopyJob(context).run().summary();
    append(root, 3L);
    List<String> commands = new ArrayList<>();
    StreamSummary second;
    try (jdk.jfr.Recording r = new jdk.jfr.Recording()) {
      r.enable("jdk.ProcessStart").withStackTrace();
      r.start();
      second = new CopyJob(context).run().summary();
      r.stop();
      java.nio.file.Path dump = tmp.resolve("processes.jfr");
      r.dump(dump);
      for (var e : jdk.jfr.consumer.RecordingFile.readAllEvents(dump)) {
        // Hadoop's file system's processes (Spark itself may ask `getconf PAGESIZE` once)
        if (e.getStackTrace().getFrames().stream()
            .anyMatch(f -> f.getMethod().getType().getName().startsWith("org.apache.hadoop.fs."))) {
          commands.add(e.getString("command"));
        }
      }
    }
    assertThat(List.of(second.batches(), second.inputRows())).containsExactly(1L, 1L);
    assertThat(output(root)).containsExactly(1L, 2L, 3L);
    assertThat(commands).isEmpty();
    assertThat(
            org.apache.hadoop.fs.FileSystem.get(
                    java.net.URI.create("file:///"), spark.sparkContext().hadoopConfiguration())
                .getClass()
                .getName())
        .isEqualTo("io.latelake.core.spark.NioLocalFileSystem");
  }

  /** The versions of {@code <root>/output} after its creation, as "version operation". */
  private List<String> outputVersions(String root) {
    return io.delta.tables.DeltaTable.forPath(spark, root + "/output")
        .history()
        .filter("version > 0")
        .orderBy("version")
        .selectExpr("concat(version, ' ', operation)")
        .as(Encoders.STRING())
        .collectAsList();
  }

  /**
   * A scheduled (available-now) run of a stateful stream logs no snapshot-lag warning of Spark's
   * state store coordinator, which in a short run counts the checkpoint's snapshots on disk as
   * never uploaded. Spark's thresholds are lowered here (a snapshot every delta, a report at once)
   * so that the warning would come in the third run instead of after 50 micro-batches; the same
   * runs warned before the available-now trigger turned the report off.
   */
  @Test
  void aScheduledRunOfAStatefulStreamLogsNoSnapshotLagWarning() {
    String root = tmp.resolve("lag").toString();
    JobContext context = JobContext.start(spark, new TableRegistry(root));
    List<String> lowered =
        List.of(
            "spark.sql.streaming.stateStore.minDeltasForSnapshot",
            "spark.sql.streaming.stateStore.multiplierForMinVersionDiffToLog",
            "spark.sql.streaming.stateStore.snapshotLagReportInterval");
    lowered.forEach(k -> spark.conf().set(k, k.endsWith("Interval") ? "0" : "1"));
    List<Long> batches = new ArrayList<>();
    String log;
    try {
      log =
          warnings(
              "org.apache.spark.sql.execution.streaming.state.StateStoreCoordinator",
              () -> {
                for (long v : new long[] {100L, 130L, 160L, 190L}) {
                  append(root, v);
                  batches.add(new DedupJob(context).run().summary().batches());
                }
              });
    } finally {
      lowered.forEach(k -> spark.conf().unset(k));
    }

    // each run a micro-batch and the no-data one its watermark move needs: 8 state versions
    assertThat(batches).containsExactly(2L, 2L, 2L, 2L);
    assertThat(output(root)).containsExactly(100L, 130L, 160L, 190L);
    assertThat(log).isEmpty();
    assertThat(spark.conf().get(StreamingJob.SNAPSHOT_LAG_REPORT)).isEqualTo("false");
  }

  /**
   * Runs {@code body} with the WARN and ERROR lines of logger {@code name} (and its children)
   * captured.
   *
   * @return the captured lines, {@code LEVEL Logger: message}
   */
  private static String warnings(String name, Runnable body) {
    StringWriter log = new StringWriter();
    LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
    WriterAppender capture =
        WriterAppender.newBuilder()
            .setName("capture-" + name)
            .setTarget(log)
            .setLayout(PatternLayout.newBuilder().withPattern("%-5p %c{1}: %m%n").build())
            .build();
    capture.start();
    var configuration = ctx.getConfiguration();
    // a logger the configuration names keeps its settings and gains the appender; another one
    // gets a logger of its own, removed after
    org.apache.logging.log4j.core.config.LoggerConfig existing =
        configuration.getLoggers().get(name);
    if (existing != null) {
      existing.addAppender(capture, Level.WARN, null);
    } else {
      org.apache.logging.log4j.core.config.LoggerConfig own =
          new org.apache.logging.log4j.core.config.LoggerConfig(name, Level.WARN, false);
      own.addAppender(capture, Level.WARN, null);
      configuration.addLogger(name, own);
    }
    ctx.updateLoggers();
    try {
      body.run();
    } finally {
      if (existing != null) {
        existing.removeAppender(capture.getName());
      } else {
        configuration.removeLogger(name);
      }
      ctx.updateLoggers();
      capture.stop();
    }
    return log.toString();
  }

  /**
   * Removes micro-batch {@code batch}'s commit from the dedup job's checkpoint, as a crash after
   * the table's commit and before the checkpoint's leaves it: the next run runs it again.
   */
  private static void loseCheckpointCommit(String root, long batch) throws java.io.IOException {
    java.nio.file.Path commits =
        java.nio.file.Path.of(root, "_checkpoints", "dedup_values", "commits");
    java.nio.file.Files.delete(commits.resolve(Long.toString(batch)));
    java.nio.file.Files.deleteIfExists(commits.resolve("." + batch + ".crc"));
  }

  /** The rows of a stream_progress table by batch id, these columns only, as strings. */
  private List<String> progressRows(String table, String... columns) {
    return spark
        .read()
        .format("delta")
        .load(table)
        .orderBy("batch_id")
        .selectExpr(columns)
        .collectAsList()
        .stream()
        .map(Row::toString)
        .toList();
  }

  private void append(String root, Long... values) {
    spark
        .createDataset(List.of(values), Encoders.LONG())
        .toDF("value")
        .write()
        .format("delta")
        .mode("append")
        .save(root + "/input");
  }

  private List<Long> output(String root) {
    return spark
        .read()
        .format("delta")
        .load(root + "/output")
        .orderBy("value")
        .as(Encoders.LONG())
        .collectAsList();
  }
}

package io.latelake.core.streaming;

import io.latelake.core.config.LakeConfigException;
import io.latelake.core.job.JobContext;
import io.latelake.core.table.DeltaTables;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.DataStreamWriter;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The template every streaming job fills in: a job only says what its streams are ({@link
 * #plans()}: source, pure transform, sink); the steps every stream repeats are here. For each plan,
 * in order: the source is built (a lake table input must exist, see {@link #lakeTable}), the
 * transform applied, the checkpoint guarded ({@link CheckpointGuard}: a table with commits and no
 * checkpoint is an error), the output table created when missing, and a {@link StreamRunner.Start}
 * made that starts the query named {@code queryName} on the checkpoint {@code
 * _checkpoints/<queryName>}. The table creation and {@link #checkOutput} run before a stream's
 * first run in a {@link JobContext} with a given config only ({@link JobContext#firstCheck}); the
 * checkpoint guard runs before every run (a file listing once the checkpoint has started).
 *
 * @param <C> the job's typed config
 */
public abstract class StreamingJob<C> {
  private static final Logger LOG = LoggerFactory.getLogger(StreamingJob.class);

  /**
   * What a run did.
   *
   * @param summaries one per stream, in the order of {@link #plans()}
   */
  public record Result(List<StreamSummary> summaries) {
    /**
     * @return the first stream's summary (a one-stream job's only one)
     */
    public StreamSummary summary() {
      return summaries.get(0);
    }
  }

  protected final JobContext context;
  protected final C config;
  private final String layer;

  /**
   * @param context the run's context
   * @param config the job's typed config
   * @param layer the layer's name in messages, e.g. {@code silver}
   */
  protected StreamingJob(JobContext context, C config, String layer) {
    this.context = context;
    this.config = config;
    this.layer = layer;
  }

  /**
   * @return this job's streams, in the order they start
   */
  protected abstract List<StreamPlan> plans();

  /**
   * Checks each stream's input and checkpoint and creates its output table if needed, without
   * starting the queries: for {@code latelake run}, which starts every layer in one application.
   *
   * @return one query to start per plan
   * @throws LakeConfigException when an input is missing or misconfigured (exit 2)
   * @throws CheckpointException when a checkpoint is missing (exit 2)
   */
  public final List<StreamRunner.Start> starts() {
    List<StreamRunner.Start> starts = new ArrayList<>();
    for (StreamPlan p : plans()) {
      starts.add(prepare(p));
    }
    return starts;
  }

  /**
   * Runs the streams until their input is drained (available-now) or until stopped, and logs one
   * line per stream with what it did.
   *
   * @return one summary per plan, in order
   * @throws LakeConfigException when an input is missing or misconfigured (exit 2)
   * @throws StreamFailedException when a stream fails (exit 1)
   * @throws CheckpointException when a checkpoint is missing (exit 2)
   */
  public final Result run() {
    return logged(StreamRunner.run(context.spark(), context.tables().streamProgress(), starts()));
  }

  /**
   * {@link #run()} with the progress rows recorded by {@code sharedProgress}: a recorder that
   * several runs share and whose owner flushes and closes it (see {@link StreamRunner#run(
   * SparkSession, String, List, ProgressRecorder)}).
   */
  public final Result run(ProgressRecorder sharedProgress) {
    return logged(
        StreamRunner.run(
            context.spark(), context.tables().streamProgress(), starts(), sharedProgress));
  }

  private static Result logged(List<StreamSummary> out) {
    for (StreamSummary s : out) {
      LOG.info(
          "{} done: {} micro-batches, {} rows read, {} dropped by the watermark",
          s.queryName(),
          s.batches(),
          s.inputRows(),
          s.droppedByWatermark());
    }
    return new Result(out);
  }

  /**
   * A job's own checks of a stream's output table, once it exists and before its query starts (e.g.
   * the definition or watermark delay recorded in its properties). Does nothing by default.
   *
   * @param tableSchema the table schema the stream writes (the output table's when it was created
   *     now)
   * @throws LakeConfigException when the stream must not start (exit 2)
   */
  protected void checkOutput(StreamPlan plan, org.apache.spark.sql.types.StructType tableSchema) {}

  /**
   * A watermarked stream's delay (silver, gold).
   *
   * @param setting the delay as configured (its key names it in messages; {@code auto} records each
   *     start's delay in the output table's property, outside the once-per-process start checks)
   * @param delay the delay of this start, recorded with each of its micro-batches in {@code
   *     monitoring.stream_progress} ({@code watermark_delay_ms})
   * @param sources the listed sources, each watermarked on its own
   */
  public record Watermarking(
      WatermarkDelaySetting setting, java.time.Duration delay, SourceWatermarks sources) {}

  /**
   * @return this job's watermark when its streams have one; empty (the default) for a stream
   *     without a watermark. With one, each output's start checks also compare the delay with the
   *     one the output table records ({@link WatermarkDelays#check}: a WARN when they differ; with
   *     {@code auto} nothing) and the checkpoint's watermark inputs with the listed sources ({@link
   *     SourceCheckpoints#check}: exit 2 when the checkpoint was built for other listed sources).
   */
  protected java.util.Optional<Watermarking> watermarking() {
    return java.util.Optional.empty();
  }

  private void checkWatermarks(StreamPlan plan, Watermarking w) {
    if (w.setting().auto().isEmpty()) {
      WatermarkDelays.check(
          context.spark(), plan.outputPath(), plan.queryName(), w.setting().key(), w.delay());
    }
    SourceCheckpoints.check(
        context.spark(),
        context.tables().checkpoint(plan.queryName()),
        plan.queryName(),
        w.sources());
  }

  /**
   * A Delta table of the lake as a streaming source.
   *
   * @param name the table's name in messages, e.g. {@code bronze_events}
   * @param path its path
   * @param producer the command that writes it, e.g. {@code bronze}
   * @return a source that throws {@link LakeConfigException} when the table does not exist yet:
   *     "Cannot start silver stream: table bronze_events does not exist at ... (lake.root); run
   *     `latelake bronze` first"
   */
  protected final Supplier<Dataset<Row>> lakeTable(String name, String path, String producer) {
    return () -> {
      SparkSession spark = context.spark();
      io.latelake.core.table.MissingTableException.require(
          spark, "start " + layer + " stream", name, path, "run `latelake " + producer + "` first");
      return spark.readStream().format("delta").load(path);
    };
  }

  private StreamRunner.Start prepare(StreamPlan p) {
    SparkSession spark = context.spark();
    Dataset<Row> transformed = p.transform().apply(p.source().get());
    // with the streams' metrics on, the appending streams observe their latest enqueued time
    Dataset<Row> out =
        io.latelake.core.metrics.ArrivalObservation.observing(spark)
                && p.sink() instanceof StreamPlan.Append
            ? io.latelake.core.metrics.ArrivalObservation.observeArrivals(spark, transformed)
            : transformed;
    String checkpoint = context.tables().checkpoint(p.queryName());
    CheckpointGuard.requireCheckpointIfTableHasData(
        spark,
        p.queryName(),
        p.outputPath(),
        checkpoint,
        p.sink() instanceof StreamPlan.Append a ? a.ownRows() : java.util.Optional.empty());
    if (context.firstCheck(java.util.Arrays.asList("output", p.queryName(), config))) {
      StreamPlan.Sink sink = p.sink();
      org.apache.spark.sql.types.StructType tableSchema = sink.tableSchema(out.schema());
      DeltaTables.createIfNotExists(
          spark,
          p.outputPath(),
          tableSchema,
          sink instanceof StreamPlan.Append a ? a.partitionBy() : List.of(),
          sink instanceof StreamPlan.Merge m ? m.tableProperties() : Map.of());
      checkOutput(p, tableSchema);
      watermarking().ifPresent(w -> checkWatermarks(p, w));
    }
    if (p.trigger().availableNow()) {
      noSnapshotLagReport(spark);
    }
    java.util.Optional<Watermarking> watermark = watermarking();
    if (watermark.flatMap(w -> w.setting().auto()).isPresent()) {
      // auto: the delay may change from one start to the next, even within one process
      WatermarkDelays.recordIfChanged(spark, p.outputPath(), watermark.get().delay());
    }
    return new StreamRunner.Start(
        p.queryName(),
        checkpoint,
        () -> start(out, p, checkpoint),
        p.restartOn(),
        watermark.map(Watermarking::delay));
  }

  /**
   * Spark's state store coordinator setting that warns of state stores whose snapshot upload trails
   * their latest version ({@code StateStoreCoordinator Snapshot Lag Report}).
   */
  static final String SNAPSHOT_LAG_REPORT =
      "spark.sql.streaming.stateStore.coordinatorReportSnapshotUploadLag";

  /**
   * Turns Spark's snapshot-lag report off for the rest of the process before an available-now
   * query, unless the Spark configuration sets it. The coordinator counts a store's snapshot
   * uploads from the process's start, and the maintenance thread uploads one at most every {@code
   * spark.sql.streaming.stateStore.maintenanceInterval} (60 s) and when the process stops; so a
   * scheduled run of a few seconds in a new process (cron, the lock step of {@code demo}) finds
   * every store of a checkpoint past batch 50 (10 deltas per snapshot times Spark's multiplier 5)
   * "lagging" and logs two warnings per run, though the checkpoint's snapshots are on disk. A
   * long-running stream keeps the report: there it means the maintenance is behind.
   */
  static void noSnapshotLagReport(SparkSession spark) {
    if (!spark.sparkContext().getConf().contains(SNAPSHOT_LAG_REPORT)) {
      spark.conf().set(SNAPSHOT_LAG_REPORT, "false");
    }
  }

  private static StreamingQuery start(Dataset<Row> out, StreamPlan p, String checkpoint) {
    DataStreamWriter<Row> w =
        out.writeStream()
            .queryName(p.queryName())
            .option("checkpointLocation", checkpoint)
            .trigger(p.trigger().toTrigger());
    try {
      if (p.sink() instanceof StreamPlan.Merge m) {
        StreamPlan.BatchMerge merge = m.merge();
        VoidFunction2<Dataset<Row>, Long> each = (batch, batchId) -> merge.merge(batch, batchId);
        return w.outputMode("update").foreachBatch(each).start();
      }
      // not Delta's streaming sink: it rebuilds the table's state before every commit to look up
      // its last micro-batch (MicroBatchCommits)
      StreamPlan.Append a = (StreamPlan.Append) p.sink();
      String path = p.outputPath();
      VoidFunction2<Dataset<Row>, Long> each =
          (batch, batchId) -> AppendRows.write(batch, batchId, path, a);
      return w.outputMode("append").foreachBatch(each).start();
    } catch (TimeoutException e) {
      throw new StreamFailedException("Cannot start " + p.queryName() + ": " + e.getMessage(), e);
    }
  }
}

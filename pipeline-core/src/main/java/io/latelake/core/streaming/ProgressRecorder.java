package io.latelake.core.streaming;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link StreamingQueryListener} that logs one line per micro-batch and has exactly one row per
 * (query, micro-batch) written to {@code monitoring.stream_progress} ({@link StreamProgressTable},
 * written by a {@link ProgressWriter}).
 *
 * <p><b>Exactly once.</b> A micro-batch's progress event is queued once (a repeated event for a
 * batch id already queued is ignored); the writer writes rows of one query in batch-id order and
 * never twice.
 *
 * <p><b>Complete.</b> Rows are queued as soon as Spark reports the micro-batch (the listener never
 * blocks Spark's event bus). Spark keeps a micro-batch's figures in memory only: a process killed
 * between the commit of a micro-batch and the write of its row, or the Kafka connector failure
 * handled by {@link StreamRunner}, loses them. Before a query starts (and before it is restarted)
 * {@link #recordMissing} therefore compares the checkpoint's commit log with the table and writes a
 * row for every committed micro-batch without one ({@link StreamProgressTable#recovered}). The
 * table is read for that only when this JVM has not itself queued a query's rows up to its last
 * committed micro-batch (a process that runs a query many times, as the lock-step fast path does,
 * reads it once per query), and when the query's {@link ProgressMark} in its checkpoint does not
 * already cover that micro-batch (a recorder leaves one when it closes: at the end of a run, after
 * a failure, on SIGTERM for the runner's own recorder, and when the lock step's shared recorder is
 * closed).
 */
public final class ProgressRecorder extends StreamingQueryListener implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ProgressRecorder.class);
  private final SparkSession spark;
  private final String tablePath;

  /** Names of the queries whose progress is recorded now (see {@link #follow}). */
  private final Set<String> queryNames = ConcurrentHashMap.newKeySet();

  /** watermark delay (ms) per query name, for the rows of its micro-batches */
  private final Map<String, Long> delays = new ConcurrentHashMap<>();

  /** Highest batch id queued for writing, per query id (guards against repeated events). */
  private final Map<UUID, Long> queued = new ConcurrentHashMap<>();

  /** Checkpoint folders of the queries {@link #recordMissing} saw (for the marks). */
  private final Set<String> checkpoints = ConcurrentHashMap.newKeySet();

  /** The mark read at start per query id (-1: none usable), see {@link ProgressMark}. */
  private final Map<UUID, Long> marks = new ConcurrentHashMap<>();

  /**
   * Highest batch id known to be in the table per query id: its mark, or what the table read found;
   * with the rows this JVM wrote, the mark written on {@link #close()}.
   */
  private final Map<UUID, Long> known = new ConcurrentHashMap<>();

  private final Set<UUID> terminatedRuns = ConcurrentHashMap.newKeySet();
  private final Map<String, Long> droppedByQuery = new ConcurrentHashMap<>();
  private final Map<UUID, long[]> totalsByRun = new ConcurrentHashMap<>();
  private final Map<UUID, String> watermarkByRun = new ConcurrentHashMap<>();
  private final java.util.concurrent.atomic.AtomicBoolean closed =
      new java.util.concurrent.atomic.AtomicBoolean();
  private ProgressWriter writer;
  private boolean writeOnFlush;

  /**
   * @param spark the session whose streams to follow
   * @param tablePath path of {@code monitoring.stream_progress}
   * @param queryNames names of the queries to record (others are ignored)
   */
  public ProgressRecorder(SparkSession spark, String tablePath, Set<String> queryNames) {
    this.spark = spark;
    this.tablePath = tablePath;
    this.queryNames.addAll(queryNames);
  }

  /** Creates the table if needed, starts the writer thread and registers the listener. */
  public ProgressRecorder start() {
    writer = new ProgressWriter(spark, tablePath, writeOnFlush);
    spark.streams().addListener(this);
    return this;
  }

  /**
   * Writes rows only when {@link #flush()} (or {@link #close()}) is called, all queued rows in one
   * append, instead of after each micro-batch. For the lock-step fast path, whose step ends with a
   * flush: one commit per step instead of one per micro-batch. A process killed before the flush
   * loses the rows' figures; the next start writes the rows from the checkpoint ({@link
   * #recordMissing}). Call it before {@link #start()}.
   *
   * @return this recorder
   * @throws IllegalStateException after {@link #start()}
   */
  public ProgressRecorder writeOnFlush() {
    if (writer != null) {
      throw new IllegalStateException("writeOnFlush() is set before start()");
    }
    writeOnFlush = true;
    return this;
  }

  /**
   * Records the progress of these queries too, from now on: a recorder shared by several runs (the
   * lock-step fast path) follows each run's queries while it runs.
   *
   * @return this recorder
   */
  public ProgressRecorder follow(Set<String> names) {
    queryNames.addAll(names);
    return this;
  }

  /**
   * The watermark delay a query runs with from now on, written with each of its micro-batches
   * ({@code watermark_delay_ms}); empty: none (the column stays null).
   */
  public void watermarkDelay(String queryName, java.util.Optional<java.time.Duration> delay) {
    if (delay.isPresent()) {
      delays.put(queryName, delay.get().toMillis());
    } else {
      delays.remove(queryName);
    }
  }

  /**
   * Stops recording these queries' progress; rows already queued are still written. Call it after
   * the listener has seen the run end ({@link #awaitTerminated}).
   */
  public void unfollow(Set<String> names) {
    queryNames.removeAll(names);
  }

  @Override
  public void onQueryStarted(QueryStartedEvent event) {}

  @Override
  public void onQueryProgress(QueryProgressEvent event) {
    StreamingQueryProgress p = event.progress();
    if (p.name() == null || !queryNames.contains(p.name())) {
      return;
    }
    Long before = queued.get(p.id());
    if (before != null && p.batchId() <= before) {
      return;
    }
    StreamProgressTable.Figures f = StreamProgressTable.Figures.of(p);
    queued.put(p.id(), p.batchId());
    writer.enqueue(
        p.id(), List.of(StreamProgressTable.row(p, f, delays.get(p.name()))), p.batchId());
    droppedByQuery.merge(p.name(), f.dropped(), Long::sum);
    long[] totals = totalsByRun.computeIfAbsent(p.runId(), id -> new long[3]);
    synchronized (totals) {
      totals[0]++;
      totals[1] += f.inputRows();
      totals[2] += f.dropped();
    }
    if (f.watermark() != null) {
      watermarkByRun.put(p.runId(), f.watermark());
    }
    LOG.info(
        "[{}] micro-batch {}: {} input rows{}, watermark {}, {} dropped by watermark{}, "
            + "{} duplicates dropped, {} state rows, {} ms",
        p.name(),
        p.batchId(),
        f.inputRows(),
        f.quarantined() == null ? "" : " (" + f.quarantined() + " quarantined)",
        f.watermark() == null ? "none" : f.watermark(),
        f.dropped(),
        f.dropped() > 0 && f.droppedBySource() != null ? " " + f.droppedBySource() : "",
        f.duplicates(),
        f.stateRows(),
        f.triggerMs());
  }

  @Override
  public void onQueryIdle(QueryIdleEvent event) {}

  @Override
  public void onQueryTerminated(QueryTerminatedEvent event) {
    terminatedRuns.add(event.runId());
  }

  /**
   * Writes a row for every micro-batch the checkpoint has committed but the table lacks (see the
   * class comment). Call it before the query starts or restarts, never while it runs.
   *
   * @param queryName the query's name
   * @param checkpoint the query's checkpoint folder
   * @param recovery the {@code recovery} value of the rows written
   * @return how many rows were written
   */
  public int recordMissing(String queryName, String checkpoint, String recovery) {
    checkpoints.add(checkpoint);
    Checkpoints cp = new Checkpoints(spark, checkpoint);
    var id = cp.queryId();
    if (id.isEmpty()) {
      return 0;
    }
    UUID queryId = id.get();
    var committed = cp.lastCommitted();
    // Rows this recorder has queued up to the last committed micro-batch are written by its writer
    // thread (a failed write keeps them for the next one): nothing is missing.
    if (committed.isEmpty() || queued.getOrDefault(queryId, -1L) >= committed.getAsLong()) {
      return 0;
    }
    flush();
    if (writer.written(queryId, committed.getAsLong())) {
      return 0;
    }
    long marked = ProgressMark.read(spark, checkpoint, tablePath, queryId);
    marks.put(queryId, marked);
    known.merge(queryId, marked, Math::max);
    if (marked >= committed.getAsLong()) {
      return 0;
    }
    long inTable = writer.highestRecorded(queryId);
    known.merge(queryId, inTable, Math::max);
    long recorded = Math.max(inTable, queued.getOrDefault(queryId, -1L));
    long from = Math.max(recorded + 1, cp.firstRetainedCommit().orElse(0));
    List<Row> rows = new ArrayList<>();
    for (long b = from; b <= committed.getAsLong(); b++) {
      rows.add(StreamProgressTable.recovered(queryName, queryId, b, cp.planned(b), recovery));
    }
    if (!rows.isEmpty()) {
      LOG.warn(
          "[{}] micro-batches {}..{} were committed but Spark's progress report of them was "
              + "lost ({}); recorded them in {} with recovery = '{}' and no figures",
          queryName,
          from,
          committed.getAsLong(),
          recovery,
          tablePath,
          recovery);
      queued.merge(queryId, committed.getAsLong(), Math::max);
      writer.enqueue(queryId, rows, committed.getAsLong());
      flush();
    }
    return rows.size();
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Waits until the listener has seen the termination of run {@code runId}: every progress event of
   * that run has been queued by then (Spark's listener bus delivers events in order).
   *
   * @return true when seen within the timeout
   */
  public boolean awaitTerminated(UUID runId, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (terminatedRuns.contains(runId)) {
        return true;
      }
      sleep(Duration.ofMillis(20));
    }
    return false;
  }

  /**
   * @param queryName the query's name
   * @param runId the run to sum up
   * @return what the run did so far
   */
  public StreamSummary summary(String queryName, UUID runId) {
    long[] t = totalsByRun.getOrDefault(runId, new long[3]);
    synchronized (t) {
      return new StreamSummary(queryName, t[0], t[1], t[2], watermarkByRun.getOrDefault(runId, ""));
    }
  }

  /**
   * @return rows dropped by the watermark so far, per query name, in this process
   */
  public Map<String, Long> droppedByQuery() {
    return Map.copyOf(droppedByQuery);
  }

  /** Waits until every queued row has been written (or has failed and been kept for later). */
  public void flush() {
    writer.flush();
  }

  /**
   * Removes the listener, writes what is queued, stops the writer thread and writes each query's
   * {@link ProgressMark} where it moved.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    spark.streams().removeListener(this);
    writer.close();
    for (String checkpoint : checkpoints) {
      // the query id the checkpoint holds now (a new checkpoint got one during the run); none when
      // the folder was moved or removed meanwhile: no mark then
      java.util.Optional<UUID> id;
      try {
        id = new Checkpoints(spark, checkpoint).queryId();
      } catch (Exception | org.apache.hadoop.fs.FSError e) {
        // Scala's checkpoint classes throw IOException undeclared: close() never fails for a mark
        LOG.debug("No progress mark for {}: {}", checkpoint, e.toString());
        continue;
      }
      if (id.isEmpty()) {
        continue;
      }
      long through = Math.max(known.getOrDefault(id.get(), -1L), writer.writtenThrough(id.get()));
      if (through > marks.getOrDefault(id.get(), -1L)) {
        ProgressMark.write(spark, checkpoint, tablePath, id.get(), through);
      }
    }
  }
}

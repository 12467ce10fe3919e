package io.latelake.core.streaming;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StateOperatorProgress;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link StreamingQueryListener} that logs one line per micro-batch and appends one row per
 * micro-batch and query to {@code monitoring.stream_progress}.
 *
 * <p>Rows are buffered on the listener thread and written by {@link #flush()} (called on a timer
 * for long-running streams and when a job ends), so the listener never blocks Spark's event bus.
 *
 * <p>Schema of {@code monitoring.stream_progress}: {@code query_name} string, {@code query_id}
 * string, {@code run_id} string, {@code batch_id} long, {@code batch_timestamp} timestamp (UTC,
 * when the micro-batch started), {@code input_rows} long, {@code watermark} timestamp (null
 * when the query has none), {@code rows_dropped_by_watermark} long (sum over stateful
 * operators), {@code dropped_by_operator} string ({@code operator=count,...}), {@code state_rows}
 * long, {@code trigger_ms} long, {@code add_batch_ms} long, {@code recorded_at} timestamp.
 */
public final class ProgressRecorder extends StreamingQueryListener implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ProgressRecorder.class);

  /** Schema of {@code monitoring.stream_progress}. */
  public static final StructType SCHEMA = new StructType()
      .add("query_name", DataTypes.StringType)
      .add("query_id", DataTypes.StringType)
      .add("run_id", DataTypes.StringType)
      .add("batch_id", DataTypes.LongType)
      .add("batch_timestamp", DataTypes.TimestampType)
      .add("input_rows", DataTypes.LongType)
      .add("watermark", DataTypes.TimestampType)
      .add("rows_dropped_by_watermark", DataTypes.LongType)
      .add("dropped_by_operator", DataTypes.StringType)
      .add("state_rows", DataTypes.LongType)
      .add("trigger_ms", DataTypes.LongType)
      .add("add_batch_ms", DataTypes.LongType)
      .add("recorded_at", DataTypes.TimestampType);

  private final SparkSession spark;
  private final String tablePath;
  private final Set<String> queryNames;
  private final List<Row> pending = new ArrayList<>();
  private final Map<UUID, Long> lastBatch = new ConcurrentHashMap<>();
  private final Map<String, Long> droppedByQuery = new ConcurrentHashMap<>();
  private final Map<UUID, long[]> totalsByRun = new ConcurrentHashMap<>();
  private final Map<UUID, String> watermarkByRun = new ConcurrentHashMap<>();
  private ScheduledExecutorService timer;

  /**
   * @param spark the session whose streams to follow
   * @param tablePath path of {@code monitoring.stream_progress}
   * @param queryNames names of the queries to record (others are ignored)
   */
  public ProgressRecorder(SparkSession spark, String tablePath, Set<String> queryNames) {
    this.spark = spark;
    this.tablePath = tablePath;
    this.queryNames = Set.copyOf(queryNames);
  }

  /** Registers the listener and, if {@code flushEvery} is positive, a periodic flush. */
  public ProgressRecorder start(Duration flushEvery) {
    spark.streams().addListener(this);
    if (!flushEvery.isZero()) {
      timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "latelake-progress-flush");
        t.setDaemon(true);
        return t;
      });
      timer.scheduleWithFixedDelay(this::flushQuietly, flushEvery.toMillis(),
          flushEvery.toMillis(), TimeUnit.MILLISECONDS);
    }
    return this;
  }

  @Override
  public void onQueryStarted(QueryStartedEvent event) {}

  @Override
  public void onQueryProgress(QueryProgressEvent event) {
    StreamingQueryProgress p = event.progress();
    if (p.name() == null || !queryNames.contains(p.name())) {
      return;
    }
    long dropped = 0;
    long stateRows = 0;
    StringBuilder byOperator = new StringBuilder();
    for (StateOperatorProgress op : p.stateOperators()) {
      dropped += op.numRowsDroppedByWatermark();
      stateRows += op.numRowsTotal();
      if (byOperator.length() > 0) {
        byOperator.append(',');
      }
      byOperator.append(op.operatorName()).append('=').append(op.numRowsDroppedByWatermark());
    }
    String wm = p.eventTime().get("watermark");
    Timestamp watermark = wm == null ? null : Timestamp.from(Instant.parse(wm));
    long trigger = duration(p, "triggerExecution");
    Row row = RowFactory.create(p.name(), p.id().toString(), p.runId().toString(), p.batchId(),
        Timestamp.from(Instant.parse(p.timestamp())), p.numInputRows(), watermark, dropped,
        byOperator.toString(), stateRows, trigger, duration(p, "addBatch"),
        Timestamp.from(Instant.now()));
    synchronized (pending) {
      pending.add(row);
    }
    droppedByQuery.merge(p.name(), dropped, Long::sum);
    long[] totals = totalsByRun.computeIfAbsent(p.runId(), id -> new long[3]);
    synchronized (totals) {
      totals[0]++;
      totals[1] += p.numInputRows();
      totals[2] += dropped;
    }
    if (wm != null) {
      watermarkByRun.put(p.runId(), wm);
    }
    lastBatch.put(p.id(), p.batchId());
    LOG.info("[{}] micro-batch {}: {} input rows, watermark {}, {} dropped by watermark, "
            + "{} state rows, {} ms", p.name(), p.batchId(), p.numInputRows(),
        wm == null ? "none" : wm, dropped, stateRows, trigger);
  }

  private static long duration(StreamingQueryProgress p, String key) {
    Long v = p.durationMs().get(key);
    return v == null ? 0L : v;
  }

  @Override
  public void onQueryIdle(QueryIdleEvent event) {}

  @Override
  public void onQueryTerminated(QueryTerminatedEvent event) {}

  /**
   * Waits until the listener has seen micro-batch {@code batchId} of query {@code queryId}.
   *
   * @return true when seen within the timeout
   */
  public boolean awaitBatch(UUID queryId, long batchId, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      Long seen = lastBatch.get(queryId);
      if (seen != null && seen >= batchId) {
        return true;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
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

  /** @return rows dropped by the watermark so far, per query name, in this process */
  public Map<String, Long> droppedByQuery() {
    return Map.copyOf(droppedByQuery);
  }

  /** Appends buffered rows to {@code monitoring.stream_progress}. */
  public void flush() {
    List<Row> rows;
    synchronized (pending) {
      if (pending.isEmpty()) {
        return;
      }
      rows = new ArrayList<>(pending);
      pending.clear();
    }
    try {
      spark.createDataFrame(rows, SCHEMA).write().format("delta").mode("append").save(tablePath);
    } catch (RuntimeException e) {
      synchronized (pending) {
        pending.addAll(0, rows);
      }
      throw e;
    }
  }

  private void flushQuietly() {
    try {
      flush();
    } catch (RuntimeException e) {
      LOG.warn("Could not write {} yet, will retry: {}", tablePath, e.getMessage());
    }
  }

  /** Stops the timer, removes the listener and writes what is buffered. */
  @Override
  public void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
    spark.streams().removeListener(this);
    flush();
  }
}

package io.latelake.core.metrics;

import io.latelake.core.catalog.StatusViews;
import io.latelake.core.metric.GoldStatus;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.DeltaTables;
import io.latelake.core.table.TableRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where each metric's gold stands, for the streams' metrics source ({@link StreamMetrics}): read
 * from the lake by one background thread, {@code lake.metrics.gold-interval} after the previous
 * read ended, for the metrics whose gold query runs in this process (from its first micro-batch
 * on). Per metric:
 *
 * <ul>
 *   <li>rows by status, the status views' rule ({@link GoldStatus}): provisional, settled,
 *       restated;
 *   <li>the lowest {@code completeness} (the status views' column: the profiled lateness
 *       distribution in {@code monitoring.lateness_cdf} at the window's age) of the rows of the
 *       latest closed window (the largest {@code window_end} at or before the gold stream's last
 *       watermark); NaN without a registered distribution or a closed window;
 *   <li>closed windows touched and not yet corrected: what the next {@code correct} recomputes, by
 *       its own rule — the window starts pending in {@code monitoring.correction_state} and those
 *       of the valid bronze rows committed after the bronze version recorded there (read with
 *       Delta's change read, as {@code correct} reads them), that are closed ({@code window_end <=}
 *       the gold stream's last watermark). NaN until {@code correct} has run for the metric (its
 *       first run takes {@code --since}).
 * </ul>
 *
 * <p>The reads run in a separate session of the same Spark application (its own temporary views and
 * stream listeners: none of this shows in {@code monitoring.stream_progress}), so they are Spark
 * jobs beside the streams' micro-batches. A read that fails leaves the last figures and logs one
 * WARN line per metric until a read succeeds again.
 */
final class GoldFigures implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(GoldFigures.class);

  /**
   * One metric's figures.
   *
   * @param provisional gold rows provisional now
   * @param settled gold rows settled now
   * @param restated gold rows restated now
   * @param latestClosedCompleteness ratio in [0, 1], NaN when unknown
   * @param closedWindowsToCorrect count, NaN until {@code correct} has run for the metric
   */
  record Figures(
      double provisional,
      double settled,
      double restated,
      double latestClosedCompleteness,
      double closedWindowsToCorrect) {
    static final Figures UNKNOWN =
        new Figures(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
  }

  private final SparkSession spark;
  private final TableRegistry tables;
  private final Duration horizon;
  private final Duration interval;
  private final java.util.Map<String, Figures> figures = new ConcurrentHashMap<>();
  private final Set<MetricSpec> running = ConcurrentHashMap.newKeySet();
  private final java.util.Map<String, Double> readAt = new ConcurrentHashMap<>();
  private final Set<String> failing = ConcurrentHashMap.newKeySet();
  private ScheduledExecutorService timer;
  private boolean closed;

  /**
   * @param spark the application's session (the reads use a new session of it)
   * @param horizon {@code lake.correction.horizon}
   * @param interval {@code lake.metrics.gold-interval}
   */
  GoldFigures(SparkSession spark, TableRegistry tables, Duration horizon, Duration interval) {
    this.spark = spark.newSession();
    this.tables = tables;
    this.horizon = horizon;
    this.interval = interval;
  }

  /**
   * @return the metric's last figures (all NaN before its first read)
   */
  Figures of(String metric) {
    return figures.getOrDefault(metric, Figures.UNKNOWN);
  }

  /**
   * @return when the metric's last figures were read (the read's start, Unix seconds; NaN before
   *     the first)
   */
  double readAt(String metric) {
    return readAt.getOrDefault(metric, Double.NaN);
  }

  /**
   * Registers the metric's gauges ({@code <prefix>rows_provisional}, {@code rows_settled}, {@code
   * rows_restated}, {@code closed_windows_to_correct}, {@code latest_closed_completeness_ratio},
   * {@code read_timestamp_seconds}) and starts reading its figures.
   */
  void register(com.codahale.metrics.MetricRegistry registry, String prefix, MetricSpec metric) {
    String name = metric.name();
    registry.register(
        prefix + "rows_provisional",
        (com.codahale.metrics.Gauge<Double>) () -> of(name).provisional());
    registry.register(
        prefix + "rows_settled", (com.codahale.metrics.Gauge<Double>) () -> of(name).settled());
    registry.register(
        prefix + "rows_restated", (com.codahale.metrics.Gauge<Double>) () -> of(name).restated());
    registry.register(
        prefix + "closed_windows_to_correct",
        (com.codahale.metrics.Gauge<Double>) () -> of(name).closedWindowsToCorrect());
    registry.register(
        prefix + "latest_closed_completeness_ratio",
        (com.codahale.metrics.Gauge<Double>) () -> of(name).latestClosedCompleteness());
    registry.register(
        prefix + "read_timestamp_seconds", (com.codahale.metrics.Gauge<Double>) () -> readAt(name));
    start(metric);
  }

  /** Starts reading {@code metric}'s figures (the thread on the first call; none once closed). */
  synchronized void start(MetricSpec metric) {
    if (closed || !running.add(metric)) {
      return;
    }
    if (timer == null) {
      timer =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "latelake-gold-figures");
                t.setDaemon(true);
                return t;
              });
      timer.scheduleWithFixedDelay(this::refresh, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  private void refresh() {
    try {
      for (MetricSpec m : running) {
        if (spark.sparkContext().isStopped() || Thread.currentThread().isInterrupted()) {
          return;
        }
        double started = System.currentTimeMillis() / 1000.0;
        try {
          figures.put(m.name(), read(m));
          readAt.put(m.name(), started);
          if (failing.remove(m.name())) {
            LOG.info("gold figures of metric '{}' read again", m.name());
          }
        } catch (Exception e) {
          // Spark's failures are often checked exceptions thrown undeclared (SparkException)
          if (!spark.sparkContext().isStopped() && failing.add(m.name())) {
            LOG.warn(
                "Cannot read the gold figures of metric '{}' (the last ones stay): {}",
                m.name(),
                e.getMessage());
          }
        }
      }
    } catch (Throwable t) {
      // an exception leaving a scheduled task cancels every later read: log it, keep the thread
      LOG.warn("Reading the gold figures failed: {}", t.toString());
    }
  }

  /**
   * Reads one metric's figures now.
   *
   * @return all NaN when its gold table does not exist yet
   */
  Figures read(MetricSpec metric) {
    String gold = tables.gold(metric.name());
    if (!DeltaTables.exists(spark, gold)) {
      return Figures.UNKNOWN;
    }
    Optional<Instant> watermark = GoldStatus.lastWatermark(spark, tables, metric);
    Row counts = statusRows(metric, gold).first();
    double toCorrect = ClosedWindowsToCorrect.count(spark, tables, metric, watermark);
    return new Figures(
        counts.getLong(0),
        counts.getLong(1),
        counts.getLong(2),
        counts.isNullAt(3) ? Double.NaN : counts.getDouble(3),
        toCorrect);
  }

  /** One row: provisional, settled, restated, completeness of the latest closed window. */
  private Dataset<Row> statusRows(MetricSpec metric, String gold) {
    List<String> goldColumns = List.of(spark.read().format("delta").load(gold).columns());
    String query =
        StatusViews.query(
            metric,
            horizon,
            deltaPath(gold),
            name -> deltaPath(tables.monitoring(name)),
            goldColumns,
            DeltaTables.exists(spark, tables.monitoring("corrections_log")),
            DeltaTables.exists(spark, tables.streamProgress()),
            DeltaTables.exists(spark, tables.monitoring("lateness_cdf")));
    return spark.sql(
        "WITH s AS ("
            + query
            + "), latest AS (SELECT max(window_end) AS e FROM s WHERE closed) "
            + "SELECT count_if(status = 'provisional'), count_if(status = 'settled'), "
            + "count_if(status = 'restated'), "
            + "min(CASE WHEN window_end = latest.e THEN completeness END) "
            + "FROM s CROSS JOIN latest");
  }

  /** A Delta table by path in SQL: {@code delta.`<path>`}. */
  private static String deltaPath(String path) {
    return "delta.`" + path.replace("`", "``") + "`";
  }

  /** Stops the reads (waits up to 10 s for one under way); {@link #start} does nothing after. */
  @Override
  public void close() {
    ScheduledExecutorService t;
    synchronized (this) {
      closed = true;
      t = timer;
      timer = null;
    }
    if (t != null) {
      t.shutdownNow();
      try {
        t.awaitTermination(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}

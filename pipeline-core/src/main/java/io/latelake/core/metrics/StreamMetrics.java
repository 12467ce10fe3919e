package io.latelake.core.metrics;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import com.typesafe.config.Config;
import io.latelake.core.config.Settings;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.apache.spark.SparkEnv;
import org.apache.spark.metrics.source.Source;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * latelake's streaming figures in Spark's metrics system (source name {@value #SOURCE_NAME}), so
 * every sink configured for the driver carries them: the PrometheusServlet, JMX, Graphite, CSV,
 * Slf4j. On when {@code lake.metrics.streams = true}; off (the default) it is not created, no
 * listener is added and nothing is registered.
 *
 * <p>Per streaming query, updated from each micro-batch's progress (the same events {@code
 * monitoring.stream_progress} records, so within one process the counters equal the sums of its
 * rows for this process's runs); names are {@code <query>.<figure>}, e.g. {@code
 * gold_page_5m.rows_dropped_by_watermark}:
 *
 * <ul>
 *   <li>counters (since the process started): {@code batches}, {@code input_rows}, {@code
 *       rows_dropped_by_watermark}, {@code rows_dropped_duplicates}, {@code rows_quarantined}
 *       (bronze; 0 for the others);
 *   <li>gauges (the last micro-batch): {@code watermark_seconds} (event-time watermark, Unix
 *       seconds; 0 before the first watermark), {@code state_rows}, {@code batch_duration_seconds}
 *       (trigger execution), {@code last_progress_timestamp_seconds} (when the micro-batch started,
 *       Unix seconds), {@code watermark_lag_seconds} (the largest enqueued time any query of this
 *       process has seen minus this query's watermark: how far behind the arrivals the watermark
 *       is; NaN until both are known), {@code latest_enqueued_seconds} (the largest enqueued time
 *       this appending query has written: for a bronze query of one source, its last arrival; NaN
 *       for gold), {@code input_ingested_until_seconds} (the largest bronze {@code ingested_at} the
 *       last micro-batch with input read, silver and gold; NaN before).
 * </ul>
 *
 * <p>Per metric whose gold query runs in the process, installed with a {@link StreamMetricsPlan}:
 * {@code gold.<metric>.rows_provisional}, {@code .rows_settled}, {@code .rows_restated}, {@code
 * .closed_windows_to_correct}, {@code .latest_closed_completeness_ratio} and {@code
 * .read_timestamp_seconds}, read by {@link GoldFigures} in the background.
 *
 * <p>And {@code arrivals.latest_enqueued_seconds}: the largest enqueued time of the process. The
 * appending streams (bronze, silver) observe it per micro-batch ({@link ArrivalObservation}: one
 * maximum in the same pass, no state); it is per process, so {@code gold} run alone has no lag.
 *
 * <p>Per source listed in {@code lake.sources} (observed the same way; in the name, characters
 * other than letters, digits and _ become _): {@code sources.<source>.latest_enqueued_seconds} (its
 * last arrival this process has seen, Unix seconds; NaN until one) and {@code
 * sources.<source>.quiet_seconds} (the process's latest enqueued time minus the source's: how long
 * it has been quiet on the arrival clock, the measure {@code lake.sources-idle-after} is compared
 * with; NaN until both are known, so a source silent since the process started has no quiet time).
 */
public final class StreamMetrics extends StreamingQueryListener implements Source {
  private static final Logger LOG = LoggerFactory.getLogger(StreamMetrics.class);

  /** Spark metrics source name: metric keys are {@code <namespace>.driver.latelake.<name>}. */
  public static final String SOURCE_NAME = "latelake";

  /** Config key that turns it on. */
  public static final String KEY = "lake.metrics.streams";

  static final Pattern UNSAFE = Pattern.compile("[^A-Za-z0-9_]");

  /** The largest enqueued time any query of this process has seen (Unix seconds; 0: none). */
  private volatile double latestEnqueued;

  /** Per listed source, its largest enqueued time seen (Unix seconds), in the listed order. */
  private final Map<String, Double> sourceLatest = new ConcurrentHashMap<>();

  private List<String> sources = List.of();

  /** The configured metrics by gold query name ({@code gold_<metric>}); empty without a config. */
  private java.util.Map<String, io.latelake.core.metric.MetricSpec> goldQueries = Map.of();

  /** Per-metric gold figures, read once a metric's gold query runs; null without a config. */
  private GoldFigures gold;

  private final MetricRegistry registry = new MetricRegistry();
  private final Map<String, QueryFigures> queries = new ConcurrentHashMap<>();

  /**
   * @return {@code lake.metrics.streams} (false when absent)
   * @throws io.latelake.core.config.LakeConfigException (exit 2) unless it is true or false
   */
  public static boolean enabled(Config config) {
    Settings s = Settings.of(config).sub("lake.metrics");
    return s.has("streams") && s.bool("streams");
  }

  /**
   * Creates the source, registers it with the driver's metrics system and adds it as a listener to
   * {@code spark}'s streams.
   *
   * @return the installed source
   */
  public static StreamMetrics install(SparkSession spark) {
    return install(spark, List.of());
  }

  /**
   * As {@link #install(SparkSession, List)} for the sources listed in {@code lake.sources}, with
   * each metric's gold figures ({@link GoldFigures}: rows by status, closed windows still to
   * correct, completeness of the latest closed window) read once the metric's gold query runs in
   * this process, {@code lake.metrics.gold-interval} after the previous read.
   *
   * @param plan from the effective config ({@link StreamMetricsPlan#fromConfig})
   * @return the installed source
   */
  public static StreamMetrics install(SparkSession spark, StreamMetricsPlan plan) {
    return install(
        spark,
        plan.sources(),
        plan.goldQueries(),
        plan.goldQueries().isEmpty()
            ? null
            : new GoldFigures(spark, plan.tables(), plan.horizon(), plan.interval()));
  }

  /**
   * As {@link #install(SparkSession)}, with the figures of each source listed in {@code
   * lake.sources}.
   *
   * @param sources {@code lake.sources}
   * @return the installed source
   */
  public static StreamMetrics install(SparkSession spark, List<String> sources) {
    return install(spark, sources, Map.of(), null);
  }

  static void checkNames(List<String> sources) {
    Map<String, String> names = new java.util.HashMap<>();
    for (String source : sources) {
      String name = UNSAFE.matcher(source).replaceAll("_");
      String other = names.putIfAbsent(name, source);
      if (other != null) {
        throw io.latelake.core.config.LakeConfigException.invalid(
            "lake.sources",
            sources,
            "'"
                + other
                + "' and '"
                + source
                + "' have the same metric name 'sources."
                + name
                + "' (characters other than letters, digits and _ become _): rename one source"
                + " or turn lake.metrics.streams off");
      }
    }
  }

  private static StreamMetrics install(
      SparkSession spark,
      List<String> sources,
      Map<String, io.latelake.core.metric.MetricSpec> goldQueries,
      GoldFigures gold) {
    checkNames(sources);
    StreamMetrics m = new StreamMetrics();
    m.registry.register("arrivals.latest_enqueued_seconds", (Gauge<Double>) () -> m.latestEnqueued);
    m.sources = List.copyOf(sources);
    m.goldQueries = Map.copyOf(goldQueries);
    m.gold = gold;
    for (String source : m.sources) {
      String k = "sources." + UNSAFE.matcher(source).replaceAll("_") + ".";
      m.registry.register(
          k + "latest_enqueued_seconds",
          (Gauge<Double>) () -> m.sourceLatest.getOrDefault(source, Double.NaN));
      m.registry.register(
          k + "quiet_seconds",
          (Gauge<Double>)
              () -> {
                Double last = m.sourceLatest.get(source);
                return last == null || m.latestEnqueued == 0 ? Double.NaN : m.latestEnqueued - last;
              });
    }
    ArrivalObservation.turnOn(spark, m.sources);
    SparkEnv.get().metricsSystem().registerSource(m);
    spark.streams().addListener(m);
    LOG.info(
        "latelake stream figures registered in Spark's metrics system as source '{}'", SOURCE_NAME);
    return m;
  }

  /** Stops reading the per-metric gold figures (they keep their last values). */
  public void stopReading() {
    if (gold != null) {
      gold.close();
    }
  }

  /** Removes what {@link #install} added to {@code spark} and the metrics system. */
  public void uninstall(SparkSession spark) {
    if (gold != null) {
      gold.close();
    }
    spark.streams().removeListener(this);
    ArrivalObservation.turnOff(spark);
    SparkEnv.get().metricsSystem().removeSource(this);
  }

  @Override
  public String sourceName() {
    return SOURCE_NAME;
  }

  @Override
  public MetricRegistry metricRegistry() {
    return registry;
  }

  @Override
  public void onQueryStarted(QueryStartedEvent event) {}

  @Override
  public void onQueryProgress(QueryProgressEvent event) {
    StreamingQueryProgress p = event.progress();
    if (p.name() == null) {
      return;
    }
    QueryFigures q = queries.computeIfAbsent(p.name(), n -> new QueryFigures(registry, n));
    q.record(p);
    Row arrivals = p.observedMetrics().get(ArrivalObservation.ARRIVALS);
    if (arrivals != null) {
      for (int i = 0; i < sources.size() && i + 1 < arrivals.size(); i++) {
        if (!arrivals.isNullAt(i + 1)) {
          sourceLatest.merge(
              sources.get(i), arrivals.getTimestamp(i + 1).getTime() / 1000.0, Math::max);
        }
      }
    }
    if (arrivals != null && !arrivals.isNullAt(0)) {
      double latest = arrivals.getTimestamp(0).getTime() / 1000.0;
      if (Double.isNaN(q.latestEnqueued) || latest > q.latestEnqueued) {
        q.latestEnqueued = latest;
      }
      synchronized (this) {
        if (latest > latestEnqueued) {
          latestEnqueued = latest;
        }
      }
    }
    // Spark reports 1970-01-01 until a query's first watermark: no lag before that
    if (p.eventTime().get("watermark") != null && q.watermark > 0 && latestEnqueued > 0) {
      q.watermarkLag = latestEnqueued - q.watermark;
    }
    q.finish(p);
    io.latelake.core.metric.MetricSpec metric = goldQueries.get(p.name());
    if (metric != null && gold != null) {
      startGold(metric);
    }
  }

  private final Set<String> goldStarted = ConcurrentHashMap.newKeySet();

  /** Registers the metric's gold gauges and starts reading them (once per metric). */
  private void startGold(io.latelake.core.metric.MetricSpec metric) {
    if (!goldStarted.add(metric.name())) {
      return;
    }
    gold.register(registry, "gold." + UNSAFE.matcher(metric.name()).replaceAll("_") + ".", metric);
  }

  @Override
  public void onQueryIdle(QueryIdleEvent event) {}

  @Override
  public void onQueryTerminated(QueryTerminatedEvent event) {}
}

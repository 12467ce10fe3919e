package io.latelake.correction;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.delta.tables.DeltaTable;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.metric.LatePolicy;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.DeltaRetry;
import io.latelake.core.table.DeltaTables;
import io.latelake.core.table.TableRegistry;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Late-window correction of the streaming gold metrics (DESIGN.md semantics 4–6).
 *
 * <p>Per metric: (1) the windows touched by valid bronze rows appended since the previous run
 * (bronze versions after {@code monitoring.correction_state.bronze_version}, read from the
 * Delta log's add actions, see {@link LakeReads#appendedRows}; on a first run or with
 * {@code --since}, the rows with {@code ingested_at >= since}, pruned on the {@code ingest_date}
 * partitions), plus windows deferred by earlier runs; (2) of those, the closed ones:
 * {@code window_end <= } the last watermark of the gold stream in
 * {@code monitoring.stream_progress} (inclusive: a row exactly at the watermark is late);
 * touched windows still open are kept in the state and corrected by a later run, so the stream
 * and the correction never write the same window; (3) the closed windows are recomputed from
 * bronze at the same version with exact dedup on {@code event_id} ({@link Recompute#gold}) and
 * compared with gold ({@link Corrections#diff}); (4) by the metric's late policy, changed rows
 * are MERGEd into gold with {@code corrected_at} and logged in {@code monitoring.corrections_log}
 * ({@code restate}), staged in {@code monitoring.pending_<metric>} ({@code reconcile}), or
 * recorded as drift in {@code monitoring.recompute_audit} ({@code ignore}); (5) the state moves
 * to the bronze version read. Every step is idempotent; a run repeated after a failure
 * converges to the same tables.
 */
public final class CorrectJob {
  private static final Logger LOG = LoggerFactory.getLogger(CorrectJob.class);
  /** Corrections kept in the result for display, per metric. */
  private static final int SAMPLE = 50;

  /**
   * One changed gold row.
   *
   * @param windowStart window start (UTC)
   * @param keys group-by values, JSON
   * @param oldValues published measures, JSON (null for a new row)
   * @param newValues recomputed measures, JSON (null for a removed row)
   * @param reason {@link Corrections.Reason} name
   */
  public record Change(String metric, Instant windowStart, Instant windowEnd, String keys,
      String oldValues, String newValues, String reason) {}

  /**
   * What the run did for one metric.
   *
   * @param fromVersion bronze version after which rows were read (-1: by --since)
   * @param toVersion bronze version read up to (inclusive)
   * @param watermark the gold stream's last watermark (null: none reported, nothing is closed)
   * @param touchedWindows windows touched by new rows or deferred earlier
   * @param closedWindows of those, closed and recomputed
   * @param deferredWindows of those, still open: kept for a later run
   * @param rowsChanged gold rows whose recomputed values differ
   * @param changes up to 50 of them
   */
  public record MetricResult(String metric, LatePolicy policy, long fromVersion, long toVersion,
      Instant watermark, int touchedWindows, int closedWindows, int deferredWindows,
      long rowsChanged, List<Change> changes) {}

  /**
   * @param runId this run's id (in the log, state and pending tables)
   * @param correctedAt the run's start (UTC): the {@code corrected_at} of every row it restates
   *     and of its log entries — one value per run, not the commit time of each write (that is
   *     in the table history)
   */
  public record Result(String runId, Instant correctedAt, List<MetricResult> metrics) {
    /** @return gold rows changed over all metrics */
    public long rowsChanged() {
      return metrics.stream().mapToLong(MetricResult::rowsChanged).sum();
    }
  }

  private final SparkSession spark;
  private final CorrectionConfig config;
  private final CorrectionTables tables;
  private final List<MetricSpec> metrics;
  private final Optional<Instant> since;

  /**
   * @param metrics the metrics to correct (validated names)
   * @param since rescan bronze rows ingested at or after this instant instead of reading the
   *     state; required when a metric has no state yet
   */
  public CorrectJob(SparkSession spark, CorrectionConfig config, TableRegistry tables,
      List<MetricSpec> metrics, Optional<Instant> since) {
    this.spark = spark;
    this.config = config;
    this.tables = new CorrectionTables(tables);
    this.metrics = List.copyOf(metrics);
    this.since = since;
  }

  /**
   * @throws LakeConfigException (exit 2) when bronze or a gold table is missing, or a metric has
   *     no state and no {@code --since} was given — checked before anything is written
   * @throws io.latelake.core.LatelakeException (exit 1) when a commit keeps conflicting
   */
  public Result run() {
    TableRegistry reg = tables.registry();
    LakeReads.requireTable(spark, "correct", "bronze_events", reg.bronzeEvents(),
        "run `latelake bronze` first");
    for (MetricSpec m : metrics) {
      LakeReads.requireTable(spark, "correct", "gold." + m.name(), reg.gold(m.name()),
          "run `latelake gold` first");
    }
    Map<String, State> states = readStates();
    if (since.isEmpty()) {
      for (MetricSpec m : metrics) {
        if (!states.containsKey(m.name())) {
          throw new LakeConfigException("Cannot run correct for metric '" + m.name()
              + "': no previous run in monitoring.correction_state, and correct never scans "
              + "bronze from the beginning silently; give --since <yyyy-MM-dd or instant> "
              + "(bronze rows ingested since then are checked)");
        }
      }
    }
    tables.createMonitoring(spark);
    String runId = "correct-" + Instant.now().truncatedTo(ChronoUnit.SECONDS).toString()
        .replace(":", "") + "-" + UUID.randomUUID().toString().substring(0, 8);
    Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
    Timestamp correctedAt = Timestamp.from(now);
    long version = LakeReads.latestVersion(spark, reg.bronzeEvents());
    List<MetricResult> out = new ArrayList<>();
    for (MetricSpec m : metrics) {
      out.add(correct(m, Optional.ofNullable(states.get(m.name())), version, runId, correctedAt));
    }
    return new Result(runId, now, out);
  }

  private MetricResult correct(MetricSpec metric, Optional<State> state, long version,
      String runId, Timestamp correctedAt) {
    TableRegistry reg = tables.registry();
    List<String> cols = List.of("event_id", "event_time", "error");
    Dataset<Row> added;
    long from;
    if (since.isPresent() || state.isEmpty()) {
      Instant s = since.orElseThrow();
      from = -1;
      added = spark.read().format("delta").option("versionAsOf", version)
          .load(reg.bronzeEvents())
          .filter(col("ingest_date").geq(lit(java.sql.Date.valueOf(
              LocalDate.ofInstant(s, ZoneOffset.UTC).minusDays(1))))
              .and(col("ingested_at").geq(lit(Timestamp.from(s)))))
          .select(cols.stream().map(c -> col(c)).toArray(org.apache.spark.sql.Column[]::new));
    } else {
      from = state.get().bronzeVersion();
      added = LakeReads.appendedRows(spark, reg.bronzeEvents(), from, version, cols);
    }
    TreeSet<Instant> touched = new TreeSet<>();
    for (Row r : Recompute.validEvents(added)
        .select(Recompute.windowStart(col("event_time"), metric.window()).as("ws"))
        .distinct().collectAsList()) {
      touched.add(r.getTimestamp(0).toInstant());
    }
    state.ifPresent(s -> touched.addAll(s.pending()));
    Optional<Instant> watermark = LakeReads.lastWatermark(spark, reg, metric);
    List<Instant> closed = new ArrayList<>();
    List<Instant> open = new ArrayList<>();
    for (Instant ws : touched) {
      if (watermark.isPresent() && !ws.plus(metric.window()).isAfter(watermark.get())) {
        closed.add(ws);
      } else {
        open.add(ws);
      }
    }
    LOG.info("correct {}: bronze versions ({}, {}], {} windows touched, {} closed "
            + "(watermark {}), {} still open and deferred", metric.name(),
        from < 0 ? "since " + since.orElse(null) : from, version, touched.size(), closed.size(),
        watermark.map(Instant::toString).orElse("none"), open.size());
    long changed = 0;
    List<Change> sample = new ArrayList<>();
    if (!closed.isEmpty()) {
      Dataset<Row> corrections = corrections(metric, closed, version);
      List<Row> rows = corrections.collectAsList();
      changed = rows.size();
      Dataset<Row> fixed = spark.createDataFrame(rows, corrections.schema());
      for (Row r : rows.subList(0, Math.min(SAMPLE, rows.size()))) {
        sample.add(new Change(metric.name(), r.<Timestamp>getAs("window_start").toInstant(),
            r.<Timestamp>getAs("window_end").toInstant(), r.getAs("keys"),
            r.getAs("old_values"), r.getAs("new_values"), r.getAs("reason")));
      }
      if (changed > 0) {
        apply(metric, fixed, runId, correctedAt);
      }
    }
    writeState(metric, version, open, runId, correctedAt);
    LOG.info("correct {}: {} gold rows differ from bronze; policy {}", metric.name(), changed,
        metric.latePolicy().configName());
    return new MetricResult(metric.name(), metric.latePolicy(), from, version,
        watermark.orElse(null), touched.size(), closed.size(), open.size(), changed,
        List.copyOf(sample));
  }

  /** Recomputed vs published rows of the given closed windows (corrections schema). */
  Dataset<Row> corrections(MetricSpec metric, List<Instant> windowStarts, long bronzeVersion) {
    TableRegistry reg = tables.registry();
    Instant min = windowStarts.get(0);
    Instant maxEnd = windowStarts.get(windowStarts.size() - 1).plus(metric.window());
    Dataset<Row> starts = spark.createDataFrame(
        windowStarts.stream().map(i -> RowFactory.create(Timestamp.from(i))).toList(),
        new StructType().add("window_start", DataTypes.TimestampType));
    // every copy within the id horizon around the windows decides which copy is the event
    Dataset<Row> bronze = LakeReads.bronzeAround(spark, reg.bronzeEvents(),
        java.util.OptionalLong.of(bronzeVersion), min, maxEnd, config.dedupHorizon());
    Dataset<Row> recomputed = Recompute.gold(bronze, metric, min, maxEnd)
        .join(org.apache.spark.sql.functions.broadcast(starts), "window_start");
    Dataset<Row> published = spark.read().format("delta").load(reg.gold(metric.name()))
        .filter(col("window_start").geq(lit(Timestamp.from(min)))
            .and(col("window_start").lt(lit(Timestamp.from(maxEnd)))))
        .join(org.apache.spark.sql.functions.broadcast(starts), "window_start");
    return Corrections.diff(recomputed, published, metric);
  }

  private void apply(MetricSpec metric, Dataset<Row> corrections, String runId,
      Timestamp correctedAt) {
    GoldWriter writer = new GoldWriter(config.maxCommitAttempts(), config.retryBackoff());
    TableRegistry reg = tables.registry();
    switch (metric.latePolicy()) {
      case RESTATE -> {
        writer.log(corrections, tables.log(), metric, runId, "restate", correctedAt);
        writer.restate(corrections, reg.gold(metric.name()), metric, correctedAt);
      }
      case RECONCILE -> Reconcile.stage(spark, tables, metric, corrections, runId, correctedAt,
          config);
      case IGNORE -> Drift.record(spark, tables, metric, corrections, runId, "correct",
          correctedAt, config);
    }
  }

  private record State(long bronzeVersion, List<Instant> pending) {}

  private Map<String, State> readStates() {
    Map<String, State> out = new java.util.HashMap<>();
    if (!DeltaTables.exists(spark, tables.state())) {
      return out;
    }
    for (Row r : spark.read().format("delta").load(tables.state()).collectAsList()) {
      List<Instant> pending = new ArrayList<>();
      List<Timestamp> p = r.getList(r.fieldIndex("pending_window_starts"));
      if (p != null) {
        p.forEach(t -> pending.add(t.toInstant()));
      }
      out.put(r.getString(r.fieldIndex("metric")),
          new State(r.getLong(r.fieldIndex("bronze_version")), pending));
    }
    return out;
  }

  private void writeState(MetricSpec metric, long version, List<Instant> open, String runId,
      Timestamp at) {
    Row row = RowFactory.create(metric.name(), version,
        scala.jdk.javaapi.CollectionConverters.asScala(
            open.stream().map(Timestamp::from).toList()).toSeq(), runId, at);
    Dataset<Row> s = spark.createDataFrame(List.of(row), CorrectionTables.STATE);
    DeltaRetry.run("correction_state update", config.maxCommitAttempts(), config.retryBackoff(),
        () -> {
          DeltaTable.forPath(spark, tables.state()).as("t")
              .merge(s.as("s"), col("t.metric").equalTo(col("s.metric")))
              .whenMatched().updateAll()
              .whenNotMatched().insertAll()
              .execute();
          return null;
        });
  }
}

package io.latelake.correction.backfill;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.latelake.core.job.ActionResult;
import io.latelake.core.job.JobContext;
import io.latelake.core.metric.GoldLayout;
import io.latelake.core.metric.GoldStatus;
import io.latelake.core.metric.Measure;
import io.latelake.core.metric.MetricAggregation;
import io.latelake.core.metric.MetricDefinition;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.metrics.RunFigures;
import io.latelake.core.streaming.CheckpointMoves;
import io.latelake.core.streaming.WatermarkDelays;
import io.latelake.core.table.DeltaRetry;
import io.latelake.core.table.DeltaTables;
import io.latelake.core.table.TableProperties;
import io.latelake.correction.shared.CorrectionAction;
import io.latelake.correction.shared.CorrectionConfig;
import io.latelake.correction.shared.Corrections;
import io.latelake.correction.shared.GoldWriter;
import io.latelake.correction.shared.LakeReads;
import io.latelake.correction.shared.Recompute;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * {@code latelake backfill --metric NAME}: the remedy for a changed metric definition (window,
 * group-by or measures; see {@link io.latelake.core.metric.MetricDefinitionGuard}). Run it with the
 * gold stream of that metric stopped. Steps:
 *
 * <ol>
 *   <li>the old checkpoint {@code _checkpoints/gold_<metric>} is moved aside to {@code
 *       _checkpoints/gold_<metric>.before-<run id>} (kept, never deleted);
 *   <li>a new checkpoint is started at silver's current end: the new definition's streaming
 *       aggregation ({@link MetricAggregation#aggregate} over silver watermarked with {@code
 *       lake.gold.watermark-delay} per source of {@code lake.sources}, the gold stream's plan;
 *       {@link NewGoldCheckpoint}) reads all of {@code silver_events} once with the available-now
 *       trigger, in one micro-batch, into a sink that writes nothing, followed by the no-data
 *       micro-batch that moves the watermark. The checkpoint then holds silver's end offset, the
 *       watermark the stream would have, and the aggregation state of the windows still open, so
 *       the gold stream continues after silver's current version without counting an event twice or
 *       missing one, and a later event of an open window updates it to its full value;
 *   <li>{@code gold.<metric>} is overwritten (one new Delta version; the previous version stays
 *       readable with {@code VERSION AS OF}) by the recompute of the whole of bronze ({@link
 *       Recompute#gold}: valid rows, exact dedup on {@code event_id}, the same code as {@code
 *       correct}, {@code rebuild} and {@code audit}), {@code updated_at} = the run's start;
 *   <li>restatements, as {@code correct} marks them: a closed window (end at or before the gold
 *       stream's last watermark in {@code monitoring.stream_progress}) whose measures that the old
 *       and new definitions share (same name, function and column; window and group-by unchanged)
 *       differ from the old table, or that is new or gone, gets {@code corrected_at} = the run's
 *       start and a {@code monitoring.corrections_log} entry (policy {@code backfill}); every other
 *       row keeps the old row's {@code corrected_at}. Status (provisional, settled, restated)
 *       follows as usual;
 *   <li>the new definition and watermark delay are recorded in the table's properties ({@value
 *       MetricDefinition#PROPERTY}, {@value WatermarkDelays#PROPERTY}): the gold stream starts
 *       again.
 * </ol>
 *
 * <p>Re-running after a failure at any step converges: the gold stream keeps refusing until the
 * last step has recorded the new definition.
 */
public final class BackfillJob extends CorrectionAction<BackfillJob.Options, BackfillJob.Result> {
  /**
   * @param config the correction config
   * @param metric the configured (new) definition of the metric to backfill
   */
  public record Options(CorrectionConfig config, MetricSpec metric) {}

  /**
   * @param runId this run's id ({@code backfill-...})
   * @param metric the metric
   * @param path the gold table's path
   * @param oldVersion the gold table's version before the backfill, readable with {@code VERSION AS
   *     OF}; empty when there was no table
   * @param newVersion the version the backfill's overwrite wrote
   * @param rows gold rows written
   * @param restated rows marked restated (corrected_at = the run's start)
   * @param bronzeVersion the bronze version recomputed
   * @param checkpoint the gold stream's new checkpoint
   * @param silverVersion the silver version the new checkpoint starts after
   * @param watermark the new checkpoint's watermark; empty when silver is empty
   * @param oldCheckpoint where the old checkpoint was moved; empty when there was none
   * @param definition the definition recorded in the table's properties
   */
  public record Result(
      String runId,
      String metric,
      String path,
      OptionalLong oldVersion,
      long newVersion,
      long rows,
      long restated,
      long bronzeVersion,
      String checkpoint,
      long silverVersion,
      Optional<Instant> watermark,
      Optional<String> oldCheckpoint,
      String definition)
      implements ActionResult {
    /**
     * @return {@code <metric>: gold.<metric> rebuilt from bronze version ... ; the old table is
     *     version n (SELECT * FROM delta.`path` VERSION AS OF n); new checkpoint ... continues
     *     after silver version ... with watermark ...; old checkpoint moved to ...; definition
     *     recorded: ...}
     */
    @Override
    public String summary() {
      String old =
          oldVersion.isPresent()
              ? oldVersion.getAsLong()
                  + " (SELECT * FROM delta.`"
                  + path
                  + "` VERSION AS OF "
                  + oldVersion.getAsLong()
                  + ")"
              : "none";
      return metric
          + ": gold."
          + metric
          + " rebuilt from bronze version "
          + bronzeVersion
          + " as table version "
          + newVersion
          + " ("
          + rows
          + " rows, "
          + restated
          + " restated); the old table is version "
          + old
          + "; new checkpoint "
          + checkpoint
          + " continues after silver version "
          + silverVersion
          + " with watermark "
          + watermark.map(Instant::toString).orElse("none")
          + "; old checkpoint moved to "
          + oldCheckpoint.orElse("none (there was none)")
          + "; definition recorded: "
          + definition;
    }

    @Override
    public void report(RunFigures figures) {
      figures.gauge(
          "latelake_rows_restated",
          "Gold rows the run restated (or staged, for a reconcile metric).",
          restated,
          "metric",
          metric);
    }
  }

  private final MetricSpec metric;

  public BackfillJob(JobContext context, Options options) {
    super("backfill", context, options, options.config());
    this.metric = options.metric();
  }

  /**
   * @throws io.latelake.core.config.LakeConfigException (exit 2) when bronze or silver is missing,
   *     checked before anything is moved or written
   * @throws io.latelake.core.table.StorageException (exit 1) when a write fails
   * @throws io.latelake.core.streaming.StreamFailedException (exit 1) when the new checkpoint
   *     cannot start
   */
  @Override
  public Result run() {
    requireBronze("backfill");
    LakeReads.requireTable(
        spark, "backfill", "silver_events", registry.silverEvents(), "run `latelake silver` first");
    Timestamp now = startedAt();
    String path = registry.gold(metric.name());
    OptionalLong oldVersion =
        DeltaTables.exists(spark, path)
            ? OptionalLong.of(LakeReads.latestVersion(spark, path))
            : OptionalLong.empty();
    Optional<MetricDefinition> oldDefinition =
        oldVersion.isPresent()
            ? TableProperties.get(spark, path, MetricDefinition.PROPERTY)
                .flatMap(MetricDefinition::parse)
            : Optional.empty();
    Optional<Instant> watermark = GoldStatus.lastWatermark(spark, registry, metric);

    String checkpoint = registry.checkpoint(metric.queryName());
    Optional<String> movedTo =
        CheckpointMoves.moveAside(spark, checkpoint, checkpoint + ".before-" + runId());
    long silverVersion = LakeReads.latestVersion(spark, registry.silverEvents());
    Optional<Instant> newWatermark =
        step(
            "new checkpoint of " + metric.queryName(),
            () -> NewGoldCheckpoint.start(context, config, metric, checkpoint));

    long bronzeVersion = LakeReads.latestVersion(spark, registry.bronzeEvents());
    Dataset<Row> fresh =
        Recompute.gold(
            spark
                .read()
                .format("delta")
                .option("versionAsOf", bronzeVersion)
                .load(registry.bronzeEvents()),
            metric);
    DeltaTables.createIfNotExists(
        spark,
        path,
        GoldLayout.tableSchema(fresh.schema()),
        List.of(),
        Map.of("delta.enableChangeDataFeed", "true"));
    MetricDefinition definition = MetricDefinition.of(metric);
    boolean sameKeys =
        oldDefinition
            .filter(
                d ->
                    d.window().equals(definition.window())
                        && d.groupBy().equals(definition.groupBy()))
            .isPresent();
    Dataset<Row> old =
        sameKeys
            ? spark.read().format("delta").option("versionAsOf", oldVersion.getAsLong()).load(path)
            : null;
    List<String> shared = oldDefinition.map(definition::comparableMeasures).orElse(List.of());
    Column closed =
        watermark.map(w -> col("window_end").leq(lit(Timestamp.from(w)))).orElse(lit(false));

    Dataset<Row> rows =
        BackfillRows.withStatusColumns(fresh, old, metric, shared, closed, now).persist();
    try {
      long count = step("recompute gold." + metric.name(), rows::count);
      long restated = rows.filter(col("corrected_at").equalTo(lit(now))).count();
      perform("overwrite gold." + metric.name(), () -> overwrite(rows, path));
      long newVersion = LakeReads.latestVersion(spark, path);
      if (old != null && !shared.isEmpty()) {
        perform("corrections_log", () -> logRestatements(fresh, old, shared, closed, now));
      }
      TableProperties.set(
          spark,
          path,
          Map.of(
              MetricDefinition.PROPERTY, definition.canonical(),
              WatermarkDelays.PROPERTY, config.goldWatermarkDelay().toString()));
      return new Result(
          runId(),
          metric.name(),
          path,
          oldVersion,
          newVersion,
          count,
          restated,
          bronzeVersion,
          checkpoint,
          silverVersion,
          newWatermark,
          movedTo,
          definition.canonical());
    } finally {
      rows.unpersist();
    }
  }

  private void overwrite(Dataset<Row> rows, String path) {
    DeltaRetry.run(
        "backfill overwrite of gold." + metric.name(),
        config.maxCommitAttempts(),
        config.retryBackoff(),
        () -> {
          rows.write()
              .format("delta")
              .mode("overwrite")
              .option("overwriteSchema", "true")
              .save(path);
          return null;
        });
  }

  private void logRestatements(
      Dataset<Row> fresh, Dataset<Row> old, List<String> shared, Column closed, Timestamp now) {
    List<Measure> measures =
        metric.measures().stream().filter(m -> shared.contains(m.name())).toList();
    MetricSpec common =
        new MetricSpec(
            metric.name(), metric.window(), metric.groupBy(), measures, metric.latePolicy());
    Dataset<Row> diff = Corrections.diff(fresh, old, common).filter(closed);
    tables.createMonitoring(spark);
    new GoldWriter(config.maxCommitAttempts(), config.retryBackoff())
        .log(diff, tables.log(), common, runId(), "backfill", now, null);
  }
}

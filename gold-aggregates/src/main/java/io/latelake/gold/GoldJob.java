package io.latelake.gold;

import io.latelake.core.metric.MetricSpec;
import io.latelake.core.metric.MetricAggregation;
import io.latelake.core.metric.MetricDefinitionGuard;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.streaming.CheckpointGuard;
import io.latelake.core.streaming.StreamRunner;
import io.latelake.core.streaming.StreamSummary;
import io.latelake.core.table.DeltaTables;
import io.latelake.core.table.TableRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;

/**
 * Streams {@code silver_events} into one {@code gold.<metric>} table per configured metric:
 * windowed aggregates in update output mode, MERGEd per micro-batch (see {@link GoldMerge}).
 * Gold tables have change data feed enabled so readers can follow restatements.
 */
public final class GoldJob {
  /** @param summaries one per metric stream */
  public record Result(List<StreamSummary> summaries) {}

  private final SparkSession spark;
  private final GoldConfig config;
  private final TableRegistry tables;

  public GoldJob(SparkSession spark, GoldConfig config, TableRegistry tables) {
    this.spark = spark;
    this.config = config;
    this.tables = tables;
  }

  /**
   * @throws LakeConfigException when silver does not exist yet
   * @throws io.latelake.core.LatelakeException when a stream fails or a checkpoint is missing
   */
  public Result run() {
    return new Result(StreamRunner.run(spark, tables.streamProgress(), starts()));
  }

  /**
   * Checks silver and the checkpoints and creates the gold tables if needed, without starting
   * the queries (for {@code latelake run}).
   *
   * @return one query per metric
   * @throws LakeConfigException when silver does not exist yet
   * @throws io.latelake.core.LatelakeException when a checkpoint is missing
   */
  public List<StreamRunner.Start> starts() {
    String silver = tables.silverEvents();
    if (!DeltaTables.exists(spark, silver)) {
      throw new LakeConfigException("Cannot start gold stream: table silver_events does not "
          + "exist at " + silver + " (lake.root); run `latelake silver` first");
    }
    List<StreamRunner.Start> starts = new ArrayList<>();
    for (MetricSpec metric : config.metrics()) {
      Dataset<Row> agg = MetricAggregation.aggregate(
          spark.readStream().format("delta").load(silver), metric, config.watermarkDelay());
      String path = tables.gold(metric.name());
      String checkpoint = tables.checkpoint(metric.queryName());
      CheckpointGuard.requireCheckpointIfTableHasData(spark, metric.queryName(), path, checkpoint);
      DeltaTables.createIfNotExists(spark, path, GoldMerge.tableSchema(agg.schema()), List.of(),
          Map.of("delta.enableChangeDataFeed", "true"));
      MetricDefinitionGuard.check(spark, path, metric, config.watermarkDelay());
      starts.add(new StreamRunner.Start(metric.queryName(), checkpoint,
          () -> start(agg, metric, path, checkpoint)));
    }
    return starts;
  }

  private StreamingQuery start(Dataset<Row> agg, MetricSpec metric, String path,
      String checkpoint) {
    VoidFunction2<Dataset<Row>, Long> merge =
        (batch, batchId) -> GoldMerge.merge(batch, batchId, path, metric);
    try {
      return agg.writeStream()
          .queryName(metric.queryName())
          .outputMode("update")
          .option("checkpointLocation", checkpoint)
          .trigger(config.trigger().toTrigger())
          .foreachBatch(merge)
          .start();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new io.latelake.core.LatelakeException("Cannot start " + metric.queryName() + ": "
          + e.getMessage(), io.latelake.core.ExitCode.RUNTIME_FAILURE, e);
    }
  }
}

package io.latelake.silver;

import io.latelake.core.config.LakeConfigException;
import io.latelake.core.streaming.CheckpointGuard;
import io.latelake.core.streaming.StreamRunner;
import io.latelake.core.streaming.StreamSummary;
import io.latelake.core.streaming.WatermarkDelays;
import io.latelake.core.table.DeltaTables;
import io.latelake.core.table.TableRegistry;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;

/**
 * Streams {@code bronze_events} into {@code silver_events}: valid events, deduplicated on
 * {@code event_id} within the watermark, with {@code lateness_s}. See
 * {@link SilverTransforms#dedup} for the schema.
 */
public final class SilverJob {
  /** @param summary what the stream did (rows dropped by the watermark included) */
  public record Result(StreamSummary summary) {}

  private final SparkSession spark;
  private final SilverConfig config;
  private final TableRegistry tables;

  public SilverJob(SparkSession spark, SilverConfig config, TableRegistry tables) {
    this.spark = spark;
    this.config = config;
    this.tables = tables;
  }

  /**
   * @throws LakeConfigException when bronze does not exist yet
   * @throws io.latelake.core.LatelakeException when the stream fails or its checkpoint is missing
   */
  public Result run() {
    return new Result(StreamRunner.run(spark, tables.streamProgress(), starts()).get(0));
  }

  /**
   * Checks bronze and the checkpoint and creates {@code silver_events} if needed, without
   * starting the query (for {@code latelake run}).
   *
   * @return the silver query to start
   * @throws LakeConfigException when bronze does not exist yet
   * @throws io.latelake.core.LatelakeException when the checkpoint is missing
   */
  public List<StreamRunner.Start> starts() {
    String bronze = tables.bronzeEvents();
    if (!DeltaTables.exists(spark, bronze)) {
      throw new LakeConfigException("Cannot start silver stream: table bronze_events does not "
          + "exist at " + bronze + " (lake.root); run `latelake bronze` first");
    }
    Dataset<Row> silver = SilverTransforms.dedup(
        spark.readStream().format("delta").load(bronze),
        config.watermarkDelay(), config.event().fieldNames());
    String path = tables.silverEvents();
    String checkpoint = tables.checkpoint(SilverConfig.QUERY_NAME);
    CheckpointGuard.requireCheckpointIfTableHasData(spark, SilverConfig.QUERY_NAME, path,
        checkpoint);
    DeltaTables.createIfNotExists(spark, path, silver.schema(), List.of(), Map.of());
    WatermarkDelays.check(spark, path, SilverConfig.QUERY_NAME, "lake.silver.watermark-delay",
        config.watermarkDelay());
    return List.of(new StreamRunner.Start(SilverConfig.QUERY_NAME, checkpoint,
        () -> start(silver, path, checkpoint)));
  }

  private StreamingQuery start(Dataset<Row> silver, String path, String checkpoint) {
    return silver.writeStream()
        .queryName(SilverConfig.QUERY_NAME)
        .format("delta")
        .outputMode("append")
        .option("checkpointLocation", checkpoint)
        .trigger(config.trigger().toTrigger())
        .start(path);
  }
}

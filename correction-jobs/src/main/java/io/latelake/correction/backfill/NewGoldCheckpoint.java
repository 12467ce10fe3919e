package io.latelake.correction.backfill;

import io.latelake.core.job.JobContext;
import io.latelake.core.metric.MetricAggregation;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.streaming.Checkpoints;
import io.latelake.core.streaming.ProgressRecorder;
import io.latelake.core.streaming.SourceCheckpoints;
import io.latelake.core.streaming.SourceInputs;
import io.latelake.core.table.TableRegistry;
import io.latelake.correction.shared.CorrectionConfig;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;

/**
 * The gold stream's new checkpoint after a metric change ({@link BackfillJob}, step 2): the new
 * definition's streaming aggregation reads {@code silver_events} once (available-now, output
 * discarded, then the no-data micro-batch that moves the watermark), so the checkpoint holds
 * silver's end offset, the watermark and the state of the windows still open.
 */
final class NewGoldCheckpoint {
  private NewGoldCheckpoint() {}

  /**
   * Starts the new checkpoint {@code checkpoint} of {@code metric}'s gold stream at silver's
   * current end.
   *
   * @return the watermark the checkpoint ends with, empty when silver holds no rows
   */
  static Optional<Instant> start(
      JobContext context, CorrectionConfig config, MetricSpec metric, String checkpoint) {
    SparkSession spark = context.spark();
    TableRegistry registry = context.tables();
    Dataset<Row> agg =
        MetricAggregation.aggregate(
            SourceInputs.watermarked(
                spark
                    .readStream()
                    .format("delta")
                    .option("maxFilesPerTrigger", Integer.MAX_VALUE)
                    .load(registry.silverEvents()),
                config.goldWatermarkDelay(),
                config.sources(),
                null),
            metric);
    // the new checkpoint is the gold stream's: one watermark per listed source, recorded with it
    SourceCheckpoints.check(spark, checkpoint, metric.queryName(), config.sources());
    // Every partition must be processed (Spark validates the state store commits of each).
    VoidFunction2<Dataset<Row>, Long> nothing =
        (batch, batchId) -> batch.write().format("noop").mode("overwrite").save();
    try (ProgressRecorder recorder =
        new ProgressRecorder(spark, registry.streamProgress(), Set.of(metric.queryName()))
            .start()) {
      recorder.watermarkDelay(metric.queryName(), Optional.of(config.goldWatermarkDelay()));
      StreamingQuery q =
          agg.writeStream()
              .queryName(metric.queryName())
              .outputMode("update")
              .option("checkpointLocation", checkpoint)
              .trigger(Trigger.AvailableNow())
              .foreachBatch(nothing)
              .start();
      q.awaitTermination();
      recorder.awaitTerminated(q.runId(), java.time.Duration.ofSeconds(30));
    } catch (TimeoutException | StreamingQueryException e) {
      throw new io.latelake.core.streaming.StreamFailedException(
          "Cannot start the new checkpoint "
              + checkpoint
              + " of "
              + metric.queryName()
              + ": "
              + e.getMessage(),
          e);
    }
    Checkpoints cp = new Checkpoints(spark, checkpoint);
    OptionalLong last = cp.lastPlanned();
    if (last.isEmpty()) {
      return Optional.empty();
    }
    Instant w = cp.planned(last.getAsLong()).orElseThrow().watermark();
    return w.toEpochMilli() == 0 ? Optional.empty() : Optional.of(w);
  }
}

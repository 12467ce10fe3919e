package io.latelake.core.streaming;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.read.streaming.Offset;
import org.apache.spark.sql.execution.streaming.checkpointing.CommitLog;
import org.apache.spark.sql.execution.streaming.checkpointing.OffsetSeq;
import org.apache.spark.sql.execution.streaming.checkpointing.OffsetSeqLog;
import org.apache.spark.sql.execution.streaming.checkpointing.OffsetSeqMetadata;
import org.apache.spark.sql.execution.streaming.runtime.StreamMetadata;

/**
 * Read-only view of a streaming query's checkpoint through Spark's own checkpoint log classes (the
 * offset log holds the micro-batches planned, the commit log those completed). Never writes.
 */
public final class Checkpoints {
  private final SparkSession spark;
  private final String checkpoint;

  /**
   * @param spark the session (Hadoop configuration)
   * @param checkpoint the query's checkpoint folder
   */
  public Checkpoints(SparkSession spark, String checkpoint) {
    this.spark = spark;
    this.checkpoint = checkpoint;
  }

  /**
   * @return the query id stored in the checkpoint, empty for a checkpoint never started
   */
  public Optional<UUID> queryId() {
    var meta =
        StreamMetadata.read(
            new Path(checkpoint, "metadata"), spark.sparkContext().hadoopConfiguration());
    return meta.isDefined() ? Optional.of(UUID.fromString(meta.get().id())) : Optional.empty();
  }

  /**
   * @return the last micro-batch committed (completed), empty when none
   */
  public OptionalLong lastCommitted() {
    return latest(
        new CommitLog(spark, new Path(checkpoint, "commits").toString()).getLatestBatchId());
  }

  /**
   * @return the first micro-batch still in the commit log (Spark purges older ones)
   */
  public OptionalLong firstRetainedCommit() {
    long[] ids = new CommitLog(spark, new Path(checkpoint, "commits").toString()).listBatches();
    return ids.length == 0
        ? OptionalLong.empty()
        : OptionalLong.of(java.util.Arrays.stream(ids).min().getAsLong());
  }

  /**
   * @return the last micro-batch planned (its offsets written), empty when none
   */
  public OptionalLong lastPlanned() {
    return latest(offsets().getLatestBatchId());
  }

  /**
   * @return each source's offset in the last planned micro-batch, as the source wrote it (JSON: a
   *     file source's {@code {"logOffset":N}}, Kafka's {@code {"topic":{"partition":offset}}}; null
   *     for a source without one), in the query's source order; empty when none was planned
   */
  public Optional<List<String>> lastPlannedOffsets() {
    scala.Option<scala.Tuple2<Object, OffsetSeq>> latest = offsets().getLatest();
    if (latest.isEmpty()) {
      return Optional.empty();
    }
    List<String> out = new ArrayList<>();
    scala.collection.Iterator<scala.Option<Offset>> it = latest.get()._2().offsets().iterator();
    while (it.hasNext()) {
      scala.Option<Offset> o = it.next();
      out.add(o.isDefined() ? o.get().json() : null);
    }
    return Optional.of(out);
  }

  /**
   * @param batchId a planned micro-batch
   * @return its watermark and start time as Spark planned them (UTC), empty when not in the log
   */
  public Optional<Planned> planned(long batchId) {
    scala.Option<OffsetSeqMetadata> m = offsets().offsetSeqMetadataForBatchId(batchId);
    if (m.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        new Planned(
            Instant.ofEpochMilli(m.get().batchWatermarkMs()),
            Instant.ofEpochMilli(m.get().batchTimestampMs())));
  }

  /**
   * What the offset log says of a micro-batch.
   *
   * @param watermark the watermark the micro-batch ran with (epoch 0 when the query has none)
   * @param batchTimestamp when it was planned
   */
  public record Planned(Instant watermark, Instant batchTimestamp) {}

  private OffsetSeqLog offsets() {
    return new OffsetSeqLog(spark, new Path(checkpoint, "offsets").toString());
  }

  private static OptionalLong latest(scala.Option<Object> id) {
    return id.isDefined() ? OptionalLong.of((Long) id.get()) : OptionalLong.empty();
  }
}

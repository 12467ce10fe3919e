package io.latelake.bronze;

import static org.apache.spark.sql.functions.col;

import io.latelake.bronze.parse.BronzeParse;
import io.latelake.core.job.JobContext;
import io.latelake.core.streaming.StreamPlan;
import io.latelake.core.streaming.StreamingJob;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Streams the configured source (Kafka topics or a landing folder) into {@code bronze_events}. No
 * watermark, no filter: every record becomes exactly one row (see {@link BronzeParse} for the
 * schema), once per (source, partition, offset) or file line, across restarts — the checkpoint and
 * {@link io.latelake.core.streaming.MicroBatchCommits} make the append exactly-once. {@link #run()}
 * runs until the input is drained (available-now) or until stopped; it throws {@link
 * io.latelake.core.config.LakeConfigException} when the landing folder does not exist or the bronze
 * table was written from the other kind of source.
 */
public final class BronzeJob extends StreamingJob<BronzeConfig> {
  public BronzeJob(JobContext context, BronzeConfig config) {
    super(context, config, "bronze");
  }

  @Override
  protected List<StreamPlan> plans() {
    // A bronze table written by an earlier version lacks newer columns (payload_bytes):
    // mergeSchema lets Delta add them on the first append instead of refusing the stream.
    return List.of(
        new StreamPlan(
            config.queryName(),
            this::source,
            this::transform,
            context.tables().bronzeEvents(),
            new StreamPlan.Append(
                List.of("ingest_date"), Map.of("mergeSchema", "true"), Optional.of(ownRows())),
            config.trigger(),
            config.source() == BronzeConfig.Source.KAFKA
                ? List.of(KafkaConnectorFailures.METRICS_NPE)
                : List.of()));
  }

  /**
   * The bronze rows this query writes or would write again: several bronze queries (one per source
   * name) may append to the one bronze table. A Kafka source's rows carry their topic; a landing
   * folder's carry the source name and their file ({@link BronzeSources}). A folder's rows count
   * under any source name, so renaming {@code lake.event.source-name} for the same folder is
   * refused like a lost checkpoint instead of reading every file again.
   */
  private Column ownRows() {
    if (config.source() == BronzeConfig.Source.KAFKA) {
      return col("source").isin(config.topics().toArray());
    }
    String inFolder =
        io.latelake.core.table.DeltaTables.absolutePath(context.spark(), config.filesPath()) + "/";
    return col("source")
        .equalTo(config.event().sourceName())
        .or(org.apache.spark.sql.functions.instr(col("source_file"), inFolder).gt(0));
  }

  private Dataset<Row> source() {
    if (context.firstCheck(List.of("source", config))) {
      SourceSwitchGuard.requireSameSource(
          context.spark(),
          context.tables().bronzeEvents(),
          config.source(),
          config.queryName(),
          context.tables().checkpoint(config.queryName()));
    }
    return switch (config.source()) {
      case KAFKA -> BronzeSources.kafka(context.spark(), config);
      case FILES -> BronzeSources.files(context.spark(), config);
    };
  }

  /**
   * Raw records → bronze rows ({@link BronzeParse#parse}), the quarantined ones counted per
   * micro-batch ({@link io.latelake.core.streaming.QuarantineCount}).
   */
  Dataset<Row> transform(Dataset<Row> raw) {
    return io.latelake.core.streaming.QuarantineCount.observe(
        BronzeParse.parse(raw, config.event(), config.enqueuedTimeField()));
  }
}

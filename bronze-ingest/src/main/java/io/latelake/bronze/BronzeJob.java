package io.latelake.bronze;

import io.latelake.core.config.LakeConfigException;
import io.latelake.core.config.Secrets;
import io.latelake.core.event.BronzeRows;
import io.latelake.core.streaming.CheckpointGuard;
import io.latelake.core.streaming.StreamRunner;
import io.latelake.core.streaming.StreamSummary;
import io.latelake.core.table.DeltaTables;
import io.latelake.core.table.TableRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams the configured source (Kafka topics or a landing folder) into {@code bronze_events}.
 * No watermark, no filter: every record becomes exactly one row (see {@link BronzeRows} for the
 * schema), once per (source, partition, offset) or file line, across restarts — the Delta sink
 * and the checkpoint make the append exactly-once.
 */
public final class BronzeJob {
  private static final Logger LOG = LoggerFactory.getLogger(BronzeJob.class);

  /**
   * @param summary what the stream did
   */
  public record Result(StreamSummary summary) {}

  private final SparkSession spark;
  private final BronzeConfig config;
  private final TableRegistry tables;

  public BronzeJob(SparkSession spark, BronzeConfig config, TableRegistry tables) {
    this.spark = spark;
    this.config = config;
    this.tables = tables;
  }

  /**
   * Runs the bronze stream: until the input is drained (available-now) or until stopped.
   *
   * @throws LakeConfigException when the landing folder does not exist, or the bronze table was
   *     written from the other kind of source
   * @throws io.latelake.core.LatelakeException when the stream fails or its checkpoint is missing
   */
  public Result run() {
    return new Result(StreamRunner.run(spark, tables.streamProgress(), starts()).get(0));
  }

  /**
   * Checks the source and checkpoint and creates {@code bronze_events} if needed, without
   * starting the query: for {@code latelake run}, which starts every layer in one application.
   *
   * @return the bronze query to start
   * @throws LakeConfigException when the landing folder does not exist
   * @throws io.latelake.core.LatelakeException when the checkpoint is missing
   */
  public List<StreamRunner.Start> starts() {
    SourceSwitchGuard.requireSameSource(spark, tables.bronzeEvents(), config.source(),
        config.queryName());
    Dataset<Row> raw = switch (config.source()) {
      case "kafka" -> {
        warnOnCreateTime();
        yield BronzeSources.kafka(spark, config);
      }
      default -> {
        requireFolder(config.filesPath());
        yield BronzeSources.files(spark, config);
      }
    };
    Dataset<Row> bronze = BronzeRows.parse(raw, config.event(), config.enqueuedTimeField());
    String path = tables.bronzeEvents();
    String checkpoint = tables.checkpoint(config.queryName());
    CheckpointGuard.requireCheckpointIfTableHasData(spark, config.queryName(), path, checkpoint);
    DeltaTables.createIfNotExists(spark, path, bronze.schema(), List.of("ingest_date"), Map.of());
    return List.of(new StreamRunner.Start(config.queryName(), checkpoint,
        () -> start(bronze, path, checkpoint)));
  }

  private StreamingQuery start(Dataset<Row> bronze, String path, String checkpoint) {
    return bronze.writeStream()
        .queryName(config.queryName())
        .format("delta")
        .outputMode("append")
        .partitionBy("ingest_date")
        // A bronze table written by an earlier version lacks newer columns (payload_bytes):
        // Delta adds them on the first append instead of refusing the stream.
        .option("mergeSchema", "true")
        .option("checkpointLocation", checkpoint)
        .trigger(config.trigger().toTrigger())
        .start(path);
  }

  private void requireFolder(String folder) {
    try {
      if (!DeltaTables.pathExists(spark, folder)) {
        throw LakeConfigException.invalid("lake.bronze.files.path", folder,
            "the landing folder does not exist");
      }
    } catch (java.io.UncheckedIOException e) {
      throw LakeConfigException.invalid("lake.bronze.files.path", folder,
          "cannot be read: " + e.getMessage());
    }
  }

  /**
   * Warns for every subscribed topic whose {@code message.timestamp.type} is CreateTime: its
   * record timestamps are the producer's clock, not an arrival time.
   */
  private void warnOnCreateTime() {
    Map<String, Object> props = new java.util.HashMap<>();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
    props.putAll(config.kafkaAdminProperties());
    try (Admin admin = Admin.create(props)) {
      List<ConfigResource> resources = config.topics().stream()
          .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
      Map<ConfigResource, Config> configs =
          admin.describeConfigs(resources).all().get(20, TimeUnit.SECONDS);
      for (Map.Entry<ConfigResource, Config> e : configs.entrySet()) {
        var entry = e.getValue().get("message.timestamp.type");
        String type = entry == null ? "unknown" : entry.value();
        if ("CreateTime".equals(type)) {
          LOG.warn("Topic {} uses message.timestamp.type=CreateTime: enqueued_time is the "
              + "producer's clock, not the broker's arrival time; lateness figures from it are "
              + "marked (timestamp_type = 0). Set LogAppendTime on the topic for true arrival "
              + "times.", e.getKey().name());
        } else {
          LOG.info("Topic {} uses message.timestamp.type={}", e.getKey().name(), type);
        }
      }
    } catch (ExecutionException | TimeoutException e) {
      LOG.warn("Could not read the timestamp type of topics {} from {}: {}", config.topics(),
          config.bootstrapServers(), Secrets.redact(e.getMessage()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

}

package io.latelake.bronze;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.latelake.core.config.LakeConfigException;
import io.latelake.core.config.Secrets;
import io.latelake.core.table.DeltaTables;
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
import org.apache.spark.sql.streaming.DataStreamReader;
import org.apache.spark.sql.types.DataTypes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The raw input streams bronze reads, both shaped as {@link io.latelake.bronze.parse.BronzeParse}
 * expects: {@code payload, source, kafka_partition, kafka_offset, source_file, enqueued_time,
 * timestamp_type}.
 */
public final class BronzeSources {
  private static final Logger LOG = LoggerFactory.getLogger(BronzeSources.class);

  private BronzeSources() {}

  /**
   * A landing folder of JSON-lines files, one record a line. Files whose names start with {@code _}
   * or {@code .} are ignored (write there, then rename, so no half-written file is read). {@code
   * enqueued_time} is the file's modification time (UTC); with a payload enqueued-time field the
   * parser replaces it.
   *
   * @throws LakeConfigException when the landing folder does not exist or cannot be read
   */
  public static Dataset<Row> files(SparkSession spark, BronzeConfig cfg) {
    requireFolder(spark, cfg.filesPath());
    return spark
        .readStream()
        .option("maxFilesPerTrigger", cfg.maxFilesPerTrigger())
        .text(cfg.filesPath())
        .select(
            col("value").as("payload"),
            lit(cfg.event().sourceName()).as("source"),
            lit(null).cast(DataTypes.IntegerType).as("kafka_partition"),
            lit(null).cast(DataTypes.LongType).as("kafka_offset"),
            col("_metadata.file_path").as("source_file"),
            col("_metadata.file_modification_time").as("enqueued_time"),
            lit(null).cast(DataTypes.IntegerType).as("timestamp_type"));
  }

  /**
   * Kafka topics. {@code enqueued_time} is the record timestamp; {@code timestamp_type} 1 means
   * LogAppendTime (broker clock: a true arrival time), 0 CreateTime (the producer's clock). Read
   * with {@code kafka.isolation.level=read_committed} unless configured otherwise: records of
   * aborted transactions never reach bronze, and the offsets of transaction markers are gaps in
   * {@code kafka_offset}, not lost records. Logs a warning for every topic whose {@code
   * message.timestamp.type} is CreateTime.
   */
  public static Dataset<Row> kafka(SparkSession spark, BronzeConfig cfg) {
    warnOnCreateTime(cfg);
    DataStreamReader r =
        spark
            .readStream()
            .format("kafka")
            .option("kafka.bootstrap.servers", cfg.bootstrapServers())
            .option("subscribe", String.join(",", cfg.topics()))
            .option("startingOffsets", cfg.startingOffsets())
            .option("failOnDataLoss", "true")
            .option("includeHeaders", "false");
    if (cfg.maxOffsetsPerTrigger() > 0) {
      r = r.option("maxOffsetsPerTrigger", cfg.maxOffsetsPerTrigger());
    }
    for (var e : cfg.kafkaOptions().entrySet()) {
      r = r.option(e.getKey(), e.getValue());
    }
    return r.load()
        .select(
            col("value").cast(DataTypes.StringType).as("payload"),
            col("topic").as("source"),
            col("partition").as("kafka_partition"),
            col("offset").as("kafka_offset"),
            lit(null).cast(DataTypes.StringType).as("source_file"),
            col("timestamp").as("enqueued_time"),
            col("timestampType").as("timestamp_type"));
  }

  private static void requireFolder(SparkSession spark, String folder) {
    try {
      if (!DeltaTables.pathExists(spark, folder)) {
        throw LakeConfigException.invalid(
            "lake.bronze.files.path", folder, "the landing folder does not exist");
      }
    } catch (java.io.UncheckedIOException e) {
      throw LakeConfigException.invalid(
          "lake.bronze.files.path", folder, "cannot be read: " + e.getMessage());
    }
  }

  /**
   * Warns for every subscribed topic whose {@code message.timestamp.type} is CreateTime: its record
   * timestamps are the producer's clock, not an arrival time.
   */
  private static void warnOnCreateTime(BronzeConfig config) {
    Map<String, Object> props = new java.util.HashMap<>();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
    props.putAll(config.kafkaAdminProperties());
    try (Admin admin = Admin.create(props)) {
      List<ConfigResource> resources =
          config.topics().stream()
              .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t))
              .toList();
      Map<ConfigResource, Config> configs =
          admin.describeConfigs(resources).all().get(20, TimeUnit.SECONDS);
      for (Map.Entry<ConfigResource, Config> e : configs.entrySet()) {
        var entry = e.getValue().get("message.timestamp.type");
        String type = entry == null ? "unknown" : entry.value();
        if ("CreateTime".equals(type)) {
          LOG.warn(
              "Topic {} uses message.timestamp.type=CreateTime: enqueued_time is the "
                  + "producer's clock, not the broker's arrival time; lateness figures from it are "
                  + "marked (timestamp_type = 0). Set LogAppendTime on the topic for true arrival "
                  + "times.",
              e.getKey().name());
        } else {
          LOG.info("Topic {} uses message.timestamp.type={}", e.getKey().name(), type);
        }
      }
    } catch (ExecutionException | TimeoutException e) {
      LOG.warn(
          "Could not read the timestamp type of topics {} from {}: {}",
          config.topics(),
          config.bootstrapServers(),
          Secrets.redact(e.getMessage()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

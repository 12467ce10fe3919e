package io.latelake.bronze;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.DataStreamReader;
import org.apache.spark.sql.types.DataTypes;

/**
 * The raw input streams bronze reads, both shaped as {@link io.latelake.core.event.BronzeRows}
 * expects: {@code payload, source, kafka_partition, kafka_offset, source_file, enqueued_time,
 * timestamp_type}.
 */
public final class BronzeSources {
  private BronzeSources() {}

  /**
   * A landing folder of JSON-lines files, one record a line. Files whose names start with
   * {@code _} or {@code .} are ignored (write there, then rename, so no half-written file is read).
   * {@code enqueued_time} is the file's modification time (UTC); with a payload enqueued-time field
   * the parser replaces it.
   */
  public static Dataset<Row> files(SparkSession spark, BronzeConfig cfg) {
    return spark.readStream()
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
   * LogAppendTime (broker clock: a true arrival time), 0 CreateTime (the producer's clock).
   * Read with {@code kafka.isolation.level=read_committed} unless configured otherwise: records
   * of aborted transactions never reach bronze, and the offsets of transaction markers are gaps
   * in {@code kafka_offset}, not lost records.
   */
  public static Dataset<Row> kafka(SparkSession spark, BronzeConfig cfg) {
    DataStreamReader r = spark.readStream().format("kafka")
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
    return r.load().select(
        col("value").cast(DataTypes.StringType).as("payload"),
        col("topic").as("source"),
        col("partition").as("kafka_partition"),
        col("offset").as("kafka_offset"),
        lit(null).cast(DataTypes.StringType).as("source_file"),
        col("timestamp").as("enqueued_time"),
        col("timestampType").as("timestamp_type"));
  }
}

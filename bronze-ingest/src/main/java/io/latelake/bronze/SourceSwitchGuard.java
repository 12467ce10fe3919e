package io.latelake.bronze;

import io.latelake.core.config.LakeConfigException;
import io.latelake.core.table.DeltaTables;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Refuses to start bronze from one kind of source ({@code files} or {@code kafka}) on a bronze
 * table that was written from the other. Both write under the same query name and checkpoint
 * ({@code bronze_<lake.event.source-name>}), and a checkpoint's offsets belong to one kind of
 * source: Spark would fail on them, or read the new source from an offset that means nothing.
 */
final class SourceSwitchGuard {
  private SourceSwitchGuard() {}

  /**
   * @param spark session
   * @param path bronze table path
   * @param source the configured {@code lake.bronze.source}
   * @param queryName the stream's query name (its checkpoint folder)
   * @throws LakeConfigException (exit 2) when the table holds rows of the other source kind
   */
  static void requireSameSource(
      SparkSession spark, String path, BronzeConfig.Source configured, String queryName) {
    String source = configured.configName();
    if (!DeltaTables.exists(spark, path)) {
      return;
    }
    // Every row carries the kind of its source: a Kafka offset or a source file.
    List<Row> first =
        spark
            .read()
            .format("delta")
            .load(path)
            .select("kafka_offset", "source_file")
            .limit(1)
            .collectAsList();
    String written = first.isEmpty() ? null : first.get(0).isNullAt(0) ? "files" : "kafka";
    if (written != null && !written.equals(source)) {
      throw new LakeConfigException(
          "Invalid value '"
              + source
              + "' for key 'lake.bronze.source': "
              + "bronze_events at "
              + path
              + " was written from "
              + written
              + " by the stream '"
              + queryName
              + "', whose checkpoint tracks "
              + written
              + " offsets; a stream cannot "
              + "change its source. Keep lake.bronze.source="
              + written
              + ", or give the "
              + source
              + " stream a new lake.root.");
    }
  }
}

package io.latelake.bronze;

import io.latelake.core.config.LakeConfigException;
import io.latelake.core.table.DeltaTables;
import org.apache.spark.sql.Dataset;
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
   * @throws LakeConfigException (exit 2) when the table holds rows of the other source kind only
   */
  static void requireSameSource(SparkSession spark, String path, String source,
      String queryName) {
    if (!DeltaTables.exists(spark, path)) {
      return;
    }
    Dataset<Row> bronze = spark.read().format("delta").load(path);
    boolean fromKafka = !bronze.where("kafka_offset IS NOT NULL").limit(1).isEmpty();
    boolean fromFiles = !bronze.where("source_file IS NOT NULL").limit(1).isEmpty();
    String written = fromKafka == fromFiles ? null : fromKafka ? "kafka" : "files";
    if (written != null && !written.equals(source)) {
      throw new LakeConfigException("Invalid value '" + source + "' for key 'lake.bronze.source': "
          + "bronze_events at " + path + " was written from " + written + " by the stream '"
          + queryName + "', whose checkpoint tracks " + written + " offsets; a stream cannot "
          + "change its source. Keep lake.bronze.source=" + written + ", or give the " + source
          + " stream a new lake.root.");
    }
  }
}

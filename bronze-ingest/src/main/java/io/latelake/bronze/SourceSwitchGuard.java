package io.latelake.bronze;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.streaming.Checkpoints;
import io.latelake.core.table.DeltaTables;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Refuses to start bronze from one kind of source ({@code files} or {@code kafka}) on a bronze
 * table that was written from the other. With the same {@code lake.event.source-name} both write
 * under the same query name and checkpoint ({@code bronze_<lake.event.source-name>}), and a
 * checkpoint's offsets belong to one kind of source: Spark would fail on them, or read the new
 * source from an offset that means nothing. A lake's bronze sources are therefore all of one kind,
 * also when each has its own source name (a new source's first start sees the table's rows).
 *
 * <p>The kind that wrote the table is read from the checkpoint's last planned offsets (a file
 * source's offset is {@code {"logOffset":N}}; Kafka's maps topics to partitions) when the
 * checkpoint has any: a file read instead of a scan of bronze (which makes Delta rebuild the
 * table's snapshot first). Only a checkpoint that never planned a micro-batch sends it to the
 * table's rows.
 */
final class SourceSwitchGuard {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private SourceSwitchGuard() {}

  /**
   * @param spark session
   * @param path bronze table path
   * @param source the configured {@code lake.bronze.source}
   * @param queryName the stream's query name (its checkpoint folder)
   * @param checkpoint the stream's checkpoint folder
   * @throws LakeConfigException (exit 2) when the table holds rows of the other source kind
   */
  static void requireSameSource(
      SparkSession spark,
      String path,
      BronzeConfig.Source configured,
      String queryName,
      String checkpoint) {
    String source = configured.configName();
    Optional<List<String>> offsets = new Checkpoints(spark, checkpoint).lastPlannedOffsets();
    String written;
    if (offsets.isPresent()) {
      written =
          offsets.get().stream().anyMatch(SourceSwitchGuard::isFileOffset) ? "files" : "kafka";
    } else if (DeltaTables.exists(spark, path)) {
      // Every row carries the kind of its source: a Kafka offset or a source file.
      List<Row> first =
          spark
              .read()
              .format("delta")
              .load(path)
              .select("kafka_offset", "source_file")
              .limit(1)
              .collectAsList();
      written = first.isEmpty() ? null : first.get(0).isNullAt(0) ? "files" : "kafka";
    } else {
      return;
    }
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

  /**
   * A file source's offset is an object with a numeric {@code logOffset}; Kafka's values are maps.
   */
  private static boolean isFileOffset(String json) {
    if (json == null) {
      return false;
    }
    try {
      JsonNode n = MAPPER.readTree(json);
      return n.isObject() && n.size() == 1 && n.path("logOffset").isNumber();
    } catch (JsonProcessingException e) {
      return false;
    }
  }
}

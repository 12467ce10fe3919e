package io.latelake.core.streaming;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How far a query's rows are known to be in {@code monitoring.stream_progress}, kept in the query's
 * checkpoint folder ({@value #FILE}), so that a process starting the query need not read the table
 * to find out ({@link ProgressRecorder#recordMissing}): in a new JVM that read is its first Spark
 * query, about 3 s of a {@code run --available-now} with nothing new (docs/benchmark.md, "A stream
 * start").
 *
 * <p>A process writes the mark when its recorder closes (at the end of its run, also after a failed
 * query or on SIGTERM), after its rows are committed, with the highest batch id whose row it wrote
 * or found in the table; so the mark never claims a row the table lacks. A process killed with
 * {@code kill -9} leaves the mark of an earlier run, lower than the checkpoint's last commit: the
 * next start then reads the table as before. A mark of another table path or query id (a checkpoint
 * started anew), or one that cannot be read, counts as none. The mark does not know the table
 * itself: one that is deleted and created again at the same path, or restored to an earlier
 * version, keeps the marks, and the rows of micro-batches lost by a {@code kill -9} before that are
 * not written again (delete the checkpoints' {@value #FILE} files when you replace the table).
 *
 * <p>The file: {@code {"progress_table": "<path>", "query_id": "<uuid>", "recorded_through": N}}.
 * Spark ignores files of its checkpoint folder it does not know.
 */
final class ProgressMark {
  private static final Logger LOG = LoggerFactory.getLogger(ProgressMark.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The mark's file name in the checkpoint folder. */
  static final String FILE = "latelake-progress-recorded.json";

  private ProgressMark() {}

  /**
   * @return the highest batch id the mark says {@code progressTable} holds for the query, -1 when
   *     there is no usable mark
   */
  static long read(SparkSession spark, String checkpoint, String progressTable, UUID queryId) {
    Path file = new Path(checkpoint, FILE);
    try {
      FileSystem fs = file.getFileSystem(spark.sparkContext().hadoopConfiguration());
      if (!fs.exists(file)) {
        return -1;
      }
      JsonNode mark;
      try (InputStream in = fs.open(file)) {
        mark = JSON.readTree(in);
      }
      if (mark == null
          || !progressTable.equals(mark.path("progress_table").asText())
          || !queryId.toString().equals(mark.path("query_id").asText())
          || !mark.path("recorded_through").canConvertToLong()) {
        return -1;
      }
      return mark.path("recorded_through").asLong();
    } catch (IOException | RuntimeException | org.apache.hadoop.fs.FSError e) {
      LOG.debug("Progress mark {} not usable, reading the table instead: {}", file, e.toString());
      return -1;
    }
  }

  /**
   * Writes the mark; a failure is logged at DEBUG (the next start then reads the table).
   *
   * @param recordedThrough the highest batch id whose row the table holds for the query
   */
  static void write(
      SparkSession spark,
      String checkpoint,
      String progressTable,
      UUID queryId,
      long recordedThrough) {
    Path file = new Path(checkpoint, FILE);
    try {
      FileSystem fs = file.getFileSystem(spark.sparkContext().hadoopConfiguration());
      byte[] bytes =
          JSON.writeValueAsString(
                  JSON.createObjectNode()
                      .put("progress_table", progressTable)
                      .put("query_id", queryId.toString())
                      .put("recorded_through", recordedThrough))
              .getBytes(StandardCharsets.UTF_8);
      try (OutputStream out = fs.create(file, true)) {
        out.write(bytes);
      }
    } catch (IOException | RuntimeException | org.apache.hadoop.fs.FSError e) {
      LOG.debug("Could not write progress mark {}: {}", file, e.toString());
    }
  }
}

package io.latelake.core.streaming;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.not;

import com.typesafe.config.Config;
import io.latelake.core.ExitCode;
import io.latelake.core.LatelakeException;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.config.Settings;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Per-source event time ({@value #KEY}): one watermarked input per listed source, so that a slow
 * source is judged against its own event time, not a fast one's.
 *
 * <p>With an empty list the input is watermarked once, as before the key existed (same plan, same
 * checkpoints). With sources listed, the input is split on its {@code source} column: one {@code
 * withWatermark} per listed source, in the listed order, then the rows of every other source
 * (including a null source) with no watermark of their own, all unioned. Spark computes one
 * watermark per input (max event time seen − delay) and, with {@code
 * spark.sql.streaming.multipleWatermarkPolicy = min} (its default), the query's watermark is the
 * smallest: the slowest source's. Spark 4.1.1 ({@code WatermarkTracker}) counts an input that has
 * not delivered a row since the query (re)started as watermark 0, so the query's watermark stays
 * where the checkpoint left it until every listed source has delivered. Rows of unlisted sources
 * are never dropped for being unlisted: they are deduplicated, aggregated and judged late against
 * that same watermark, and never move it.
 *
 * <p>The list is recorded with each query's checkpoint (file {@value #MARKER} in the checkpoint
 * folder, one source per line) when the checkpoint is new; a checkpoint without it was built with
 * an empty list. A query refuses to start on a checkpoint recorded with another list ({@link
 * #check}).
 */
public final class SourceInputs {
  /** Config key of the sources given their own watermark. */
  public static final String KEY = "lake.sources";

  /** File in a query's checkpoint folder recording the list it was built with. */
  public static final String MARKER = "latelake-sources";

  private SourceInputs() {}

  /**
   * @param root the effective config
   * @return {@value #KEY}, in the configured order (empty: one input for all sources)
   * @throws LakeConfigException unless it is a list of distinct non-blank strings
   */
  public static List<String> fromConfig(Config root) {
    Settings s = Settings.of(root);
    List<String> sources = s.strings(KEY);
    if (new HashSet<>(sources).size() != sources.size()) {
      throw LakeConfigException.invalid(KEY, sources, "a source must not be listed twice");
    }
    return sources;
  }

  /**
   * The input watermarked on {@code event_time}: once with an empty {@code sources}, else once per
   * listed source plus the unwatermarked rest (class comment). Pure: no Spark job.
   *
   * @param in rows with {@code event_time} (timestamp) and {@code source} (string)
   * @param delay watermark delay
   * @param sources the listed sources (see {@link #fromConfig})
   * @return the same rows and columns, watermarked
   */
  public static Dataset<Row> watermarked(Dataset<Row> in, Duration delay, List<String> sources) {
    String interval = delay.toMillis() + " milliseconds";
    if (sources.isEmpty()) {
      return in.withWatermark("event_time", interval);
    }
    Dataset<Row> out = null;
    for (String s : sources) {
      Dataset<Row> one =
          in.filter(col("source").equalTo(lit(s))).withWatermark("event_time", interval);
      out = out == null ? one : out.union(one);
    }
    // last: the union takes the event_time column (and its watermark) from its first input
    return out.union(in.filter(not(coalesce(col("source").isInCollection(sources), lit(false)))));
  }

  /**
   * Before a query starts on {@code checkpoint}: a checkpoint that has not planned a micro-batch
   * yet records {@code sources}; a started one must have been built with {@code sources} (no
   * record: with an empty list).
   *
   * @param spark the session (Hadoop configuration)
   * @param checkpoint the query's checkpoint folder
   * @param queryName the query, for the message
   * @param sources the configured {@value #KEY}
   * @throws LakeConfigException (exit 2) when the checkpoint was built with another list, naming
   *     both and the remedy
   * @throws LatelakeException (exit 1) when the checkpoint folder cannot be read or written
   */
  public static void check(
      SparkSession spark, String checkpoint, String queryName, List<String> sources) {
    Path marker = new Path(checkpoint, MARKER);
    Path offsets = new Path(checkpoint, "offsets");
    try {
      FileSystem fs = marker.getFileSystem(spark.sparkContext().hadoopConfiguration());
      boolean started = fs.exists(offsets) && fs.listStatus(offsets).length > 0;
      if (!started) {
        try (OutputStream o = fs.create(marker, true)) {
          o.write(String.join("\n", sources).getBytes(StandardCharsets.UTF_8));
        }
        return;
      }
      List<String> recorded = new ArrayList<>();
      if (fs.exists(marker)) {
        try (InputStream i = fs.open(marker)) {
          for (String line : new String(i.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
            if (!line.isBlank()) {
              recorded.add(line);
            }
          }
        }
      }
      if (!recorded.equals(sources)) {
        throw refusal(queryName, checkpoint, recorded, sources);
      }
    } catch (IOException e) {
      throw new LatelakeException(
          "Cannot check the sources of checkpoint " + checkpoint + ": " + e.getMessage(),
          ExitCode.RUNTIME_FAILURE,
          e);
    }
  }

  /**
   * @return the exit-2 refusal for a checkpoint built with {@code recorded}
   */
  static LakeConfigException refusal(
      String queryName, String checkpoint, List<String> recorded, List<String> sources) {
    return new LakeConfigException(
        "Cannot start stream "
            + queryName
            + ": "
            + KEY
            + " is "
            + sources
            + " but its checkpoint "
            + checkpoint
            + " was built with "
            + recorded
            + " (file "
            + MARKER
            + "; none: []). The checkpoint's watermark and state were built with one watermark "
            + "per listed source; another list would judge the rows of a changed source against "
            + "another watermark from the next micro-batch on. Restore "
            + KEY
            + " = "
            + recorded
            + ", or rebuild this stream on a new checkpoint (move the checkpoint aside and "
            + "delete its output table, then the layers that read it)");
  }
}

package io.latelake.core.streaming;

import io.latelake.core.config.LakeConfigException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The source inputs a watermarked query's checkpoint was built with ({@link
 * SourceWatermarks#inputs}), recorded in its checkpoint folder, and the check a start makes against
 * them.
 */
public final class SourceCheckpoints {
  /** File in a query's checkpoint folder recording the inputs it was built with. */
  public static final String MARKER = "latelake-sources";

  private static final String KEY = SourceInputs.KEY;

  private static final Logger LOG = LoggerFactory.getLogger(SourceCheckpoints.class);

  private SourceCheckpoints() {}

  /**
   * Before a query starts on {@code checkpoint}: a checkpoint that has not planned a micro-batch
   * yet records {@code sources}; a started one must have been built with {@code sources} (no
   * record: with an empty list).
   *
   * @param spark the session (Hadoop configuration)
   * @param checkpoint the query's checkpoint folder
   * @param queryName the query, for the message
   * @param sources the configured {@value #KEY} and its slots ({@link SourceWatermarks#inputs})
   * @throws LakeConfigException (exit 2) when the checkpoint was built with another number of
   *     inputs, naming both lists and the remedy. The same number with other names (a source listed
   *     into a spare slot, a source removed leaving its slot spare, a source replaced by another)
   *     is allowed: the new list is recorded and logged. Spark keeps one watermark per query, not
   *     per input, in the checkpoint, so every input starts from no event time at each start
   *     anyway; the query's watermark is kept.
   * @throws io.latelake.core.table.StorageException (exit 1) when the checkpoint folder cannot be
   *     read or written
   */
  public static void check(
      SparkSession spark, String checkpoint, String queryName, SourceWatermarks sources) {
    List<String> inputs = sources.inputs();
    Path marker = new Path(checkpoint, MARKER);
    Path offsets = new Path(checkpoint, "offsets");
    try {
      FileSystem fs = marker.getFileSystem(spark.sparkContext().hadoopConfiguration());
      boolean started = fs.exists(offsets) && fs.listStatus(offsets).length > 0;
      if (!started) {
        try (OutputStream o = fs.create(marker, true)) {
          o.write(String.join("\n", inputs).getBytes(StandardCharsets.UTF_8));
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
      if (recorded.equals(inputs)) {
        return;
      }
      int recordedInputs = recorded.isEmpty() ? 1 : recorded.size() + 1;
      if (recordedInputs != sources.inputCount()) {
        throw refusal(queryName, checkpoint, recorded, sources);
      }
      try (OutputStream o = fs.create(marker, true)) {
        o.write(String.join("\n", inputs).getBytes(StandardCharsets.UTF_8));
      }
      LOG.info(
          "{}: {} {} on checkpoint {}, which was built with {}: the same {} inputs, now recorded;"
              + " the query's watermark is kept, each input starts from no event time",
          queryName,
          KEY,
          inputs,
          checkpoint,
          recorded,
          recordedInputs);
    } catch (IOException e) {
      throw new io.latelake.core.table.StorageException(
          "Cannot check the sources of checkpoint " + checkpoint + ": " + e.getMessage(), e);
    }
  }

  /**
   * @return the exit-2 refusal for a checkpoint built with {@code recorded}
   */
  static LakeConfigException refusal(
      String queryName, String checkpoint, List<String> recorded, SourceWatermarks sources) {
    int slots = recorded.size();
    String restore = KEY + " = " + listedOf(recorded);
    if (recorded.stream().anyMatch(r -> r.startsWith(SourceWatermarks.SPARE))) {
      restore += " with " + SourceWatermarks.SLOTS_KEY + " = " + slots;
    }
    String remedy;
    if (slots > 0 && !sources.listed().isEmpty() && sources.listed().size() <= slots) {
      remedy =
          "Set "
              + SourceWatermarks.SLOTS_KEY
              + " = "
              + slots
              + " to keep this checkpoint (a source takes a spare slot; a removed one leaves its"
              + " slot spare), restore "
              + restore
              + ", or rebuild";
    } else if (slots > 0 && sources.listed().size() > slots) {
      remedy =
          "It has "
              + slots
              + " slots, fewer than the "
              + sources.listed().size()
              + " sources listed: replace a listed source, restore "
              + restore
              + ", or rebuild";
    } else {
      remedy = "Restore " + restore + ", or rebuild";
    }
    return new LakeConfigException(
        "Cannot start stream "
            + queryName
            + ": "
            + KEY
            + " is "
            + sources.listed()
            + (sources.spares() > 0
                ? " in " + SourceWatermarks.SLOTS_KEY + " = " + sources.inputs().size()
                : "")
            + " but its checkpoint "
            + checkpoint
            + " was built with "
            + recorded
            + " (file "
            + MARKER
            + "; none: []). Spark records one input per listed source or spare slot, plus one, "
            + "and refuses a checkpoint whose number of inputs changed. "
            + remedy
            + " this stream on a new checkpoint (move the checkpoint aside and delete its output "
            + "table, then the layers that read it)");
  }

  private static List<String> listedOf(List<String> recorded) {
    return recorded.stream().filter(s -> !s.startsWith(SourceWatermarks.SPARE)).toList();
  }
}

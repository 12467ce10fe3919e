package io.latelake.core.streaming;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.count_if;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.least;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.not;
import static org.apache.spark.sql.functions.timestamp_millis;
import static org.apache.spark.sql.functions.unix_millis;
import static org.apache.spark.sql.functions.when;

import com.typesafe.config.Config;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.config.Settings;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * where the checkpoint left it until every listed source has delivered, unless the source has an
 * idle timeout (idle markers, {@link #watermarked}). Rows of unlisted sources are never dropped for
 * being unlisted: they are deduplicated, aggregated and judged late against that same watermark,
 * and have no watermark of their own (with an idle timeout, their arrivals move the arrival clock a
 * quiet listed source is timed by).
 *
 * <p>The inputs are recorded with each query's checkpoint (file {@value #MARKER} in the checkpoint
 * folder, one listed source or spare slot per line) when the checkpoint is new; a checkpoint
 * without it was built with an empty list. A query refuses to start on a checkpoint recorded with
 * another number of inputs; with the same number (spare slots, {@link SourceWatermarks}) it starts
 * and records the new list ({@link #check}).
 */
public final class SourceInputs {
  /** Config key of the sources given their own watermark. */
  public static final String KEY = "lake.sources";

  /** File in a query's checkpoint folder recording the list it was built with. */
  public static final String MARKER = "latelake-sources";

  private static final Logger LOG = LoggerFactory.getLogger(SourceInputs.class);

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
    if (sources.contains(UNLISTED)) {
      throw LakeConfigException.invalid(
          KEY, sources, "'" + UNLISTED + "' is the name of the other sources' rows");
    }
    for (String name : sources) {
      if (name.startsWith(SourceWatermarks.SPARE)) {
        throw LakeConfigException.invalid(
            KEY, sources, "'" + name + "': names starting '(spare ' are those of spare slots");
      }
    }
    return sources;
  }

  /**
   * The input watermarked on {@code event_time}: once when nothing is listed, else once per listed
   * source plus the unwatermarked rest (class comment), each listed source with an idle timeout fed
   * idle markers (below). Pure: no Spark job.
   *
   * <p><b>Idle markers.</b> A listed source {@code S} with an idle timeout {@code I} gets, beside
   * its own rows, one marker per row of every other source: a copy whose {@code event_time} is that
   * row's {@code enqueued_time} − {@code I} (its {@code ingested_at} − {@code I} when that is
   * earlier: an enqueued time in the future, set by a producer's clock, must not carry the
   * watermark past what has arrived). The markers pass {@code S}'s {@code withWatermark} and are
   * filtered out right after it (never deduplicated, aggregated, written or counted as dropped), so
   * {@code S}'s watermark is max(newest event time of {@code S}, arrival clock − {@code I}) −
   * delay, where the arrival clock is the largest enqueued time of the other sources' rows the
   * query has read (in this run; the checkpoint keeps the watermark across runs). A source that has
   * sent nothing for {@code I} on the arrival clock therefore stops holding the query's watermark,
   * which follows the arrival clock − {@code I} − delay; as soon as its own events are ahead of
   * that again it holds it again. The clock is the data's, not the wall clock's: replaying the same
   * input in the same micro-batches gives the same watermarks. A source that is silent in a whole
   * run is idle by the same rule: it gets the markers, so Spark no longer counts it as an input
   * that delivered nothing. One difference from idleness counted in arrivals: a sending source's
   * watermark is never more than {@code I} + delay behind the arrival clock either, so its events
   * that arrive more than about {@code I} + delay after their event time are dropped and left to
   * the correction path: {@code I} + delay must exceed the source's usual lateness (its p99 in
   * {@code monitoring.lateness_stats}). Without idle timeouts no marker is made; with sources
   * listed the last input also counts the rows read ({@value #INPUT_ROWS}): no state, existing
   * checkpoints continue. A job that splits its drops per source counts the rows of each that go on
   * itself ({@link #observeBySource} with {@value #SOURCE_IN}, as silver does).
   *
   * @param in rows with {@code event_time} and {@code enqueued_time} (timestamps, and optionally
   *     {@code ingested_at}) and {@code source} (string)
   * @param delay watermark delay
   * @param sources the listed sources and their idle timeouts (see {@link
   *     SourceWatermarks#fromConfig})
   * @param keep the rows that go on (e.g. silver's valid bronze rows), null for all; applied in
   *     each input, after the rows read are counted
   * @return the rows {@code keep} selects, same columns, watermarked
   */
  public static Dataset<Row> watermarked(
      Dataset<Row> in, Duration delay, SourceWatermarks sources, Column keep) {
    String interval = delay.toMillis() + " milliseconds";
    List<String> listed = sources.inputs();
    if (listed.isEmpty()) {
      Dataset<Row> observed = observeIngested(in);
      return (keep == null ? observed : observed.filter(keep))
          .withWatermark("event_time", interval);
    }
    Dataset<Row> kept = keep == null ? in : in.filter(keep);
    Dataset<Row> out = null;
    for (String s : listed) {
      Dataset<Row> one =
          sources
              .idleAfter(s)
              .map(idle -> withIdleMarkers(kept, s, idle, interval))
              .orElseGet(
                  () ->
                      kept.filter(col("source").equalTo(lit(s)))
                          .withWatermark("event_time", interval));
      out = out == null ? one : out.union(one);
    }
    // last: the union takes the event_time column (and its watermark) from its first input. Each
    // input scans the micro-batch and Spark adds up the scans in its input row count; this one
    // counts every row once, as Spark does for one input.
    // (an observation may appear once in a plan: the rows read and ingested_at are observed here)
    Dataset<Row> counted =
        observeIngested(in.observe(INPUT_ROWS, count(lit(1)).as("rows"), new Column[0]));
    return out.union(
        (keep == null ? counted : counted.filter(keep))
            .filter(not(coalesce(col("source").isInCollection(listed), lit(false)))));
  }

  /**
   * Name of the observation that counts, per listed source, the rows that reach the stateful
   * operator (after the idle markers are filtered out), when sources are listed ({@link
   * #droppedBySource}).
   */
  public static final String SOURCE_IN = "latelake_source_in";

  /**
   * Name of the observation a job makes after its row-by-row stateful operator (silver's
   * deduplication) with {@link #observeBySource}: the rows of each listed source that left it.
   */
  public static final String SOURCE_OUT = "latelake_source_out";

  /** Key of {@link #droppedBySource} for the rows of sources that are not listed (or null). */
  public static final String UNLISTED = "(unlisted)";

  /**
   * @return {@code in} observed as {@code name}: one count per listed source, named after it, and
   *     {@value #UNLISTED} for the rest. No state and no Spark job: existing checkpoints continue.
   */
  public static Dataset<Row> observeBySource(Dataset<Row> in, String name, List<String> listed) {
    if (listed.isEmpty()) {
      return in;
    }
    List<Column> counts = new ArrayList<>();
    for (String s : listed) {
      counts.add(count_if(coalesce(col("source").equalTo(lit(s)), lit(false))).as(s));
    }
    counts.add(
        count_if(not(coalesce(col("source").isInCollection(listed), lit(false)))).as(UNLISTED));
    return in.observe(name, counts.get(0), counts.subList(1, counts.size()).toArray(Column[]::new));
  }

  /**
   * Rows dropped by the watermark per source in one micro-batch of a query that observed {@link
   * #SOURCE_IN} and {@link #SOURCE_OUT} around a row-by-row stateful operator (silver's
   * deduplication). Spark counts the rows it drops per stateful operator, not per input, and no
   * expression in a plan sees the watermark; the counts around the operator give the split. For
   * each source, rows in − rows out = dropped + removed as duplicates. So:
   *
   * <ul>
   *   <li>no duplicate was removed: each source's dropped rows = its rows in − rows out, exactly;
   *   <li>duplicates were removed but only one source lost rows: that source's dropped rows are all
   *       of the micro-batch's, the others' 0;
   *   <li>nothing was dropped: 0 for every source;
   *   <li>otherwise the split is not known: empty (the total stays in {@code
   *       rows_dropped_by_watermark}). So is it when the counts do not add up to the rows Spark
   *       removed (dropped + duplicates): observations are accumulators, which a task run again can
   *       count twice.
   * </ul>
   *
   * @param dropped the micro-batch's rows dropped by the watermark (Spark)
   * @param duplicates the rows its deduplication removed (Spark)
   * @return source → rows dropped, listed sources in order, then {@value #UNLISTED} when such rows
   *     were read; empty without both observations, or when the split is not known
   */
  public static java.util.Optional<java.util.Map<String, Long>> droppedBySource(
      StreamingQueryProgress progress, long dropped, long duplicates) {
    return droppedBySource(
        progress.observedMetrics().get(SOURCE_IN),
        progress.observedMetrics().get(SOURCE_OUT),
        dropped,
        duplicates);
  }

  /**
   * {@link #droppedBySource(StreamingQueryProgress, long, long)} from the two observations.
   *
   * @param in the {@link #SOURCE_IN} row (one long per source, named after it), null when absent
   * @param out the {@link #SOURCE_OUT} row, same fields, null when absent
   */
  static java.util.Optional<java.util.Map<String, Long>> droppedBySource(
      Row in, Row out, long dropped, long duplicates) {
    if (in == null || out == null) {
      return java.util.Optional.empty();
    }
    java.util.Map<String, Long> lost = new java.util.LinkedHashMap<>();
    long total = 0;
    String[] names = in.schema().fieldNames();
    for (int i = 0; i < names.length; i++) {
      long read = in.isNullAt(i) ? 0 : in.getLong(i);
      long kept = out.isNullAt(i) ? 0 : out.getLong(i);
      total += read - kept;
      if (!names[i].equals(UNLISTED) || read > 0) {
        lost.put(names[i], read - kept);
      }
    }
    // Observations are accumulators: a task run again (a lost shuffle file) may count twice. Only
    // counts that add up to what Spark removed are split.
    if (total != dropped + duplicates) {
      return java.util.Optional.empty();
    }
    if (duplicates == 0) {
      return java.util.Optional.of(lost);
    }
    List<String> losing =
        lost.entrySet().stream().filter(e -> e.getValue() > 0).map(e -> e.getKey()).toList();
    if (losing.size() != 1) {
      return dropped == 0 ? java.util.Optional.of(zeros(lost)) : java.util.Optional.empty();
    }
    java.util.Map<String, Long> split = zeros(lost);
    split.put(losing.get(0), dropped);
    return java.util.Optional.of(split);
  }

  private static java.util.Map<String, Long> zeros(java.util.Map<String, Long> keys) {
    java.util.Map<String, Long> z = new java.util.LinkedHashMap<>();
    keys.keySet().forEach(k -> z.put(k, 0L));
    return z;
  }

  /**
   * Name of the observation that counts a micro-batch's input rows once when sources are listed
   * (Spark counts them once per input that scans them: listed sources + 1 times).
   */
  public static final String INPUT_ROWS = "latelake_input_rows";

  /**
   * @return the rows a micro-batch read, each once: the {@value #INPUT_ROWS} observation when the
   *     query watermarks sources on their own, else Spark's {@code numInputRows}
   */
  public static long inputRows(StreamingQueryProgress progress) {
    Row observed = progress.observedMetrics().get(INPUT_ROWS);
    return observed == null || observed.isNullAt(0) ? progress.numInputRows() : observed.getLong(0);
  }

  /**
   * Name of the observation that records the largest {@code ingested_at} among a micro-batch's
   * input rows (column {@code input_ingested_until} of {@code monitoring.stream_progress}).
   */
  public static final String INPUT_INGESTED = "latelake_input_ingested";

  /**
   * @return {@code in} observed with {@link #INPUT_INGESTED} when it has an {@code ingested_at}
   *     column (silver's and gold's inputs), else {@code in} unchanged. An observation adds no
   *     state and no Spark job: existing checkpoints continue.
   */
  static Dataset<Row> observeIngested(Dataset<Row> in) {
    if (!Arrays.asList(in.columns()).contains("ingested_at")) {
      return in;
    }
    return in.observe(
        INPUT_INGESTED,
        org.apache.spark.sql.functions.max(col("ingested_at")).as("ingested_at"),
        new Column[0]);
  }

  /**
   * @return the largest {@code ingested_at} a micro-batch read ({@link #INPUT_INGESTED}); null when
   *     the query does not observe it or the micro-batch read no row
   */
  public static java.sql.Timestamp ingestedUntil(StreamingQueryProgress progress) {
    Row observed = progress.observedMetrics().get(INPUT_INGESTED);
    return observed == null || observed.isNullAt(0) ? null : observed.getTimestamp(0);
  }

  /** Column flagging an idle marker between its projection and its filter. */
  private static final String MARKER_COLUMN = "_latelake_idle_marker";

  /**
   * @return the rows of {@code source} watermarked together with the idle markers of every other
   *     row, the markers filtered out after the watermark
   */
  private static Dataset<Row> withIdleMarkers(
      Dataset<Row> in, String source, Duration idle, String interval) {
    Column own = coalesce(col("source").equalTo(lit(source)), lit(false));
    Column arrival =
        Arrays.asList(in.columns()).contains("ingested_at")
            ? least(col("enqueued_time"), col("ingested_at"))
            : col("enqueued_time");
    Column markerTime = timestamp_millis(unix_millis(arrival).minus(lit(idle.toMillis())));
    // Spark pushes a filter below withWatermark when it does not read the event-time column; the
    // filter of the markers must stay above it, so it reads event_time (a marker is never before
    // year 1).
    Column keep =
        not(col(MARKER_COLUMN)).or(col("event_time").lt(expr("TIMESTAMP '0001-01-01 00:00:00'")));
    return in.withColumn(MARKER_COLUMN, not(own))
        .withColumn("event_time", when(own, col("event_time")).otherwise(markerTime))
        .withWatermark("event_time", interval)
        .filter(keep)
        .drop(MARKER_COLUMN);
  }

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
    String remedy;
    if (slots > 0 && !sources.listed().isEmpty() && sources.listed().size() <= slots) {
      remedy =
          "Set "
              + SourceWatermarks.SLOTS_KEY
              + " = "
              + slots
              + " to keep this checkpoint (a source takes a spare slot; a removed one leaves its"
              + " slot spare), restore "
              + KEY
              + " = "
              + listedOf(recorded)
              + ", or rebuild";
    } else if (slots > 0 && sources.listed().size() > slots) {
      remedy =
          "It has "
              + slots
              + " slots, fewer than the "
              + sources.listed().size()
              + " sources listed: replace a listed source, restore "
              + KEY
              + " = "
              + listedOf(recorded)
              + ", or rebuild";
    } else {
      remedy = "Restore " + KEY + " = " + listedOf(recorded) + ", or rebuild";
    }
    return new LakeConfigException(
        "Cannot start stream "
            + queryName
            + ": "
            + KEY
            + " is "
            + sources.inputs()
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

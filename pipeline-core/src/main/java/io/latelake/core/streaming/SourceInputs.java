package io.latelake.core.streaming;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
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
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQueryProgress;

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
 * <p>The inputs are recorded with each query's checkpoint (file {@value SourceCheckpoints#MARKER}
 * in the checkpoint folder, one listed source or spare slot per line) when the checkpoint is new; a
 * checkpoint without it was built with an empty list. A query refuses to start on a checkpoint
 * recorded with another number of inputs; with the same number (spare slots, {@link
 * SourceWatermarks}) it starts and records the new list ({@link SourceCheckpoints#check}).
 */
public final class SourceInputs {
  /** Config key of the sources given their own watermark. */
  public static final String KEY = "lake.sources";

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
    if (sources.contains(SourceDrops.UNLISTED)) {
      throw LakeConfigException.invalid(
          KEY, sources, "'" + SourceDrops.UNLISTED + "' is the name of the other sources' rows");
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
   * itself ({@link SourceDrops#observeBySource} with {@value SourceDrops#SOURCE_IN}, as silver
   * does).
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
}

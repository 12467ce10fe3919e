package io.latelake.profiler;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.least;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.unix_micros;
import static org.apache.spark.sql.functions.when;

import io.latelake.core.streaming.SourceWatermarks;
import io.latelake.core.time.DayRange;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What-if replay of silver's watermark: for a watermark delay, the rows silver's stream drops
 * behind it, by Spark's rule and in silver's own micro-batches. The rows of {@code
 * monitoring.watermark_replay}.
 *
 * <p><b>Spark's rule</b> (Spark 4.1.1, DESIGN.md "How Spark decides what is late"): the watermark
 * moves once per micro-batch, not after every row. Micro-batch N starts with W_N = max(W_{N−1},
 * (largest event time read in micro-batches before N) − delay), and its rows are filtered against
 * W_{N−1}: a row is dropped when its event time ≤ W_{N−1}. With {@code lake.sources} listed, each
 * listed source has its own largest event time and the query's watermark is the smallest (Spark's
 * {@code min} policy); until every listed source has sent a row (or, with an idle timeout, has idle
 * markers: below), it does not move. Rows of other sources move no watermark and are judged against
 * the same one.
 *
 * <p><b>Silver's micro-batches.</b> Bronze stamps every row of one of its micro-batches with the
 * same {@code ingested_at}, and silver records in {@code monitoring.stream_progress} the largest
 * {@code ingested_at} each of its micro-batches read ({@code input_ingested_until}), no-data
 * micro-batches included. From the first recorded micro-batch that read a replayed row on, the
 * replay cuts bronze as silver read it: each recorded micro-batch takes the bronze micro-batches up
 * to its {@code input_ingested_until} (basis {@code recorded}). A micro-batch without the value (a
 * killed one, whose figures were lost) takes none: its rows count in the next recorded one, and a
 * WARN says how many. Rows no record covers (silver has not read them yet, or every record predates
 * the column) are cut one bronze micro-batch per silver micro-batch, each followed by a no-data
 * micro-batch: how silver runs when it keeps up with bronze (basis {@code per-bronze-batch}, or
 * {@code recorded+per-bronze-batch} when both apply). Silver reading several bronze micro-batches
 * at once moves its watermark less often and drops fewer rows than this predicts. A bronze
 * micro-batch is assumed read whole by one silver micro-batch (Delta's {@code maxFilesPerTrigger}
 * can split a large commit). Spark keeps the largest event time and the delay in whole
 * milliseconds; so does the replay.
 *
 * <p><b>What is replayed.</b> Silver's input: bronze rows with {@code error} null and an event time
 * (every received copy: a redelivered copy behind the watermark is dropped too), whose arrival day
 * ({@code to_date(coalesce(enqueued_time, ingested_at))}) is in the profiled range. The replay
 * starts with no watermark at the range's first micro-batch; on a range that starts after the
 * stream did, its first micro-batches drop less than the stream did. A listed source with an idle
 * timeout ({@code lake.sources-idle-after}) gets silver's idle markers: its largest event time in a
 * micro-batch is also at least the largest arrival time (enqueued time, or ingested time when that
 * is earlier) of the other sources' rows in it − the timeout ({@link
 * io.latelake.core.streaming.SourceInputs#watermarked}); so does a spare slot ({@code
 * lake.sources-slots}), with a timeout of 0 and no rows of its own. The replay follows today's list
 * and slots over the whole range, also where the stream ran with another list on the same
 * checkpoint. The markers come from the replayed rows only: a row outside the range's arrival days
 * (an enqueued time set by a clock ahead, on the day after the range) makes a marker in the stream
 * but not in the replay. Restarts of the query are replayed where silver recorded them (a
 * micro-batch whose {@code run_id} differs from the last one recorded before it): Spark keeps the
 * query's watermark across a restart but each input's largest event time starts again, and an input
 * that has not delivered a row since the restart counts as watermark 0, so with sources listed the
 * watermark holds until each has sent (or has idle markers) again. A new checkpoint (another {@code
 * query_id}) starts without a watermark. The micro-batches cut one per bronze micro-batch after the
 * records have no restarts, and the rows of a killed run's last micro-batches (no record) count in
 * the new run's first one (a WARN says how often).
 *
 * <p><b>Cost.</b> Two passes over the range's bronze rows: one aggregation per (bronze micro-batch,
 * source) that the driver turns into the watermark sequence of every delay, then the rows behind
 * the shortest delay's watermark (a broadcast join on {@code ingested_at}), kept while they are
 * counted per delay and per gold metric. The driver holds one entry per bronze micro-batch and
 * silver's progress rows from the first micro-batch that read the range on.
 */
public final class WatermarkReplay {
  /** {@code batch_basis}: every row cut by silver's recorded micro-batches. */
  public static final String RECORDED = "recorded";

  /** {@code batch_basis}: one silver micro-batch per bronze micro-batch (no records). */
  public static final String PER_BRONZE_BATCH = "per-bronze-batch";

  /** {@code batch_basis}: recorded micro-batches, then one per bronze micro-batch after them. */
  public static final String MIXED = RECORDED + "+" + PER_BRONZE_BATCH;

  private static final Logger LOG = LoggerFactory.getLogger(WatermarkReplay.class);

  /** No value yet (no watermark, no event time): below every real one. */
  static final long NONE = Long.MIN_VALUE;

  private WatermarkReplay() {}

  /**
   * Silver's input rows among bronze rows: {@code error} null, an event time and an arrival day
   * ({@code to_date(coalesce(enqueued_time, ingested_at))}) in {@code range}.
   */
  public static Dataset<Row> input(Dataset<Row> bronze, DayRange range) {
    Column arrivalDay =
        org.apache.spark.sql.functions.to_date(coalesce(col("enqueued_time"), col("ingested_at")));
    return bronze.filter(
        col("error")
            .isNull()
            .and(col("event_time").isNotNull())
            .and(col("ingested_at").isNotNull())
            .and(arrivalDay.geq(lit(java.sql.Date.valueOf(range.from()))))
            .and(arrivalDay.leq(lit(java.sql.Date.valueOf(range.to())))));
  }

  /**
   * Replays {@code input} for every delay.
   *
   * @param spark the session
   * @param input output of {@link #input}
   * @param progress {@code monitoring.stream_progress}, null when there is none
   * @param queryName the replayed query ({@code silver_events})
   * @param sources {@code lake.sources} and their idle timeouts (nothing listed: one watermark)
   * @param delays the delays to replay, ascending, without repeats
   * @param windows the gold metrics' windows and group-by columns (for {@link
   *     ReplayOutcome#goldRowsToCorrect})
   * @return per delay, in the order given
   */
  public static List<ReplayOutcome> replay(
      SparkSession spark,
      Dataset<Row> input,
      Dataset<Row> progress,
      String queryName,
      SourceWatermarks sources,
      List<Duration> delays,
      List<Window> windows) {
    Dataset<Row> keyed = keyed(input, sources.inputs(), windows);
    List<Row> buckets = buckets(spark, keyed);
    List<ReplayBatches.Batch> batches =
        progress == null || buckets.isEmpty()
            ? List.of()
            : ReplayBatches.batches(
                progress,
                queryName,
                buckets.stream().mapToLong(b -> b.getLong(0)).min().getAsLong());
    return replay(spark, keyed, buckets, batches, sources, delays, windows);
  }

  /**
   * {@link #replay(SparkSession, Dataset, Dataset, String, List, List, List)} with the batches
   * given.
   */
  static List<ReplayOutcome> replay(
      SparkSession spark,
      Dataset<Row> input,
      List<ReplayBatches.Batch> batches,
      SourceWatermarks sources,
      List<Duration> delays,
      List<Window> windows) {
    Dataset<Row> keyed = keyed(input, sources.inputs(), windows);
    return replay(spark, keyed, buckets(spark, keyed), batches, sources, delays, windows);
  }

  /**
   * (ingested_at µs, watermark group, event time µs, enqueued time µs, arrival time µs) of each
   * row, and the windows' group-by columns
   */
  private static Dataset<Row> keyed(
      Dataset<Row> input, List<String> sources, List<Window> windows) {
    Column group = sources.isEmpty() ? lit(0) : lit(-1);
    for (int i = sources.size() - 1; i >= 0; i--) {
      group = when(col("source").equalTo(lit(sources.get(i))), lit(i)).otherwise(group);
    }
    List<Column> out =
        new ArrayList<>(
            List.of(
                unix_micros(col("ingested_at")).as("_ingested"),
                group.as("_group"),
                unix_micros(col("event_time")).as("_event"),
                unix_micros(col("enqueued_time")).as("_enqueued"),
                unix_micros(least(col("enqueued_time"), col("ingested_at"))).as("_arrival"),
                col("event_id").as("_id")));
    windows.stream().flatMap(w -> w.groupBy().stream()).distinct().forEach(c -> out.add(col(c)));
    return input.select(out.toArray(Column[]::new));
  }

  /**
   * per (bronze micro-batch, group): largest event time, largest enqueued time, rows, largest
   * arrival time
   */
  private static List<Row> buckets(SparkSession spark, Dataset<Row> keyed) {
    spark
        .sparkContext()
        .setJobDescription("profile: watermark replay, event time per bronze micro-batch");
    try {
      return keyed
          .groupBy(col("_ingested"), col("_group"))
          .agg(max(col("_event")), max(col("_enqueued")), count(lit(1)), max(col("_arrival")))
          .collectAsList();
    } finally {
      spark.sparkContext().setJobDescription(null);
    }
  }

  private static List<ReplayOutcome> replay(
      SparkSession spark,
      Dataset<Row> keyed,
      List<Row> buckets,
      List<ReplayBatches.Batch> batches,
      SourceWatermarks sources,
      List<Duration> delays,
      List<Window> windows) {
    // spare slots are inputs without rows, idle after 0
    List<String> listed = sources.inputs();
    ReplaySteps steps = ReplaySteps.of(buckets, batches, Math.max(1, listed.size()));
    long[] idle = new long[Math.max(1, listed.size())];
    java.util.Arrays.fill(idle, NONE);
    for (int g = 0; g < listed.size(); g++) {
      idle[g] = sources.idleAfter(listed.get(g)).map(d -> d.toMillis() * 1000).orElse(NONE);
    }
    if (steps.unrecordedData > 0) {
      LOG.warn(
          "watermark replay: {} of silver's micro-batches in the range recorded no "
              + "input_ingested_until (killed, or run before the column existed): their rows "
              + "count in the next recorded micro-batch ({} of those the first of a new run)",
          steps.unrecordedData,
          steps.restartsAfterUnrecorded);
    }
    List<long[]> late = new ArrayList<>();
    List<long[]> evict = new ArrayList<>();
    List<Double> lags = new ArrayList<>();
    for (Duration d : delays) {
      // Spark keeps the largest event time in whole milliseconds and the delay in milliseconds
      ReplaySteps.Simulation sim = steps.simulate(d.toMillis() * 1000, idle);
      late.add(sim.late());
      evict.add(sim.evict());
      lags.add(sim.medianLagSeconds());
    }
    long[] statePeak = ReplayState.peaks(spark, keyed, steps, delays, late, evict);
    // per bronze micro-batch (ingested_at), the watermark its rows are judged against, per delay
    List<Row> judged = new ArrayList<>();
    for (var e : steps.stepOf.entrySet()) {
      Long[] w = new Long[delays.size()];
      for (int i = 0; i < delays.size(); i++) {
        long v = late.get(i)[e.getValue()];
        w[i] = v == NONE ? null : v;
      }
      judged.add(RowFactory.create(e.getKey(), Arrays.asList(w)));
    }
    long rows = buckets.stream().mapToLong(b -> b.getLong(4)).sum();
    ReplayDrops.Counts counts = ReplayDrops.count(spark, keyed, judged, delays, windows);
    long[] dropped = counts.dropped();
    long[] goldRows = counts.goldRows();
    List<ReplayOutcome> out = new ArrayList<>();
    for (int i = 0; i < delays.size(); i++) {
      out.add(
          new ReplayOutcome(
              delays.get(i),
              rows,
              steps.dataSteps(),
              dropped[i],
              goldRows[i],
              statePeak[i],
              lags.get(i),
              steps.basis()));
    }
    return out;
  }

  /**
   * A gold metric's rows, for counting the ones a delay leaves to the correction path.
   *
   * @param size the tumbling window
   * @param groupBy the group-by columns (bronze columns: configured fields or {@code source})
   */
  public record Window(Duration size, List<String> groupBy) {
    public Window {
      groupBy = List.copyOf(groupBy);
    }
  }
}

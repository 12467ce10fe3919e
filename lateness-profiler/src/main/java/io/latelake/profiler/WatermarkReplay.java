package io.latelake.profiler;

import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.element_at;
import static org.apache.spark.sql.functions.least;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.unix_micros;
import static org.apache.spark.sql.functions.when;

import io.latelake.core.streaming.SourceWatermarks;
import io.latelake.core.time.DayRange;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
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

  /**
   * Schema of {@code monitoring.watermark_replay}, one row per delay: {@code query_name} string,
   * {@code from_day}, {@code to_day} date (arrival days replayed), {@code delay_s} double (the
   * watermark delay, seconds), {@code configured} boolean (silver's configured delay), {@code
   * recommended} boolean (the smallest delay whose dropped share is at most the target), {@code
   * rows} long (silver's input rows replayed), {@code micro_batches} long (micro-batches with
   * rows), {@code dropped_count} long and {@code dropped_share} double (rows behind the watermark,
   * of {@code rows}), {@code gold_rows_to_correct} long (gold rows — window and group-by values,
   * over every configured metric — holding a dropped row: what the correction path restates),
   * {@code state_rows_peak} long (the most event ids the dedup state holds at the end of a
   * micro-batch), {@code watermark_lag_s} double (the lower median over the micro-batches with rows
   * of the latest enqueued time read so far minus the watermark after the micro-batch: how far the
   * watermark trails the newest arrival; null when it never moved), {@code batch_basis} string
   * ({@link #RECORDED}, {@link #MIXED} or {@link #PER_BRONZE_BATCH}), {@code target_drop_share}
   * double, {@code computed_at} timestamp.
   */
  public static final StructType SCHEMA =
      new StructType()
          .add("query_name", DataTypes.StringType)
          .add("from_day", DataTypes.DateType)
          .add("to_day", DataTypes.DateType)
          .add("delay_s", DataTypes.DoubleType)
          .add("configured", DataTypes.BooleanType)
          .add("recommended", DataTypes.BooleanType)
          .add("rows", DataTypes.LongType)
          .add("micro_batches", DataTypes.LongType)
          .add("dropped_count", DataTypes.LongType)
          .add("dropped_share", DataTypes.DoubleType)
          .add("gold_rows_to_correct", DataTypes.LongType)
          .add("state_rows_peak", DataTypes.LongType)
          .add("watermark_lag_s", DataTypes.DoubleType)
          .add("batch_basis", DataTypes.StringType)
          .add("target_drop_share", DataTypes.DoubleType)
          .add("computed_at", DataTypes.TimestampType);

  private static final Logger LOG = LoggerFactory.getLogger(WatermarkReplay.class);

  /** No value yet (no watermark, no event time): below every real one. */
  static final long NONE = Long.MIN_VALUE;

  private WatermarkReplay() {}

  /**
   * One recorded micro-batch of the replayed query, in the order it ran.
   *
   * @param inputRows rows it read (null for a recovered row whose figures were lost)
   * @param ingestedUntil the largest {@code ingested_at} it read, microseconds since the epoch
   *     (null when not recorded)
   * @param restart whether it is the first micro-batch of a new run of the query (its {@code
   *     run_id} differs from the last one recorded before it)
   * @param newCheckpoint whether it is the first micro-batch of a new checkpoint of the query (its
   *     {@code query_id} differs from the last one recorded before it)
   */
  public record Batch(Long inputRows, Long ingestedUntil, boolean restart, boolean newCheckpoint) {
    /** A micro-batch of the same run as the one before it. */
    public Batch(Long inputRows, Long ingestedUntil) {
      this(inputRows, ingestedUntil, false, false);
    }

    /** A micro-batch of the same checkpoint as the one before it. */
    public Batch(Long inputRows, Long ingestedUntil, boolean restart) {
      this(inputRows, ingestedUntil, restart, false);
    }

    boolean hasData() {
      return inputRows == null || inputRows > 0;
    }
  }

  /**
   * The query's micro-batches from {@code monitoring.stream_progress} that can have read the
   * replayed rows, in the order they ran (by {@code batch_timestamp}, then {@code batch_id}): from
   * the first one that recorded an {@code input_ingested_until} at or after {@code fromIngested} on
   * (none when no micro-batch did: the table predates the column, or silver has not read the rows
   * yet). Two small Spark jobs; the driver holds the micro-batches from there on.
   *
   * @param progress {@code monitoring.stream_progress} (a table without {@code
   *     input_ingested_until} gives no batches)
   * @param fromIngested the smallest {@code ingested_at} replayed, microseconds since the epoch
   */
  public static List<Batch> batches(Dataset<Row> progress, String queryName, long fromIngested) {
    if (!Arrays.asList(progress.columns()).contains("input_ingested_until")) {
      return List.of();
    }
    Dataset<Row> mine = progress.filter(col("query_name").equalTo(lit(queryName)));
    Row first =
        mine.filter(unix_micros(col("input_ingested_until")).geq(lit(fromIngested)))
            .agg(org.apache.spark.sql.functions.min(col("batch_timestamp")))
            .first();
    if (first.isNullAt(0)) {
      return List.of();
    }
    List<Batch> out = new ArrayList<>();
    String run = null; // the last run id seen (a recovered row has none: it ran in the run before)
    String checkpoint = null; // the last query id seen
    for (Row r :
        mine.filter(col("batch_timestamp").geq(lit(first.getTimestamp(0))))
            .orderBy(col("batch_timestamp"), col("batch_id"))
            .select(
                col("input_rows"),
                unix_micros(col("input_ingested_until")),
                col("run_id"),
                col("query_id"))
            .collectAsList()) {
      String id = r.isNullAt(2) ? null : r.getString(2);
      String query = r.isNullAt(3) ? null : r.getString(3);
      out.add(
          new Batch(
              r.isNullAt(0) ? null : r.getLong(0),
              r.isNullAt(1) ? null : r.getLong(1),
              id != null && run != null && !id.equals(run),
              query != null && checkpoint != null && !query.equals(checkpoint)));
      run = id == null ? run : id;
      checkpoint = query == null ? checkpoint : query;
    }
    return out;
  }

  /**
   * @return the watermark delay the query's latest micro-batch recorded ({@code
   *     watermark_delay_ms}), empty when none did
   */
  public static java.util.Optional<Duration> lastDelay(Dataset<Row> progress, String queryName) {
    if (!Arrays.asList(progress.columns()).contains("watermark_delay_ms")) {
      return java.util.Optional.empty();
    }
    List<Row> last =
        progress
            .filter(
                col("query_name")
                    .equalTo(lit(queryName))
                    .and(col("watermark_delay_ms").isNotNull()))
            .orderBy(col("batch_timestamp").desc(), col("batch_id").desc())
            .select(col("watermark_delay_ms"))
            .limit(1)
            .collectAsList();
    return last.isEmpty()
        ? java.util.Optional.empty()
        : java.util.Optional.of(Duration.ofMillis(last.get(0).getLong(0)));
  }

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
   *     Outcome#goldRowsToCorrect})
   * @return per delay, in the order given
   */
  public static List<Outcome> replay(
      SparkSession spark,
      Dataset<Row> input,
      Dataset<Row> progress,
      String queryName,
      SourceWatermarks sources,
      List<Duration> delays,
      List<Window> windows) {
    Dataset<Row> keyed = keyed(input, sources.inputs(), windows);
    List<Row> buckets = buckets(spark, keyed);
    List<Batch> batches =
        progress == null || buckets.isEmpty()
            ? List.of()
            : batches(
                progress,
                queryName,
                buckets.stream().mapToLong(b -> b.getLong(0)).min().getAsLong());
    return replay(spark, keyed, buckets, batches, sources, delays, windows);
  }

  /**
   * {@link #replay(SparkSession, Dataset, Dataset, String, List, List, List)} with the batches
   * given.
   */
  static List<Outcome> replay(
      SparkSession spark,
      Dataset<Row> input,
      List<Batch> batches,
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

  private static List<Outcome> replay(
      SparkSession spark,
      Dataset<Row> keyed,
      List<Row> buckets,
      List<Batch> batches,
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
    long[] statePeak = statePeaks(spark, keyed, steps, delays, late, evict);
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
    StructType judgedSchema =
        new StructType()
            .add("_ingested", DataTypes.LongType)
            .add("_late", DataTypes.createArrayType(DataTypes.LongType));
    // The delays are ascending, so each one's watermark is at or behind the shorter ones': a row
    // dropped by a delay is dropped by every shorter one. _drops = how many delays drop the row
    // (the row is dropped by delay i, 0-based, when i < _drops).
    Column drops = lit(0);
    for (int i = 0; i < delays.size(); i++) {
      drops = drops.plus(when(col("_event").leq(element_at(col("_late"), i + 1)), 1).otherwise(0));
    }
    long rows = buckets.stream().mapToLong(b -> b.getLong(4)).sum();
    long[] dropped = new long[delays.size()];
    long[] goldRows = new long[delays.size()];
    spark.sparkContext().setJobDescription("profile: watermark replay, rows behind the watermark");
    Dataset<Row> behind =
        keyed
            .join(broadcast(spark.createDataFrame(judged, judgedSchema)), "_ingested")
            .withColumn("_drops", drops)
            .filter(col("_drops").gt(0))
            .drop("_late")
            .persist(org.apache.spark.storage.StorageLevel.MEMORY_AND_DISK());
    try {
      cumulate(behind.groupBy(col("_drops")).count().collectAsList(), dropped);
      for (Window w : windows) {
        List<Column> key = new ArrayList<>();
        key.add(
            org.apache
                .spark
                .sql
                .functions
                .floor(col("_event").divide(w.size().toNanos() / 1000))
                .as("_window"));
        for (String c : w.groupBy()) {
          key.add(col(c));
        }
        long[] mine = new long[delays.size()];
        cumulate(
            behind
                .groupBy(key.toArray(Column[]::new))
                .agg(max(col("_drops")).as("_drops"))
                .groupBy(col("_drops"))
                .count()
                .collectAsList(),
            mine);
        for (int i = 0; i < mine.length; i++) {
          goldRows[i] += mine[i];
        }
      }
    } finally {
      behind.unpersist();
      spark.sparkContext().setJobDescription(null);
    }
    List<Outcome> out = new ArrayList<>();
    for (int i = 0; i < delays.size(); i++) {
      out.add(
          new Outcome(
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
   * The most event ids silver's {@code dropDuplicatesWithinWatermark} holds in its state at the end
   * of a micro-batch, per delay. An id enters with its first copy's micro-batch unless that copy is
   * behind the watermark, and stays until a micro-batch starts with a watermark past its event time
   * + delay (Spark keeps the id until then, evicting at the end of that micro-batch); state rows
   * are counted after eviction, as Spark reports them.
   */
  private static long[] statePeaks(
      SparkSession spark,
      Dataset<Row> keyed,
      ReplaySteps steps,
      List<Duration> delays,
      List<long[]> late,
      List<long[]> evict) {
    int n = delays.size();
    // per delay and micro-batch: sent to each executor once, not with every task
    org.apache.spark.api.java.JavaSparkContext jsc =
        org.apache.spark.api.java.JavaSparkContext.fromSparkContext(spark.sparkContext());
    org.apache.spark.broadcast.Broadcast<long[][]> lateB =
        jsc.broadcast(late.toArray(long[][]::new));
    org.apache.spark.broadcast.Broadcast<long[][]> evictB =
        jsc.broadcast(evict.toArray(long[][]::new));
    long[] delayMicros = delays.stream().mapToLong(d -> d.toMillis() * 1000).toArray();
    int count = steps.hasRows.length;
    List<Row> stepRows = new ArrayList<>();
    steps.stepOf.forEach((ingested, step) -> stepRows.add(RowFactory.create(ingested, step)));
    StructType stepSchema =
        new StructType().add("_ingested", DataTypes.LongType).add("_step", DataTypes.IntegerType);
    org.apache.spark.sql.api.java.UDF3<Integer, Integer, Long, Integer> exit =
        (i, s0, ev) -> {
          long w = lateB.value()[i][s0];
          if (w != NONE && ev <= w) {
            return -1; // the first copy is behind the watermark: never in state
          }
          // Spark evicts when watermark >= expiry; the watermark never moves back (NONE, the
          // smallest long, before the first), so the first such micro-batch is a binary search
          return firstAtLeast(evictB.value()[i], s0, count, ev + delayMicros[i]);
        };
    Column exitStep =
        org.apache
            .spark
            .sql
            .functions
            .udf(exit, DataTypes.IntegerType)
            .apply(col("_i"), col("_s0"), col("_ev"));
    spark.sparkContext().setJobDescription("profile: watermark replay, dedup state per delay");
    List<Row> changes;
    try {
      Dataset<Row> spans =
          keyed
              .join(broadcast(spark.createDataFrame(stepRows, stepSchema)), "_ingested")
              .groupBy(col("_id"))
              .agg(
                  org.apache.spark.sql.functions.min(col("_step")).as("_s0"),
                  org.apache.spark.sql.functions.min_by(col("_event"), col("_step")).as("_ev"))
              .select(
                  org.apache
                      .spark
                      .sql
                      .functions
                      .explode(org.apache.spark.sql.functions.sequence(lit(0), lit(n - 1)))
                      .as("_i"),
                  col("_s0"),
                  col("_ev"))
              .withColumn("_exit", exitStep)
              .filter(col("_exit").geq(0));
      changes =
          spans
              .select(col("_i"), col("_s0").as("_step"), lit(1L).as("_d"))
              .unionByName(spans.select(col("_i"), col("_exit").as("_step"), lit(-1L).as("_d")))
              .groupBy(col("_i"), col("_step"))
              .agg(org.apache.spark.sql.functions.sum(col("_d")).as("_d"))
              .collectAsList();
    } finally {
      spark.sparkContext().setJobDescription(null);
      lateB.destroy();
      evictB.destroy();
    }
    long[][] delta = new long[n][count + 1];
    for (Row r : changes) {
      delta[r.getInt(0)][r.getInt(1)] += r.getLong(2);
    }
    long[] peak = new long[n];
    for (int i = 0; i < n; i++) {
      long held = 0;
      for (int k = 0; k < count; k++) {
        held += delta[i][k];
        peak[i] = Math.max(peak[i], held);
      }
    }
    return peak;
  }

  /**
   * @param sorted non-decreasing
   * @return the first index in [from, to) whose value is at least {@code value}; {@code to} when
   *     none is
   */
  static int firstAtLeast(long[] sorted, int from, int to, long value) {
    int lo = from;
    int hi = to;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] >= value) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

  /**
   * Adds up counts per {@code _drops} value k into per delay: delay i counts the rows (or windows)
   * with k &gt; i.
   */
  private static void cumulate(List<Row> byDrops, long[] perDelay) {
    for (Row r : byDrops) {
      int k = r.getInt(0);
      for (int i = 0; i < Math.min(k, perDelay.length); i++) {
        perDelay[i] += r.getLong(1);
      }
    }
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

  /**
   * The replay of one delay.
   *
   * @param delay the watermark delay
   * @param rows silver input rows replayed
   * @param microBatches micro-batches with rows
   * @param dropped rows behind the watermark
   * @param goldRowsToCorrect gold rows (window and group-by values, over the metrics given) with a
   *     dropped row: at most what the correction path restates (a dropped copy of an event already
   *     counted changes nothing)
   * @param statePeakRows the most event ids silver's dedup would hold in its state at the end of a
   *     micro-batch
   * @param watermarkLagSeconds median lag of the watermark behind the arrivals (null: never moved)
   * @param basis how the rows were cut into micro-batches
   */
  public record Outcome(
      Duration delay,
      long rows,
      long microBatches,
      long dropped,
      long goldRowsToCorrect,
      long statePeakRows,
      Double watermarkLagSeconds,
      String basis) {
    /**
     * @return dropped / rows (0 when nothing was replayed)
     */
    public double droppedShare() {
      return rows == 0 ? 0 : (double) dropped / rows;
    }
  }

  /**
   * @return the smallest delay whose dropped share is at most {@code target}, or null when none is
   *     or there is no evidence (no row replayed, or a watermark that never moved)
   */
  public static Duration recommend(List<Outcome> outcomes, double target) {
    return outcomes.stream()
        .filter(o -> o.rows() > 0 && o.watermarkLagSeconds() != null)
        .filter(o -> o.droppedShare() <= target)
        .map(Outcome::delay)
        .min(Duration::compareTo)
        .orElse(null);
  }

  /**
   * @return the rows of {@code monitoring.watermark_replay} ({@link #SCHEMA})
   */
  public static List<Row> rows(
      String queryName,
      DayRange range,
      List<Outcome> outcomes,
      Duration configured,
      double target,
      Instant computedAt) {
    Duration recommended = recommend(outcomes, target);
    List<Row> out = new ArrayList<>();
    for (Outcome o : outcomes) {
      out.add(
          RowFactory.create(
              queryName,
              java.sql.Date.valueOf(range.from()),
              java.sql.Date.valueOf(range.to()),
              o.delay().toNanos() / 1e9,
              o.delay().equals(configured),
              o.delay().equals(recommended),
              o.rows(),
              o.microBatches(),
              o.dropped(),
              o.droppedShare(),
              o.goldRowsToCorrect(),
              o.statePeakRows(),
              o.watermarkLagSeconds(),
              o.basis(),
              target,
              Timestamp.from(computedAt)));
    }
    return out;
  }
}

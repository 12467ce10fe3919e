package io.latelake.profiler;

import static io.latelake.profiler.WatermarkReplay.MIXED;
import static io.latelake.profiler.WatermarkReplay.NONE;
import static io.latelake.profiler.WatermarkReplay.PER_BRONZE_BATCH;
import static io.latelake.profiler.WatermarkReplay.RECORDED;

import io.latelake.profiler.ReplayBatches.Batch;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import org.apache.spark.sql.Row;

/**
 * The micro-batches {@link WatermarkReplay} replays: which step each bronze micro-batch falls in
 * (silver's recorded micro-batches, else one per bronze micro-batch followed by a no-data one), the
 * figures of each step, and Spark's watermark sequence over them for one delay ({@link #simulate}).
 * Times are microseconds since the epoch (UTC); {@link WatermarkReplay#NONE} stands for none.
 */
final class ReplaySteps {
  /** bronze ingested_at (µs) → step index */
  final TreeMap<Long, Integer> stepOf = new TreeMap<>();

  /** per step and watermark group: largest event time (µs), NONE without rows */
  final long[][] maxEvent;

  /**
   * per step and watermark group, the last slot for the rows of unlisted sources: largest arrival
   * time (least of enqueued and ingested time, µs, whole milliseconds), NONE without rows; what the
   * idle markers of the other sources are made from
   */
  final long[][] maxArrival;

  /** per step: largest enqueued time (µs), NONE without one; and whether it has rows */
  final long[] maxEnqueued;

  final boolean[] hasRows;

  /** per step: the first micro-batch of a new run of the query (recorded steps only) */
  final boolean[] restart;

  /** per step: the first micro-batch of a new checkpoint of the query (recorded steps only) */
  final boolean[] newCheckpoint;

  /**
   * restarts whose first micro-batch also takes the rows of micro-batches without records (a killed
   * run's): the replay counts those rows in the new run
   */
  int restartsAfterUnrecorded;

  final String basis;

  /** recorded data micro-batches without input_ingested_until */
  int unrecordedData;

  private ReplaySteps(int count, int groups, String basis) {
    maxEvent = new long[count][groups];
    for (long[] g : maxEvent) {
      Arrays.fill(g, NONE);
    }
    maxArrival = new long[count][groups + 1];
    for (long[] g : maxArrival) {
      Arrays.fill(g, NONE);
    }
    maxEnqueued = new long[count];
    Arrays.fill(maxEnqueued, NONE);
    hasRows = new boolean[count];
    restart = new boolean[count];
    newCheckpoint = new boolean[count];
    this.basis = basis;
  }

  /**
   * @param buckets rows (ingested_at µs, group, max event µs, max enqueued µs, count, max arrival
   *     µs)
   * @param batches recorded micro-batches
   * @param groups watermark groups (listed sources, or 1)
   */
  static ReplaySteps of(List<Row> buckets, List<Batch> batches, int groups) {
    TreeMap<Long, List<Row>> byIngested = new TreeMap<>();
    for (Row b : buckets) {
      byIngested.computeIfAbsent(b.getLong(0), k -> new ArrayList<>()).add(b);
    }
    // each recorded micro-batch takes the bronze micro-batches up to its input_ingested_until;
    // one without it (killed, or older than the column) takes none: they go to the next
    TreeMap<Long, Integer> stepOf = new TreeMap<>();
    int unrecorded = 0;
    var it = byIngested.keySet().iterator();
    Long pending = it.hasNext() ? it.next() : null;
    for (int i = 0; i < batches.size(); i++) {
      Long until = batches.get(i).ingestedUntil();
      if (until == null && batches.get(i).hasData()) {
        unrecorded++;
      }
      while (until != null && pending != null && pending <= until) {
        stepOf.put(pending, i);
        pending = it.hasNext() ? it.next() : null;
      }
    }
    boolean recorded = !stepOf.isEmpty();
    int next = batches.size();
    boolean after = false;
    for (Long ingested : byIngested.keySet()) {
      if (!stepOf.containsKey(ingested)) {
        stepOf.put(ingested, next);
        next += 2; // each followed by the no-data micro-batch that moves the watermark
        after = true;
      }
    }
    String basis = !recorded ? PER_BRONZE_BATCH : after ? MIXED : RECORDED;
    ReplaySteps s = new ReplaySteps(next, groups, basis);
    s.unrecordedData = recorded ? unrecorded : 0;
    s.stepOf.putAll(stepOf);
    boolean unrecordedBefore = false;
    for (int i = 0; i < batches.size(); i++) {
      Batch b = batches.get(i);
      s.restart[i] = b.restart() || b.newCheckpoint();
      s.newCheckpoint[i] = b.newCheckpoint();
      if (b.ingestedUntil() == null) {
        unrecordedBefore |= b.hasData();
      } else {
        s.restartsAfterUnrecorded += s.restart[i] && unrecordedBefore ? 1 : 0;
        unrecordedBefore = false;
      }
    }
    for (var e : byIngested.entrySet()) {
      int step = stepOf.get(e.getKey());
      s.hasRows[step] = true;
      for (Row b : e.getValue()) {
        int g = b.getInt(1);
        int slot = g >= 0 ? g : groups;
        s.maxArrival[step][slot] =
            Math.max(s.maxArrival[step][slot], Math.floorDiv(b.getLong(5), 1000) * 1000);
        if (g >= 0) {
          // Spark keeps the largest event time in whole milliseconds
          s.maxEvent[step][g] =
              Math.max(s.maxEvent[step][g], Math.floorDiv(b.getLong(2), 1000) * 1000);
        }
        if (!b.isNullAt(3)) {
          s.maxEnqueued[step] = Math.max(s.maxEnqueued[step], b.getLong(3));
        }
      }
    }
    return s;
  }

  long dataSteps() {
    long n = 0;
    for (boolean b : hasRows) {
      n += b ? 1 : 0;
    }
    return n;
  }

  String basis() {
    return basis;
  }

  /**
   * Spark's watermark sequence for one delay ({@link WatermarkReplay}'s class comment).
   *
   * @param delayMicros the watermark delay (µs, whole milliseconds)
   * @param idleMicros per watermark group, its idle timeout (µs, whole milliseconds), or NONE for
   *     none: the group's largest event time then also takes the idle markers made from every other
   *     group's rows, each row's arrival time − the timeout ({@link
   *     io.latelake.core.streaming.SourceInputs#watermarked})
   */
  Simulation simulate(long delayMicros, long[] idleMicros) {
    int groups = maxEvent.length == 0 ? 1 : maxEvent[0].length;
    long[] seen = new long[groups];
    Arrays.fill(seen, NONE);
    long[] late = new long[maxEvent.length];
    long[] evict = new long[maxEvent.length];
    long previousStart = NONE; // W_{N-1}
    long start = NONE; // W_N
    long arrivals = NONE;
    List<Double> lags = new ArrayList<>();
    for (int n = 0; n < maxEvent.length; n++) {
      if (newCheckpoint[n]) {
        // a new checkpoint starts without a watermark
        previousStart = NONE;
        start = NONE;
      }
      late[n] = previousStart;
      evict[n] = start;
      if (restart[n]) {
        // a new run: each input's largest event time starts again (the watermark is kept)
        Arrays.fill(seen, NONE);
      }
      long lowest = Long.MAX_VALUE;
      for (int g = 0; g < groups; g++) {
        seen[g] = Math.max(seen[g], maxEvent[n][g]);
        if (idleMicros[g] != NONE) {
          long marker = NONE;
          for (int h = 0; h <= groups; h++) {
            marker = h == g ? marker : Math.max(marker, maxArrival[n][h]);
          }
          if (marker != NONE) {
            seen[g] = Math.max(seen[g], marker - idleMicros[g]);
          }
        }
        lowest = Math.min(lowest, seen[g]);
      }
      long next = lowest == NONE ? start : Math.max(start, lowest - delayMicros);
      previousStart = start;
      start = next;
      arrivals = Math.max(arrivals, maxEnqueued[n]);
      if (hasRows[n] && start != NONE && arrivals != NONE) {
        lags.add((arrivals - start) / 1e6);
      }
    }
    return new Simulation(late, evict, median(lags));
  }

  private static Double median(List<Double> values) {
    if (values.isEmpty()) {
      return null;
    }
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    return sorted.get((sorted.size() - 1) / 2);
  }

  /**
   * @param late per step, the watermark its rows are judged against (NONE: none yet)
   * @param evict per step, the watermark it starts with, which evicts state (NONE: none yet)
   * @param medianLagSeconds median lag of the watermark behind the arrivals
   */
  record Simulation(long[] late, long[] evict, Double medianLagSeconds) {}
}

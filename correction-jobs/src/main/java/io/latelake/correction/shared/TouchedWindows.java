package io.latelake.correction.shared;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The windows a set of corrections touches, as runs of adjacent windows: what a correction's writes
 * into {@code gold.<metric>} and {@code monitoring.corrections_log} name in their MERGE condition,
 * so that Delta's data skipping leaves out the files of every other window, including the windows
 * between two touched ones. A single {@code [first, last]} range would open every file between the
 * first and the last touched window: a late batch spread over days of event time would MERGE over
 * all of them.
 *
 * @param rows the corrections' row count
 * @param runs runs of adjacent windows, ascending and disjoint, at most {@value #MAX_RUNS}; empty
 *     when no row has a window start (no rows, or only rows whose {@code window_start} is null)
 */
public record TouchedWindows(long rows, List<Run> runs) {
  /** The most runs a condition names; beyond it the runs across the smallest gaps are joined. */
  public static final int MAX_RUNS = CappedRanges.MAX_IN_FILTER;

  /**
   * Window starts {@code first} to {@code last}, both included (UTC).
   *
   * @param first the first window's start
   * @param last the last window's start
   */
  public record Run(Timestamp first, Timestamp last) {}

  public TouchedWindows {
    runs = List.copyOf(runs);
  }

  /**
   * One Spark job over {@code corrections}: their distinct {@code window_start} values, brought to
   * the driver (one value per touched window) and grouped into runs.
   *
   * @param corrections rows with a {@code window_start} column (timestamp)
   * @param window the metric's window length: windows that far apart are adjacent
   */
  public static TouchedWindows of(Dataset<Row> corrections, Duration window) {
    List<Row> counts = corrections.groupBy(col("window_start")).count().collectAsList();
    long rows = 0;
    List<Timestamp> starts = new ArrayList<>();
    for (Row r : counts) {
      rows += r.getLong(1);
      if (!r.isNullAt(0)) {
        starts.add(r.getTimestamp(0));
      }
    }
    return new TouchedWindows(rows, runs(starts, window, MAX_RUNS));
  }

  /**
   * The runs of windows known on the driver, without a Spark job: e.g. the closed windows a
   * correction plans to recompute, so that its read of gold names them as its writes do.
   *
   * @param starts window starts (UTC), any order, duplicates allowed
   * @param window the metric's window length: windows that far apart are adjacent
   * @return {@code rows} = the number of distinct starts; runs as {@link #of}
   */
  public static TouchedWindows ofStarts(Collection<Instant> starts, Duration window) {
    List<Timestamp> ts = starts.stream().distinct().map(Timestamp::from).toList();
    return new TouchedWindows(ts.size(), runs(ts, window, MAX_RUNS));
  }

  /**
   * Groups window starts into runs: a start at most {@code window} after the previous one extends
   * its run. Beyond {@code maxRuns} runs, the runs across the smallest gaps are joined (ties: the
   * later gap), so the condition stays small and covers every start; it may then name windows in
   * between that no correction touches, which a MERGE leaves unchanged.
   *
   * @param starts window starts, any order, duplicates allowed
   * @param window the metric's window length
   * @param maxRuns the most runs returned, at least 1
   * @throws IllegalArgumentException when {@code maxRuns} is below 1
   */
  static List<Run> runs(List<Timestamp> starts, Duration window, int maxRuns) {
    List<Run> runs = new ArrayList<>();
    for (Timestamp s : new TreeSet<>(starts)) {
      Run last = runs.isEmpty() ? null : runs.get(runs.size() - 1);
      if (last != null && s.getTime() - last.last().getTime() <= window.toMillis()) {
        runs.set(runs.size() - 1, new Run(last.first(), s));
      } else {
        runs.add(new Run(s, s));
      }
    }
    return CappedRanges.capped(
        runs,
        maxRuns,
        (a, b) -> Duration.ofMillis(b.first().getTime() - a.last().getTime()),
        (a, b) -> new Run(a.first(), b.last()));
  }

  /**
   * @param column the window column to bound, e.g. {@code t.window_start}
   * @return {@code (column >= first AND column <= last) OR ...}, one range per run; {@code false}
   *     when there are no runs: a row whose window start is null matches no row on the key's {@code
   *     =} either, and every file is skipped
   */
  public Column bound(String column) {
    return runs.stream()
        .map(r -> col(column).geq(lit(r.first())).and(col(column).leq(lit(r.last()))))
        .reduce(Column::or)
        .orElse(lit(false));
  }
}

package io.latelake.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The bench's rows, in print order: each figure's name, group, unit, direction, target and note,
 * for the pairs a run recorded (a figure without a recorded pair is left out). The correction
 * group's rows, whose targets and notes depend on the run, are in {@link CorrectionFigures}.
 */
final class BenchFigures {
  private final Map<String, List<Double>> ours;
  private final Map<String, List<Double>> refs;
  private final List<String> failedChecks;
  private final double correctionTarget;
  private final int historyDays;
  private final List<Double> recomputeGrowth;
  private final List<Double> bronzeScanGrowth;

  /**
   * @param ours per figure, our time (or rows) of each repeat
   * @param refs per figure, the reference's, paired with {@code ours}
   * @param failedChecks the output checks that failed ({@link #checkOf})
   * @param correctionTarget the correction row's target, max(0.15, 2 f_w)
   * @param historyDays the history rows' D (0: not run)
   * @param recomputeGrowth per repeat, the full recompute's time over 4D vs D days
   * @param bronzeScanGrowth per repeat, a plain scan of all of bronze over 4D vs D days
   */
  BenchFigures(
      Map<String, List<Double>> ours,
      Map<String, List<Double>> refs,
      List<String> failedChecks,
      double correctionTarget,
      int historyDays,
      List<Double> recomputeGrowth,
      List<Double> bronzeScanGrowth) {
    this.ours = ours;
    this.refs = refs;
    this.failedChecks = failedChecks;
    this.correctionTarget = correctionTarget;
    this.historyDays = historyDays;
    this.recomputeGrowth = recomputeGrowth;
    this.bronzeScanGrowth = bronzeScanGrowth;
  }

  List<Figure> all() {
    List<Figure> out = new ArrayList<>();
    add(
        out,
        "ingest-vs-from-json",
        "ingest",
        "s",
        true,
        0.7,
        "bronze from files vs from_json + Delta append (throughput)",
        false);
    add(
        out,
        "ingest-vs-bare-copy",
        "ingest",
        "s",
        true,
        0.4,
        "bronze from files vs bare copy of value (throughput)",
        false);
    add(
        out,
        "dedup",
        "dedup",
        "s",
        true,
        0.6,
        "silver (session's state store, default HDFSBackedStateStoreProvider) vs the same "
            + "stream with withWatermark only (throughput)",
        false);
    bound(
        out,
        "dedup-bound",
        "dedup",
        true,
        0.6,
        "the withWatermark-only stream plus dropDuplicatesWithinWatermark alone, hand-written, "
            + "vs the withWatermark-only stream: the best a dedup on Spark reaches here"
            + (failedChecks.contains("dedup")
                ? "; OUTPUT DIFFERS"
                : "; its rows identical to silver's"));
    add(
        out,
        "dedup-state-rows",
        "dedup",
        "rows",
        false,
        1.0,
        "silver state rows at the end vs 1.3 x rate x (2 delay + trigger)",
        false);
    add(
        out,
        "dedup-rocksdb",
        "dedup",
        "s",
        true,
        0.6,
        "silver on RocksDBStateStoreProvider vs the same withWatermark-only stream (throughput)"
            + (failedChecks.contains("dedup")
                ? "; OUTPUT DIFFERS"
                : "; its rows identical to silver's"),
        false);
    add(
        out,
        "dedup-rocksdb-state-rows",
        "dedup",
        "rows",
        false,
        1.0,
        "silver on RocksDB: state rows at the end vs 1.3 x rate x (2 delay + trigger)",
        false);
    add(
        out,
        "publish",
        "publish",
        "s",
        false,
        3.0,
        "gold MERGE vs plain append of the same micro-batches (time)",
        false);
    bound(
        out,
        "publish-bound",
        "publish",
        false,
        3.0,
        "the least MERGE, hand-written (matched rows updated, the others inserted; no marker,"
            + " window range, changed-only update, timestamps or change data feed) vs the plain"
            + " append: the best a MERGE on Delta reaches here"
            + (failedChecks.contains("publish-bound")
                ? "; OUTPUT DIFFERS"
                : "; its rows identical to gold's"));
    add(
        out,
        "publish-4x-table",
        "publish",
        "s",
        false,
        1.5,
        "gold MERGE into a 4x larger gold table vs the same MERGE into the 1x table (time)",
        false);
    add(
        out,
        "publish-4x-in-range",
        "publish",
        "s",
        false,
        1.5,
        "gold MERGE into a gold table holding 3x more rows in the same windows (other devices)"
            + " vs the same MERGE into the 1x table (time)"
            + (failedChecks.contains("publish")
                ? "; OUTPUT DIFFERS"
                : "; the 1x lake's rows identical"),
        false);
    add(
        out,
        "fast-path",
        "fast-path",
        "s",
        true,
        0.8,
        "bronze -> silver -> gold vs one hand-written query (throughput)",
        false);
    bound(
        out,
        "fast-path-bound",
        "fast-path",
        true,
        0.8,
        "three minimal hand-written stages through two Delta tables (from_json append, "
            + "dedup-bound's stream, the aggregate appended, not MERGEd) vs one query");
    bound(
        out,
        "fast-path-merge-bound",
        "fast-path",
        true,
        0.8,
        "fast-path-bound with publish-bound's MERGE in place of the append, as the design"
            + " publishes (and the one query does) vs one query");
    new CorrectionFigures(this, failedChecks, correctionTarget, historyDays, recomputeGrowth)
        .addTo(out);
    add(
        out,
        "profile",
        "profile",
        "s",
        false,
        2.0,
        "profile of the bench's arrival days vs one plain scan of those days' rows for "
            + "count/min/max of lateness (time)",
        false);
    bound(
        out,
        "profile-bound",
        "profile",
        false,
        2.0,
        "the least profile, hand-written: first arrivals (min_by per event_id), count and one "
            + "percentile_approx per source and day, nothing written vs the plain scan"
            + (failedChecks.contains("profile")
                ? "; OUTPUT DIFFERS"
                : "; counts identical to the profile's, percentiles of both within "
                    + "percentile_approx's rank error"));
    add(
        out,
        "profile-history",
        "profile",
        "s",
        false,
        2.0,
        "profile of the bench's arrival days over "
            + historyDays
            + " days of bronze history vs one plain scan of those days' rows (time)",
        false);
    add(
        out,
        "profile-growth",
        "profile",
        "s",
        false,
        1.3,
        "profile of the same days over "
            + 4 * historyDays
            + " vs "
            + historyDays
            + " days of history (time); a plain scan of all of bronze grew "
            + (bronzeScanGrowth.isEmpty()
                ? "-"
                : String.format(java.util.Locale.ROOT, "%.2f×", Figure.median(bronzeScanGrowth))),
        false);
    add(
        out,
        "scale-out",
        "scale-out",
        "s",
        true,
        1.7,
        "lock-step fast path on local[2] vs local[1] in child JVMs (throughput)",
        false);
    bound(
        out,
        "scale-out-bound",
        "scale-out",
        true,
        1.7,
        "Amdahl: local[1]'s driver-side time plus half its task time (the best two cores can "
            + "do) vs local[1]'s time");
    return out;
  }

  /** A bound row (seconds) for the figure with {@code target}, see {@link Figure#bound()}. */
  void bound(
      List<Figure> out, String name, String group, boolean atLeast, double target, String note) {
    add(out, name, group, "s", atLeast, target, note, true);
  }

  /** Adds the row of figure {@code name} to {@code out} if the run recorded its pairs. */
  void add(
      List<Figure> out,
      String name,
      String group,
      String unit,
      boolean atLeast,
      double target,
      String note,
      boolean bound) {
    if (ours.containsKey(name)) {
      out.add(
          Figure.of(
              name,
              group,
              unit,
              ours.get(name),
              refs.get(name),
              atLeast,
              target,
              note,
              !failedChecks.contains(checkOf(name, group)),
              bound));
    }
  }

  /**
   * @return the key in {@code failedChecks} of a figure's output check: {@link HistoryBench}'s rows
   *     have their own (its comparison covers the history), the profile's history rows none (the
   *     least profile's check is the profile group's), the others their group's
   */
  private static String checkOf(String figure, String group) {
    if (figure.startsWith("correction-history") || figure.equals("correction-growth")) {
      return "correction-history";
    }
    return figure.equals("profile-history") || figure.equals("profile-growth")
        ? "profile-history"
        : group;
  }
}

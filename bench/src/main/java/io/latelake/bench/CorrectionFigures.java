package io.latelake.bench;

import java.util.List;
import java.util.Locale;

/**
 * The correction group's rows of {@link BenchFigures}, in print order. Their targets and notes
 * depend on the run: the correction row's target, the history days D, the full recompute's growth
 * over 4D vs D days, and whether the output checks failed.
 */
final class CorrectionFigures {
  private final BenchFigures rows;
  private final List<String> failedChecks;
  private final double correctionTarget;
  private final int historyDays;
  private final List<Double> recomputeGrowth;

  /**
   * @param rows the table whose {@code add} and {@code bound} make the rows
   * @param failedChecks the output checks that failed
   * @param correctionTarget the correction row's target, max(0.15, 2 f_w)
   * @param historyDays the history rows' D (0: not run)
   * @param recomputeGrowth per repeat, the full recompute's time over 4D vs D days
   */
  CorrectionFigures(
      BenchFigures rows,
      List<String> failedChecks,
      double correctionTarget,
      int historyDays,
      List<Double> recomputeGrowth) {
    this.rows = rows;
    this.failedChecks = failedChecks;
    this.correctionTarget = correctionTarget;
    this.historyDays = historyDays;
    this.recomputeGrowth = recomputeGrowth;
  }

  /** Adds the rows the run recorded pairs for to {@code out}. */
  void addTo(List<Figure> out) {
    rows.add(
        out,
        "correction",
        "correction",
        "s",
        false,
        correctionTarget,
        "correct after a 1% late batch vs full recompute from bronze (time; target "
            + "max(0.15, 2 f_w))"
            + (failedChecks.contains("correction") ? "; OUTPUT DIFFERS" : "; output identical"),
        false);
    rows.bound(
        out,
        "correction-bound",
        "correction",
        false,
        correctionTarget,
        "the least incremental correction, hand-written: windows of the rows ingested since, "
            + "their recompute, one MERGE (no state, no log) vs full recompute");
    rows.add(
        out,
        "correction-history",
        "correction",
        "s",
        false,
        0.15,
        "correct after a contiguous late batch (one device offline, 1% of the events) over "
            + historyDays
            + " days of bronze history vs full recompute from bronze (time)"
            + (failedChecks.contains("correction-history")
                ? "; OUTPUT DIFFERS"
                : "; output identical"),
        false);
    rows.add(
        out,
        "correction-history-spread",
        "correction",
        "s",
        false,
        0.15,
        "correct after a late batch of the same size spread over 2% of the windows of the newest"
            + " day (all devices) over the same "
            + historyDays
            + " days of history vs full recompute from bronze (time)"
            + (failedChecks.contains("correction-history")
                ? "; OUTPUT DIFFERS"
                : "; output identical"),
        false);
    rows.bound(
        out,
        "correction-history-bound",
        "correction",
        false,
        0.15,
        "correction-bound's least incremental correction over the same history and late batch "
            + "(its MERGE into the recomputed table checked to leave it equal to gold) vs full "
            + "recompute");
    rows.add(
        out,
        "correction-growth",
        "correction",
        "s",
        false,
        1.3,
        "correct after the same late batch over "
            + 4 * historyDays
            + " vs "
            + historyDays
            + " days of history (time); the full recompute grew "
            + (recomputeGrowth.isEmpty()
                ? "-"
                : String.format(Locale.ROOT, "%.2f×", Figure.median(recomputeGrowth))),
        false);
  }
}

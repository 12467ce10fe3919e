package io.latelake.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a bench run measured: the pairs per figure, the output checks that failed, and the figures'
 * run-dependent targets.
 */
final class Recorded {
  private final Map<String, List<Double>> ours = new HashMap<>();
  private final Map<String, List<Double>> refs = new HashMap<>();
  private final List<String> failedChecks = new ArrayList<>();
  private final List<Double> recomputeGrowth = new ArrayList<>();
  private final List<Double> bronzeScanGrowth = new ArrayList<>();
  private double correctionTarget = 0.15;

  /** Adds one repeat's pair of {@code figure}: ours {@code o}, the reference's {@code r}. */
  void record(String figure, double o, double r) {
    ours.computeIfAbsent(figure, k -> new ArrayList<>()).add(o);
    refs.computeIfAbsent(figure, k -> new ArrayList<>()).add(r);
  }

  /** Marks an output check failed: a group's, or {@code correction-history}. */
  void fail(String check) {
    failedChecks.add(check);
  }

  /** The correction row's target, max(0.15, 2 f_w) with f_w the share of windows touched. */
  void correctionTarget(double target) {
    correctionTarget = target;
  }

  /** One repeat's growth of the full recompute over 4D vs D days of history. */
  void recomputeGrowth(double growth) {
    recomputeGrowth.add(growth);
  }

  /** One repeat's growth of a plain scan of all of bronze over 4D vs D days of history. */
  void bronzeScanGrowth(double growth) {
    bronzeScanGrowth.add(growth);
  }

  /**
   * @param historyDays the history rows' D
   * @return the rows of the recorded figures, in print order
   */
  List<Figure> figures(int historyDays) {
    return new BenchFigures(
            ours,
            refs,
            failedChecks,
            correctionTarget,
            historyDays,
            recomputeGrowth,
            bronzeScanGrowth)
        .all();
  }
}

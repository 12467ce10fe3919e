package io.latelake.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One row of the bench table: the median of {@code ours} and {@code reference} over the repeats and
 * the median of the per-repeat ratios, against the target.
 *
 * @param name figure name, e.g. {@code ingest-vs-from-json}
 * @param group what {@code --only} selects it by: ingest, dedup, publish, fast-path, correction,
 *     profile, scale-out
 * @param unit {@code s} (wall-clock seconds) or {@code rows}
 * @param ours latelake's median
 * @param reference the reference's median
 * @param ratio median ratio: throughput (reference time / our time) when {@code atLeast}, else ours
 *     / reference
 * @param atLeast true when the ratio must be at least the target, false when at most
 * @param target the target ratio
 * @param note what was compared, and any check (e.g. audit differences)
 * @param checkPassed false when a correctness check of the pair failed
 * @param bound true for a bound row: not latelake against a target, but the best ratio that the
 *     work the figure requires reaches in Spark and Delta (a minimal hand-written job, or the
 *     measured serial share), against the same reference; {@code target} is then the target of the
 *     figure it bounds, and the row says whether that target is within reach at all
 */
public record Figure(
    String name,
    String group,
    String unit,
    double ours,
    double reference,
    double ratio,
    boolean atLeast,
    double target,
    String note,
    boolean checkPassed,
    boolean bound) {

  /**
   * @return whether the ratio meets its target and the pair's check passed (a bound row: whether
   *     its check passed)
   */
  public boolean pass() {
    return checkPassed && (bound || (atLeast ? ratio >= target : ratio <= target));
  }

  /** Builds a figure from per-repeat measurements. */
  static Figure of(
      String name,
      String group,
      String unit,
      List<Double> ours,
      List<Double> reference,
      boolean atLeast,
      double target,
      String note,
      boolean check,
      boolean bound) {
    List<Double> ratios = new ArrayList<>();
    for (int i = 0; i < ours.size(); i++) {
      double o = ours.get(i);
      double r = reference.get(i);
      ratios.add(atLeast ? r / o : o / r);
    }
    return new Figure(
        name,
        group,
        unit,
        median(ours),
        median(reference),
        median(ratios),
        atLeast,
        target,
        note,
        check,
        bound);
  }

  static double median(List<Double> values) {
    List<Double> s = new ArrayList<>(values);
    s.sort(Double::compare);
    int n = s.size();
    return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }

  String targetText() {
    return (atLeast ? "≥ " : "≤ ") + String.format(Locale.ROOT, "%.2f×", target);
  }

  /**
   * @return the table's result column: pass, FAIL, or for a bound row whether the target of the
   *     figure it bounds is within reach ({@code reachable}) or not ({@code out of reach})
   */
  String resultText() {
    if (!bound) {
      return pass() ? "pass" : "FAIL";
    }
    return (atLeast ? ratio >= target : ratio <= target) ? "reachable" : "out of reach";
  }

  String json() {
    return String.format(
        Locale.ROOT,
        "{\"figure\":\"%s\",\"group\":\"%s\",\"unit\":\"%s\","
            + "\"ours\":%.4f,\"reference\":%.4f,\"ratio\":%.4f,\"target\":\"%s\","
            + "\"pass\":%s,\"kind\":\"%s\",\"note\":\"%s\"}",
        name,
        group,
        unit,
        ours,
        reference,
        ratio,
        targetText(),
        pass(),
        bound ? "bound" : "target",
        note.replace("\\", "\\\\").replace("\"", "\\\""));
  }
}

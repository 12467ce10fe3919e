package io.latelake.profiler;

import java.io.Serializable;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Row;

/**
 * The lateness distribution of one source as stored in {@code monitoring.lateness_cdf}, and the
 * expected completeness of a window derived from it.
 *
 * <p><b>Formula.</b> With stored quantiles (q_i, v_i), q_i = i / steps and v_i the lateness at
 * level q_i (non-decreasing), the expected share of events with lateness ≤ a is the empirical CDF
 * read back from the quantiles and linearly interpolated:
 *
 * <pre>
 *   F(a) = 0                                             if a &lt; v_0
 *        = 1                                             if a ≥ v_last
 *        = q_j + (q_{j+1} − q_j) · (a − v_j) / (v_{j+1} − v_j)
 *                                    with j the largest index such that v_j ≤ a
 * </pre>
 *
 * When every lateness value occurs among the v_i (as with fewer distinct values than steps and an
 * exact {@code percentile_approx}), F(a) at a = any lateness value equals the share of values ≤ a
 * exactly. Between stored values it interpolates linearly (a continuous-distribution estimate).
 *
 * <p>A window [start, end) observed at time now, with events spread evenly over it, has expected
 * completeness C = (1/W) ∫_0^W F(now − end + s) ds, W = end − start: an event at time end − s has
 * arrived iff its lateness ≤ now − end + s. {@link #windowCompleteness} evaluates this with the
 * midpoint rule on 32 points; {@link #share}(now − end) is its conservative lower bound.
 */
public final class LatenessCdf implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final int MIDPOINTS = 32;
  private final double[] levels;
  private final double[] values;

  /**
   * @param levels quantile levels in [0, 1], increasing
   * @param values lateness in seconds at each level, non-decreasing
   * @throws IllegalArgumentException when the arrays are empty, of different length or unordered
   */
  public LatenessCdf(double[] levels, double[] values) {
    if (levels.length == 0 || levels.length != values.length) {
      throw new IllegalArgumentException(
          "Cannot build a lateness CDF from "
              + levels.length
              + " levels and "
              + values.length
              + " values");
    }
    for (int i = 1; i < levels.length; i++) {
      if (levels[i] <= levels[i - 1] || values[i] < values[i - 1]) {
        throw new IllegalArgumentException(
            "Cannot build a lateness CDF: levels must increase "
                + "and values must not decrease (at index "
                + i
                + ")");
      }
    }
    this.levels = levels.clone();
    this.values = values.clone();
  }

  /**
   * @param rows rows of {@code monitoring.lateness_cdf} of one source ({@code level}, {@code
   *     lateness_s}), any order
   * @return the CDF
   */
  public static LatenessCdf fromRows(List<Row> rows) {
    List<Row> sorted =
        rows.stream()
            .sorted((a, b) -> Double.compare(a.<Double>getAs("level"), b.<Double>getAs("level")))
            .toList();
    double[] l = new double[sorted.size()];
    double[] v = new double[sorted.size()];
    for (int i = 0; i < l.length; i++) {
      l[i] = sorted.get(i).<Double>getAs("level");
      v[i] = sorted.get(i).<Double>getAs("lateness_s");
    }
    return new LatenessCdf(l, v);
  }

  /**
   * @param ageSeconds a lateness, in seconds
   * @return F(age): expected share of events with lateness ≤ age, in [0, 1]
   */
  public double share(double ageSeconds) {
    if (ageSeconds < values[0]) {
      return 0.0;
    }
    if (ageSeconds >= values[values.length - 1]) {
      return 1.0;
    }
    int j = upperIndex(ageSeconds);
    double span = values[j + 1] - values[j];
    double frac = span == 0 ? 0 : (ageSeconds - values[j]) / span;
    return levels[j] + (levels[j + 1] - levels[j]) * frac;
  }

  /**
   * @return the largest j with values[j] ≤ a (a within [v_0, v_last))
   */
  private int upperIndex(double a) {
    int pos = Arrays.binarySearch(values, a);
    if (pos < 0) {
      return -pos - 2;
    }
    while (pos + 1 < values.length && values[pos + 1] <= a) {
      pos++;
    }
    return pos;
  }

  /**
   * @param ageSeconds now − window end, in seconds (negative while the window is open)
   * @param windowSeconds window length, in seconds (0: the conservative {@link #share})
   * @return expected completeness of the window, in [0, 1]
   */
  public double windowCompleteness(double ageSeconds, double windowSeconds) {
    if (windowSeconds <= 0) {
      return share(ageSeconds);
    }
    double sum = 0;
    for (int k = 0; k < MIDPOINTS; k++) {
      sum += share(ageSeconds + (k + 0.5) / MIDPOINTS * windowSeconds);
    }
    return sum / MIDPOINTS;
  }

  /**
   * @param coverage a share in (0, 1]
   * @return the smallest stored lateness whose level reaches {@code coverage}, in seconds
   */
  public double delayFor(double coverage) {
    for (int i = 0; i < levels.length; i++) {
      if (levels[i] >= coverage - 1e-12) {
        return values[i];
      }
    }
    return values[values.length - 1];
  }

  /**
   * @return the stored quantile levels
   */
  public double[] levels() {
    return levels.clone();
  }

  /**
   * @return the stored lateness values, seconds
   */
  public double[] values() {
    return values.clone();
  }
}

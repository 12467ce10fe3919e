package io.latelake.correction.shared;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.BinaryOperator;

/**
 * Keeps a filter of many ranges small: the ranges across the smallest gaps are joined until at most
 * a given number remain, so the filter still covers every range (and may cover some time between
 * them). Used for correct's bronze read spans and for the touched windows a MERGE names.
 */
public final class CappedRanges {
  private CappedRanges() {}

  /**
   * The most ranges a filter of latelake's names: correct's bronze read spans and the touched
   * windows of its MERGE. Delta's data skipping compiles such a filter over every data file's
   * statistics into one generated Java method; at 64 ranges of one timestamp column that method
   * grows beyond the JVM's 64 KB limit, Spark logs the failed compilation (an ERROR with a stack
   * trace of a thousand lines) and evaluates the filter interpreted instead. 48 ranges compiled
   * (Spark 4.1.1, Delta 4.0); 32 leaves room for the other clauses of a MERGE condition ({@code
   * RangeFiltersCodegenTest}).
   */
  public static final int MAX_IN_FILTER = 32;

  /**
   * @param ranges disjoint ranges in ascending order
   * @param max the most ranges returned, at least 1
   * @param gap the time between a range and the next one
   * @param join the range from the first one's start to the second one's end
   * @return {@code ranges} when there are at most {@code max}; else {@code max} ranges: the {@code
   *     max − 1} largest gaps kept (ties: the earlier gap), every other gap joined
   * @throws IllegalArgumentException when {@code max} is below 1
   */
  public static <R> List<R> capped(
      List<R> ranges, int max, BiFunction<R, R, Duration> gap, BinaryOperator<R> join) {
    if (max < 1) {
      throw new IllegalArgumentException("at most " + max + " ranges: must be at least 1");
    }
    if (ranges.size() <= max) {
      return List.copyOf(ranges);
    }
    List<Integer> gaps = new ArrayList<>();
    for (int i = 1; i < ranges.size(); i++) {
      gaps.add(i);
    }
    gaps.sort(
        Comparator.comparing((Integer i) -> gap.apply(ranges.get(i - 1), ranges.get(i)))
            .reversed()
            .thenComparing(i -> i));
    Set<Integer> kept = new HashSet<>(gaps.subList(0, max - 1));
    List<R> joined = new ArrayList<>();
    R current = ranges.get(0);
    for (int i = 1; i < ranges.size(); i++) {
      if (kept.contains(i)) {
        joined.add(current);
        current = ranges.get(i);
      } else {
        current = join.apply(current, ranges.get(i));
      }
    }
    joined.add(current);
    return List.copyOf(joined);
  }
}

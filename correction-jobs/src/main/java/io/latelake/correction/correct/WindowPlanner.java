package io.latelake.correction.correct;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Pure planning of a {@code correct} run for one metric, without I/O: which touched windows are
 * closed (recomputed now) and which are still open (deferred to a later run).
 */
public final class WindowPlanner {
  private WindowPlanner() {}

  /**
   * @param closed window starts (UTC) with {@code window_end <= watermark}, ascending
   * @param deferred window starts still open (all of them when there is no watermark), ascending:
   *     kept in {@code monitoring.correction_state} for a later run
   * @param end the last closed window's end (UTC), the exclusive end of the recompute; null when
   *     nothing is closed
   */
  public record Plan(List<Instant> closed, List<Instant> deferred, Instant end) {
    /**
     * @return the first closed window's start (UTC), the start of the recompute
     */
    public Instant start() {
      return closed.get(0);
    }

    /**
     * @return the number of touched windows, closed and deferred
     */
    public int touched() {
      return closed.size() + deferred.size();
    }

    /**
     * The event-time spans of bronze the recompute of the closed windows reads: each closed window
     * widened by the id horizon on both sides ({@code [start − horizon, start + window +
     * horizon)}), overlapping or adjacent spans joined. A copy that can decide which copy of an
     * event in a closed window counts lies within the horizon of that window, so it lies in these
     * spans; bronze between windows further apart than twice the horizon is not read.
     *
     * @param window the metric's window length
     * @param horizon the id horizon ({@code lake.correction.dedup-horizon})
     * @return disjoint spans in ascending order, one per group of nearby closed windows, at most
     *     {@value #MAX_SPANS} (beyond that the spans across the smallest gaps are joined: a larger
     *     read, never a smaller one, and a filter of bounded size); empty when nothing is closed
     */
    public List<Span> readSpans(Duration window, Duration horizon) {
      return readSpans(window, horizon, MAX_SPANS);
    }

    /** As {@link #readSpans(Duration, Duration)}, with at most {@code maxSpans} spans. */
    List<Span> readSpans(Duration window, Duration horizon, int maxSpans) {
      List<Span> spans = new ArrayList<>();
      // in order, whoever built the plan: a start out of order would be joined into a span that
      // does not cover it
      for (Instant start : new TreeSet<>(closed)) {
        Instant from = start.minus(horizon);
        Instant to = start.plus(window).plus(horizon);
        Span last = spans.isEmpty() ? null : spans.get(spans.size() - 1);
        if (last != null && !from.isAfter(last.to())) {
          spans.set(
              spans.size() - 1, new Span(last.from(), to.isAfter(last.to()) ? to : last.to()));
        } else {
          spans.add(new Span(from, to));
        }
      }
      // keep the maxSpans - 1 largest gaps (ties: the earlier one), join across the others
      return io.latelake.correction.shared.CappedRanges.capped(
          spans,
          maxSpans,
          (a, b) -> Duration.between(a.to(), b.from()),
          (a, b) -> new Span(a.from(), b.to()));
    }
  }

  /** The most event-time ranges {@link Plan#readSpans} gives. */
  public static final int MAX_SPANS = io.latelake.correction.shared.CappedRanges.MAX_IN_FILTER;

  /**
   * An event-time span, {@code [from, to)} (UTC).
   *
   * @param from first instant
   * @param to end, exclusive
   */
  public record Span(Instant from, Instant to) {}

  /**
   * A window is closed when {@code window_start + window <= watermark} (inclusive, as Spark evicts
   * state: a row exactly at the watermark is late), so the stream and the correction never write
   * the same window.
   *
   * @param touched window starts touched by new bronze rows or deferred by earlier runs (any order,
   *     duplicates allowed)
   * @param window the metric's window length
   * @param watermark the gold stream's last watermark (UTC); empty: nothing is closed
   */
  public static Plan plan(
      Collection<Instant> touched, Duration window, Optional<Instant> watermark) {
    List<Instant> closed = new ArrayList<>();
    List<Instant> deferred = new ArrayList<>();
    for (Instant start : new TreeSet<>(touched)) {
      if (watermark.isPresent() && !start.plus(window).isAfter(watermark.get())) {
        closed.add(start);
      } else {
        deferred.add(start);
      }
    }
    Instant end = closed.isEmpty() ? null : closed.get(closed.size() - 1).plus(window);
    return new Plan(List.copyOf(closed), List.copyOf(deferred), end);
  }
}

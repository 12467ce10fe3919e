package io.latelake.bronze.replay;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Cuts events in arrival order into consecutive slices of arrival time, one micro-batch each.
 *
 * <p>Why slices: Spark filters late rows in micro-batch N against the watermark the batch before
 * ended with, so a whole dataset in one micro-batch drops nothing. Live, every trigger interval
 * gets what arrived during it, and a no-data batch moves the watermark in between. Replaying slice
 * after slice, each through its own micro-batch (and its trailing no-data batch), reproduces that.
 */
public final class ReplayPlan {
  private ReplayPlan() {}

  /**
   * @param events events sorted by arrival
   * @param slice arrival-time width of a slice (positive)
   * @return non-empty slices in order; slice k holds arrivals in [first + k·slice, first +
   *     (k+1)·slice); empty intervals are skipped
   */
  public static List<List<CapturedEvents.Event>> slices(
      List<CapturedEvents.Event> events, Duration slice) {
    if (slice.isZero() || slice.isNegative()) {
      throw new IllegalArgumentException("slice must be positive: " + slice);
    }
    List<List<CapturedEvents.Event>> out = new ArrayList<>();
    if (events.isEmpty()) {
      return out;
    }
    Instant first = events.get(0).arrival();
    long width = slice.toMillis();
    long current = Long.MIN_VALUE;
    List<CapturedEvents.Event> bucket = null;
    for (CapturedEvents.Event e : events) {
      long k = Math.floorDiv(Duration.between(first, e.arrival()).toMillis(), width);
      if (k != current) {
        bucket = new ArrayList<>();
        out.add(bucket);
        current = k;
      }
      bucket.add(e);
    }
    return out;
  }
}

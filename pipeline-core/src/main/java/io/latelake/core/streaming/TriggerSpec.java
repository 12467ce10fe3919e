package io.latelake.core.streaming;

import io.latelake.core.config.Settings;
import java.time.Duration;
import java.util.Set;
import org.apache.spark.sql.streaming.Trigger;

/**
 * A stream's trigger: {@code available-now} (process what is there in rate-limited micro-batches,
 * then stop — for scheduled runs) or {@code processing-time} (a micro-batch every interval, for
 * long-running streams).
 *
 * @param availableNow true for available-now
 * @param interval interval of processing-time triggers
 */
public record TriggerSpec(boolean availableNow, Duration interval) {

  /**
   * Reads {@code <area>.trigger} and {@code <area>.trigger-interval}.
   *
   * @throws io.latelake.core.config.LakeConfigException on an unknown trigger or bad interval
   */
  public static TriggerSpec fromConfig(Settings area) {
    String kind = area.oneOf("trigger", Set.of("available-now", "processing-time"));
    return new TriggerSpec(kind.equals("available-now"), area.positiveDuration("trigger-interval"));
  }

  public Trigger toTrigger() {
    return availableNow ? Trigger.AvailableNow() : Trigger.ProcessingTime(interval.toMillis());
  }

  @Override
  public String toString() {
    return availableNow ? "available-now" : "processing-time " + interval.toMillis() + " ms";
  }
}

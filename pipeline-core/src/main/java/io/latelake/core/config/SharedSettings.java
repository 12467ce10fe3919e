package io.latelake.core.config;

import com.typesafe.config.Config;
import java.time.Duration;

/**
 * Keys that more than one job reads, read and checked in one place so that every job accepts and
 * refuses the same values. Each method throws {@link LakeConfigException} naming the key and the
 * value, before any Spark work.
 */
public final class SharedSettings {
  private SharedSettings() {}

  /**
   * @param root the effective config
   * @return {@code lake.gold.watermark-delay}: the delay of the gold aggregation's watermark, which
   *     decides when a gold window is closed; with {@code auto}, the longest it can be ({@code
   *     lake.gold.auto-delay.max})
   * @throws LakeConfigException unless it is a positive duration, or {@code auto} with valid bounds
   */
  public static Duration goldWatermarkDelay(Config root) {
    return io.latelake.core.streaming.WatermarkDelaySetting.fromConfig(
            Settings.of(root).sub("lake.gold"))
        .longest();
  }

  /**
   * @return the key whose value {@link #goldWatermarkDelay} returns, for messages: {@code
   *     lake.gold.watermark-delay}, or with {@code auto} {@code lake.gold.auto-delay.max}
   */
  static String goldWatermarkDelayKey(Config root) {
    return io.latelake.core.streaming.WatermarkDelaySetting.fromConfig(
                Settings.of(root).sub("lake.gold"))
            .auto()
            .isPresent()
        ? "lake.gold.auto-delay.max"
        : "lake.gold.watermark-delay";
  }

  /**
   * @param root the effective config
   * @return {@code lake.silver.watermark-delay}: the delay of silver's dedup watermark, the one
   *     that drops rows from the fast path (a row behind it never reaches silver or gold); with
   *     {@code auto}, its fallback ({@code lake.silver.auto-delay.fallback})
   * @throws LakeConfigException unless it is a positive duration, or {@code auto} with valid bounds
   */
  public static Duration silverWatermarkDelay(Config root) {
    return io.latelake.core.streaming.WatermarkDelaySetting.fromConfig(
            Settings.of(root).sub("lake.silver"))
        .fixed();
  }

  /**
   * The correction horizon: a gold window is {@code provisional} until now (UTC) ≥ its end + this
   * horizon, then {@code settled} (or {@code restated} once a correction changed it). An event
   * later than this restates a settled number; the lateness profiler counts those events ({@code
   * beyond_correction_*}).
   *
   * @param root the effective config
   * @return {@code lake.correction.horizon}
   * @throws LakeConfigException unless it is a positive duration of at least {@code
   *     lake.gold.watermark-delay} (a settled window must also be closed)
   */
  public static Duration correctionHorizon(Config root) {
    Settings c = Settings.of(root).sub("lake.correction");
    Duration horizon = c.positiveDuration("horizon");
    Duration delay = goldWatermarkDelay(root);
    if (horizon.compareTo(delay) < 0) {
      throw LakeConfigException.invalid(
          c.key("horizon"),
          c.raw().getValue("horizon").unwrapped(),
          "must be at least "
              + goldWatermarkDelayKey(root)
              + " ("
              + delay
              + "), or a settled window "
              + "could still be open");
    }
    return horizon;
  }

  /**
   * The id horizon of the exact dedup (one rule for correct, rebuild, audit and profile).
   *
   * @param root the effective config
   * @return {@code lake.correction.dedup-horizon}
   * @throws LakeConfigException unless it is a positive duration of at least {@code
   *     lake.gold.watermark-delay} (the stream's own dedup already spans that much)
   */
  public static Duration dedupHorizon(Config root) {
    Settings c = Settings.of(root).sub("lake.correction");
    Duration dedupHorizon = c.positiveDuration("dedup-horizon");
    Duration delay = goldWatermarkDelay(root);
    if (dedupHorizon.compareTo(delay) < 0) {
      throw LakeConfigException.invalid(
          c.key("dedup-horizon"),
          c.raw().getValue("dedup-horizon").unwrapped(),
          "must be at least "
              + goldWatermarkDelayKey(root)
              + " ("
              + delay
              + "): the stream's own dedup already "
              + "spans that much");
    }
    return dedupHorizon;
  }
}

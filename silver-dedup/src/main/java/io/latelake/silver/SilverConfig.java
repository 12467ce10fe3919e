package io.latelake.silver;

import com.typesafe.config.Config;
import io.latelake.core.config.Settings;
import io.latelake.core.event.EventSchema;
import io.latelake.core.streaming.SourceWatermarks;
import io.latelake.core.streaming.TriggerSpec;
import java.time.Duration;

/**
 * Typed, validated view of {@code lake.silver}.
 *
 * @param watermarkDelay watermark delay on event time
 * @param trigger the stream's trigger
 * @param event the event schema (for the field columns)
 * @param sources {@code lake.sources}: the sources watermarked on their own (nothing listed: one
 *     watermark) and their idle timeouts
 */
public record SilverConfig(
    Duration watermarkDelay, TriggerSpec trigger, EventSchema event, SourceWatermarks sources) {
  /** The streaming query's name, also its checkpoint folder. */
  public static final String QUERY_NAME = io.latelake.core.table.TableRegistry.SILVER_QUERY;

  /** Config key of the silver stream's watermark delay. */
  public static final String WATERMARK_DELAY_KEY = "lake.silver.watermark-delay";

  /**
   * @throws io.latelake.core.config.LakeConfigException naming the first bad key and value
   */
  public static SilverConfig fromConfig(Config root) {
    Settings s = Settings.of(root).sub("lake.silver");
    return new SilverConfig(
        s.positiveDuration("watermark-delay"),
        TriggerSpec.fromConfig(s),
        EventSchema.fromConfig(root),
        SourceWatermarks.fromConfig(root));
  }
}

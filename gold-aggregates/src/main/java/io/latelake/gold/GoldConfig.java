package io.latelake.gold;

import com.typesafe.config.Config;
import io.latelake.core.config.Settings;
import io.latelake.core.event.EventSchema;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.metric.Metrics;
import io.latelake.core.streaming.SourceWatermarks;
import io.latelake.core.streaming.TriggerSpec;
import java.time.Duration;
import java.util.List;

/**
 * Typed, validated view of {@code lake.gold}.
 *
 * @param watermarkDelay watermark delay on event time
 * @param trigger the streams' trigger
 * @param metrics the configured metrics (at least one)
 * @param event the event schema
 * @param sources {@code lake.sources}: the sources watermarked on their own (nothing listed: one
 *     watermark) and their idle timeouts
 */
public record GoldConfig(
    Duration watermarkDelay,
    TriggerSpec trigger,
    List<MetricSpec> metrics,
    EventSchema event,
    SourceWatermarks sources) {

  /** Config key of the gold streams' watermark delay. */
  public static final String WATERMARK_DELAY_KEY = "lake.gold.watermark-delay";

  /**
   * @throws io.latelake.core.config.LakeConfigException naming the first bad key and value (see
   *     {@link Metrics#fromConfig})
   */
  public static GoldConfig fromConfig(Config root) {
    Settings g = Settings.of(root).sub("lake.gold");
    return new GoldConfig(
        g.positiveDuration("watermark-delay"),
        TriggerSpec.fromConfig(g),
        Metrics.fromConfig(root),
        EventSchema.fromConfig(root),
        SourceWatermarks.fromConfig(root));
  }
}

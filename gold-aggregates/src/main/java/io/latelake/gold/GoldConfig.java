package io.latelake.gold;

import com.typesafe.config.Config;
import io.latelake.core.config.Settings;
import io.latelake.core.event.EventSchema;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.metric.Metrics;
import io.latelake.core.streaming.SourceWatermarks;
import io.latelake.core.streaming.TriggerSpec;
import io.latelake.core.streaming.WatermarkDelaySetting;
import io.latelake.core.table.TableRegistry;
import java.time.Duration;
import java.util.List;
import org.apache.spark.sql.SparkSession;

/**
 * Typed, validated view of {@code lake.gold}.
 *
 * @param watermarkDelay watermark delay on event time (with {@code auto}: the fallback until {@link
 *     #resolved} chose the delay of a start)
 * @param trigger the streams' trigger
 * @param metrics the configured metrics (at least one)
 * @param event the event schema
 * @param sources {@code lake.sources}: the sources watermarked on their own (nothing listed: one
 *     watermark) and their idle timeouts
 * @param delaySetting {@code lake.gold.watermark-delay} as configured: fixed or {@code auto}
 */
public record GoldConfig(
    Duration watermarkDelay,
    TriggerSpec trigger,
    List<MetricSpec> metrics,
    EventSchema event,
    SourceWatermarks sources,
    WatermarkDelaySetting delaySetting) {

  /** Config key of the gold streams' watermark delay. */
  public static final String WATERMARK_DELAY_KEY = "lake.gold.watermark-delay";

  /**
   * @throws io.latelake.core.config.LakeConfigException naming the first bad key and value (see
   *     {@link Metrics#fromConfig})
   */
  public static GoldConfig fromConfig(Config root) {
    Settings g = Settings.of(root).sub("lake.gold");
    WatermarkDelaySetting delay = WatermarkDelaySetting.fromConfig(g);
    return new GoldConfig(
        delay.fixed(),
        TriggerSpec.fromConfig(g),
        Metrics.fromConfig(root),
        EventSchema.fromConfig(root),
        SourceWatermarks.fromConfig(root),
        delay);
  }

  /**
   * @return this config with the delay of this start: with {@code auto}, silver's latest
   *     recommendation from the profiler within gold's bounds (logged; {@link
   *     WatermarkDelaySetting#resolve}); else this config
   */
  public GoldConfig resolved(SparkSession spark, TableRegistry tables) {
    if (delaySetting.auto().isEmpty()) {
      return this;
    }
    Duration d = delaySetting.resolve(spark, tables, TableRegistry.SILVER_QUERY, "gold").delay();
    return new GoldConfig(d, trigger, metrics, event, sources, delaySetting);
  }
}

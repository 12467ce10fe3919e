package io.latelake.silver;

import com.typesafe.config.Config;
import io.latelake.core.config.Settings;
import io.latelake.core.event.EventSchema;
import io.latelake.core.streaming.SourceWatermarks;
import io.latelake.core.streaming.TriggerSpec;
import io.latelake.core.streaming.WatermarkDelaySetting;
import io.latelake.core.table.TableRegistry;
import java.time.Duration;
import org.apache.spark.sql.SparkSession;

/**
 * Typed, validated view of {@code lake.silver}.
 *
 * @param watermarkDelay watermark delay on event time (with {@code auto}: the fallback until {@link
 *     #resolved} chose the delay of a start)
 * @param trigger the stream's trigger
 * @param event the event schema (for the field columns)
 * @param sources {@code lake.sources}: the sources watermarked on their own (nothing listed: one
 *     watermark) and their idle timeouts
 * @param delaySetting {@code lake.silver.watermark-delay} as configured: fixed or {@code auto}
 */
public record SilverConfig(
    Duration watermarkDelay,
    TriggerSpec trigger,
    EventSchema event,
    SourceWatermarks sources,
    WatermarkDelaySetting delaySetting) {
  /** The streaming query's name, also its checkpoint folder. */
  public static final String QUERY_NAME = io.latelake.core.table.TableRegistry.SILVER_QUERY;

  /** Config key of the silver stream's watermark delay. */
  public static final String WATERMARK_DELAY_KEY = "lake.silver.watermark-delay";

  /**
   * @throws io.latelake.core.config.LakeConfigException naming the first bad key and value
   */
  public static SilverConfig fromConfig(Config root) {
    Settings s = Settings.of(root).sub("lake.silver");
    WatermarkDelaySetting delay = WatermarkDelaySetting.fromConfig(s);
    return new SilverConfig(
        delay.fixed(),
        TriggerSpec.fromConfig(s),
        EventSchema.fromConfig(root),
        SourceWatermarks.fromConfig(root),
        delay);
  }

  /**
   * @return this config with the delay of this start: with {@code auto}, the profiler's latest
   *     recommendation within the bounds (logged; {@link WatermarkDelaySetting#resolve}); else this
   *     config
   */
  public SilverConfig resolved(SparkSession spark, TableRegistry tables) {
    if (delaySetting.auto().isEmpty()) {
      return this;
    }
    Duration d = delaySetting.resolve(spark, tables, QUERY_NAME, QUERY_NAME).delay();
    return new SilverConfig(d, trigger, event, sources, delaySetting);
  }
}

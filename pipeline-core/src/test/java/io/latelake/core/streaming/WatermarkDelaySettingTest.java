package io.latelake.core.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import io.latelake.core.config.ConfigLoader;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.config.Settings;
import io.latelake.core.config.SharedSettings;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.testing.SparkTestBase;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A fixed watermark delay, and {@code auto}: the profiler's recommendation within bounds. */
class WatermarkDelaySettingTest extends SparkTestBase {
  @TempDir Path tmp;

  private static Config load(String... sets) {
    return ConfigLoader.load(Optional.empty(), List.of(sets));
  }

  private static WatermarkDelaySetting silver(String... sets) {
    return WatermarkDelaySetting.fromConfig(Settings.of(load(sets)).sub("lake.silver"));
  }

  @Test
  void aFixedDelayOrAutoWithItsBounds() {
    WatermarkDelaySetting fixed = silver("lake.silver.watermark-delay=3 minutes");
    assertThat(fixed.fixed()).isEqualTo(Duration.ofMinutes(3));
    assertThat(fixed.auto()).isEmpty();
    assertThat(fixed.key()).isEqualTo("lake.silver.watermark-delay");

    WatermarkDelaySetting auto =
        silver(
            "lake.silver.watermark-delay=auto",
            "lake.silver.auto-delay.min=1 second",
            "lake.silver.auto-delay.max=20 minutes",
            "lake.silver.auto-delay.fallback=5 minutes");
    assertThat(auto.fixed()).isEqualTo(Duration.ofMinutes(5));
    assertThat(auto.longest()).isEqualTo(Duration.ofMinutes(20));
    // the shared readers: silver's fallback, gold's longest (the horizon must cover it)
    Config goldAuto = load("lake.gold.watermark-delay=auto", "lake.correction.horizon=2 hours");
    assertThat(SharedSettings.goldWatermarkDelay(goldAuto)).isEqualTo(Duration.ofHours(1));
    assertThat(SharedSettings.silverWatermarkDelay(load("lake.silver.watermark-delay=auto")))
        .isEqualTo(Duration.ofMinutes(10));

    assertThatThrownBy(() -> silver("lake.silver.watermark-delay=automatic"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'automatic' for key 'lake.silver.watermark-delay': expected a duration "
                + "such as '10 minutes', '30 s' or '250 ms', or auto (the lateness profiler's "
                + "recommendation)");
    assertThatThrownBy(
            () ->
                silver(
                    "lake.silver.watermark-delay=auto",
                    "lake.silver.auto-delay.min=2 hours",
                    "lake.silver.auto-delay.fallback=2 hours"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'PT2H' for key 'lake.silver.auto-delay.min': must not be longer than "
                + "lake.silver.auto-delay.max");
    assertThatThrownBy(
            () ->
                silver(
                    "lake.silver.watermark-delay=auto", "lake.silver.auto-delay.fallback=2 hours"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'PT2H' for key 'lake.silver.auto-delay.fallback': must lie between "
                + "lake.silver.auto-delay.min and lake.silver.auto-delay.max");
    assertThatThrownBy(
            () ->
                SharedSettings.correctionHorizon(
                    load("lake.gold.watermark-delay=auto", "lake.gold.auto-delay.max=2 hours")))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '1 hour' for key 'lake.correction.horizon': must be at least "
                + "lake.gold.auto-delay.max (PT2H), or a settled window could still be open");
    // any case, surrounding blanks ignored
    assertThat(silver("lake.silver.watermark-delay=\" AUTO \"").auto()).isPresent();
  }

  @Test
  void autoTakesTheLatestRecommendationWithinTheBoundsElseTheFallback() {
    TableRegistry tables = new TableRegistry(tmp.toString());
    WatermarkDelaySetting auto =
        silver(
            "lake.silver.watermark-delay=auto",
            "lake.silver.auto-delay.min=1 second",
            "lake.silver.auto-delay.max=1 minute",
            "lake.silver.auto-delay.fallback=30 seconds");
    // no profile yet
    assertThat(auto.resolve(spark, tables, "silver_events", "silver_events").delay())
        .isEqualTo(Duration.ofSeconds(30));

    StructType schema =
        new StructType()
            .add("query_name", DataTypes.StringType)
            .add("delay_s", DataTypes.DoubleType)
            .add("recommended", DataTypes.BooleanType)
            .add("computed_at", DataTypes.TimestampType);
    Timestamp at = Timestamp.from(Instant.parse("2024-05-20T00:00:00Z"));
    spark
        .createDataFrame(
            List.of(
                RowFactory.create("silver_events", 0.25, true, at),
                RowFactory.create("silver_events", 10.0, false, at),
                RowFactory.create("other", 5.0, true, at)),
            schema)
        .write()
        .format("delta")
        .save(tables.monitoring("watermark_replay"));
    // 0.25 s recommended: raised to the 1 s minimum
    WatermarkDelaySetting.Resolved r = auto.resolve(spark, tables, "silver_events", "x");
    assertThat(r.delay()).isEqualTo(Duration.ofSeconds(1));
    assertThat(r.reason())
        .isEqualTo(
            "lake.silver.watermark-delay = auto: the profile's recommendation PT0.25S, bounded "
                + "to PT1S (bounds PT1S .. PT1M)");
    // a recommendation within the bounds is taken as it is
    assertThat(
            silver("lake.silver.watermark-delay=auto", "lake.silver.auto-delay.min=100 ms")
                .resolve(spark, tables, "silver_events", "x")
                .delay())
        .isEqualTo(Duration.ofMillis(250));
    // no recommended row for this query: the fallback
    assertThat(auto.resolve(spark, tables, "gold_x", "x").delay())
        .isEqualTo(Duration.ofSeconds(30));
    // a fixed delay reads nothing
    assertThat(
            silver("lake.silver.watermark-delay=2 s")
                .resolve(spark, tables, "silver_events", "x")
                .delay())
        .isEqualTo(Duration.ofSeconds(2));
  }
}

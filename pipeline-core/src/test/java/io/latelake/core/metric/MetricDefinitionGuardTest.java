package io.latelake.core.metric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.latelake.core.ExitCode;
import io.latelake.core.LatelakeException;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.streaming.CheckpointGuard;
import io.latelake.core.streaming.WatermarkDelays;
import io.latelake.core.table.DeltaTables;
import io.latelake.core.table.TableProperties;
import io.latelake.core.testing.SparkTestBase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gold stream's start checks ({@link MetricDefinitionGuard}, {@link WatermarkDelays}) on real
 * Delta tables: record on a new table, refuse a changed definition, refuse a table written before
 * the property whose columns do not match, warn on a changed watermark delay.
 */
class MetricDefinitionGuardTest extends SparkTestBase {
  @TempDir Path tmp;

  static final Measure VIEWS = MetricDefinitionTest.VIEWS;
  static final Measure PEAK = MetricDefinitionTest.PEAK;
  static final Measure TOTAL = MetricDefinitionTest.TOTAL;

  StructType goldSchema(boolean peak) {
    StructType s =
        new StructType()
            .add("window_start", DataTypes.TimestampType)
            .add("window_end", DataTypes.TimestampType)
            .add("page", DataTypes.StringType)
            .add("views", DataTypes.LongType);
    if (peak) {
      s = s.add("peak", DataTypes.LongType);
    }
    return s.add("updated_at", DataTypes.TimestampType)
        .add("corrected_at", DataTypes.TimestampType);
  }

  @Test
  void aNewTableRecordsItsDefinitionAndDelayAndAChangedOneIsRefused() {
    String path = tmp.resolve("gold_new").toString();
    DeltaTables.createIfNotExists(spark, path, goldSchema(false), List.of(), Map.of());
    MetricSpec built = MetricDefinitionTest.spec(Duration.ofMinutes(5), List.of("page"), VIEWS);
    MetricDefinitionGuard.check(spark, path, built);
    // the gold stream checks its delay beside the definition (GoldJob)
    WatermarkDelays.check(
        spark, path, built.queryName(), "lake.gold.watermark-delay", Duration.ofMinutes(10));
    assertThat(TableProperties.get(spark, path, MetricDefinition.PROPERTY))
        .contains("window=PT5M; group-by=[page]; measures=[views=count]");
    assertThat(TableProperties.get(spark, path, WatermarkDelays.PROPERTY)).contains("PT10M");
    // the same definition again: nothing to say
    MetricDefinitionGuard.check(spark, path, built);

    // The two property commits are metadata: a stream that never ran a micro-batch may start
    // again without its checkpoint.
    CheckpointGuard.requireCheckpointIfTableHasData(
        spark, "gold_page_views_5m", path, tmp.resolve("no-checkpoint").toString());

    MetricSpec changed =
        MetricDefinitionTest.spec(Duration.ofMinutes(10), List.of("page"), VIEWS, PEAK);
    LakeConfigException e =
        catchThrowableOfType(
            LakeConfigException.class, () -> MetricDefinitionGuard.check(spark, path, changed));
    assertThat(e.exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(e)
        .hasMessage(
            "Cannot start gold stream gold_page_views_5m: metric page_views_5m "
                + "(lake.gold.metrics.page_views_5m) differs from the definition gold.page_views_5m and "
                + "its checkpoint were built with (window PT5M -> PT10M; measure added: "
                + "peak=max(duration_s)). The stream cannot continue on them (its state holds the old "
                + "aggregation). Run `latelake backfill --metric page_views_5m` to rebuild "
                + "gold.page_views_5m from bronze with the new definition (the old table stays readable "
                + "as an earlier Delta version), or restore the old definition: window=PT5M; "
                + "group-by=[page]; measures=[views=count] (table "
                + path
                + ")");
    assertThat(TableProperties.get(spark, path, MetricDefinition.PROPERTY))
        .contains("window=PT5M; group-by=[page]; measures=[views=count]");
  }

  @Test
  void aTableWrittenBeforeThePropertyIsRecordedWhenItsColumnsMatchElseRefused() {
    String legacy = tmp.resolve("gold_legacy").toString();
    DeltaTables.createIfNotExists(spark, legacy, goldSchema(false), List.of(), Map.of());
    MetricSpec withPeak =
        MetricDefinitionTest.spec(Duration.ofMinutes(5), List.of("page"), VIEWS, PEAK);
    LakeConfigException e =
        catchThrowableOfType(
            LakeConfigException.class, () -> MetricDefinitionGuard.check(spark, legacy, withPeak));
    assertThat(e)
        .hasMessage(
            "Cannot start gold stream gold_page_views_5m: metric page_views_5m "
                + "(lake.gold.metrics.page_views_5m) differs from the definition gold.page_views_5m and "
                + "its checkpoint were built with (table columns [window_start, window_end, page, views, "
                + "updated_at, corrected_at] -> [window_start, window_end, page, views, peak, "
                + "updated_at, corrected_at]). The stream cannot continue on them (its state holds the "
                + "old aggregation). Run `latelake backfill --metric page_views_5m` to rebuild "
                + "gold.page_views_5m from bronze with the new definition (the old table stays readable "
                + "as an earlier Delta version), or restore the old definition (table "
                + legacy
                + ")");
    assertThat(TableProperties.get(spark, legacy, MetricDefinition.PROPERTY)).isEmpty();

    MetricDefinitionGuard.check(
        spark, legacy, MetricDefinitionTest.spec(Duration.ofMinutes(5), List.of("page"), VIEWS));
    assertThat(TableProperties.get(spark, legacy, MetricDefinition.PROPERTY))
        .contains("window=PT5M; group-by=[page]; measures=[views=count]");
  }

  @Test
  void aChangedWatermarkDelayIsAWarningAndTheRecordedDelayStays() {
    String path = tmp.resolve("silver").toString();
    DeltaTables.createIfNotExists(spark, path, goldSchema(false), List.of(), Map.of());
    assertThat(
            WatermarkDelays.check(
                spark,
                path,
                "silver_events",
                "lake.silver.watermark-delay",
                Duration.ofMinutes(10)))
        .isEmpty();
    assertThat(
            WatermarkDelays.check(
                spark,
                path,
                "silver_events",
                "lake.silver.watermark-delay",
                Duration.ofMinutes(10)))
        .isEmpty();
    assertThat(
            WatermarkDelays.check(
                spark,
                path,
                "silver_events",
                "lake.silver.watermark-delay",
                Duration.ofMinutes(30)))
        .contains(
            "Stream silver_events: lake.silver.watermark-delay is "
                + "PT30M but its checkpoint was created with PT10M (table property "
                + "latelake.watermark.delay). Spark keeps the watermark stored in the checkpoint and only "
                + "moves it forward: the longer delay takes effect only once event time has advanced by "
                + "the difference; until then events it would admit are still dropped as late (the "
                + "correction path restates their windows). To start from the new delay at once, start "
                + "a new checkpoint (gold: latelake backfill --metric NAME).");
    assertThat(
            WatermarkDelays.check(
                spark, path, "silver_events", "lake.silver.watermark-delay", Duration.ofMinutes(2)))
        .contains(
            "Stream silver_events: lake.silver.watermark-delay is "
                + "PT2M but its checkpoint was created with PT10M (table property "
                + "latelake.watermark.delay). Spark keeps the watermark stored in the checkpoint and only "
                + "moves it forward: the shorter delay takes effect from the next micro-batch with data. "
                + "To start from the new delay at once, start a new checkpoint (gold: latelake backfill "
                + "--metric NAME).");
    assertThat(TableProperties.get(spark, path, WatermarkDelays.PROPERTY)).contains("PT10M");
  }

  @Test
  void aTableWithDataAndNoCheckpointIsStillRefused() {
    String path = tmp.resolve("with_data").toString();
    DeltaTables.createIfNotExists(
        spark, path, new StructType().add("x", DataTypes.LongType), List.of(), Map.of());
    TableProperties.set(spark, path, Map.of(WatermarkDelays.PROPERTY, "PT10M"));
    spark.range(1).toDF("x").write().format("delta").mode("append").save(path);
    String checkpoint = tmp.resolve("cp").toString();
    LatelakeException e =
        catchThrowableOfType(
            LatelakeException.class,
            () -> CheckpointGuard.requireCheckpointIfTableHasData(spark, "q", path, checkpoint));
    assertThat(e.exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(e)
        .hasMessage(
            "Cannot start stream 'q': table "
                + path
                + " has commits but "
                + "checkpoint "
                + checkpoint
                + " has none. Restarting from scratch would read the input "
                + "again; restore the checkpoint, or delete the table and the checkpoint to rebuild on "
                + "purpose.");
  }

  @Test
  void aGoldTableWhoseSumsAreBigintIsRefusedWithTheBackfillRemedy() {
    String path = tmp.resolve("gold_bigint_sum").toString();
    StructType old =
        new StructType()
            .add("window_start", DataTypes.TimestampType)
            .add("window_end", DataTypes.TimestampType)
            .add("page", DataTypes.StringType)
            .add("views", DataTypes.LongType)
            .add("total", DataTypes.LongType)
            .add("updated_at", DataTypes.TimestampType)
            .add("corrected_at", DataTypes.TimestampType);
    DeltaTables.createIfNotExists(spark, path, old, List.of(), Map.of());
    MetricSpec metric =
        MetricDefinitionTest.spec(Duration.ofMinutes(5), List.of("page"), VIEWS, TOTAL);
    StructType now =
        new StructType()
            .add("window_start", DataTypes.TimestampType)
            .add("window_end", DataTypes.TimestampType)
            .add("page", DataTypes.StringType)
            .add("views", DataTypes.LongType)
            .add("total", MetricAggregation.EXACT_SUM)
            .add("updated_at", DataTypes.TimestampType)
            .add("corrected_at", DataTypes.TimestampType);
    // the same types: the check passes
    MetricDefinitionGuard.check(spark, path, metric, old);
    LakeConfigException e =
        catchThrowableOfType(
            LakeConfigException.class, () -> MetricDefinitionGuard.check(spark, path, metric, now));
    assertThat(e.exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(e)
        .hasMessage(
            "Cannot start gold stream gold_page_views_5m: gold.page_views_5m and its checkpoint "
                + "were built with other measure types (total bigint -> decimal(38,0); sums of "
                + "whole numbers are exact DECIMAL(38,0) since they can pass 2^63-1). The stream "
                + "cannot continue on them (its state holds the old types). Run `latelake backfill "
                + "--metric page_views_5m` to rebuild gold.page_views_5m from bronze with the new "
                + "types (the old table stays readable as an earlier Delta version) (table "
                + path
                + ")");
  }
}

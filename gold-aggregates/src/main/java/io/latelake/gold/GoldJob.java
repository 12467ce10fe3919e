package io.latelake.gold;

import io.latelake.core.job.JobContext;
import io.latelake.core.metric.GoldLayout;
import io.latelake.core.metric.MetricAggregation;
import io.latelake.core.metric.MetricDefinitionGuard;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.streaming.SourceInputs;
import io.latelake.core.streaming.StreamPlan;
import io.latelake.core.streaming.StreamingJob;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Streams {@code silver_events} into one {@code gold.<metric>} table per configured metric:
 * windowed aggregates in update output mode, MERGEd per micro-batch (see {@link GoldMerge}). Gold
 * tables have change data feed enabled so readers can follow restatements. {@link #run()} returns
 * one summary per metric stream and throws {@link io.latelake.core.config.LakeConfigException} when
 * silver does not exist yet.
 */
public final class GoldJob extends StreamingJob<GoldConfig> {
  public GoldJob(JobContext context, GoldConfig config) {
    super(context, config.resolved(context.spark(), context.tables()), "gold");
  }

  @Override
  protected List<StreamPlan> plans() {
    return config.metrics().stream().map(this::plan).toList();
  }

  private StreamPlan plan(MetricSpec metric) {
    String path = context.tables().gold(metric.name());
    return new StreamPlan(
        metric.queryName(),
        lakeTable("silver_events", context.tables().silverEvents(), "silver"),
        silver -> transform(silver, metric),
        path,
        new StreamPlan.Merge(
            GoldLayout::tableSchema,
            Map.of("delta.enableChangeDataFeed", "true"),
            (batch, batchId) -> GoldMerge.merge(batch, batchId, path, metric)),
        config.trigger());
  }

  @Override
  protected void checkOutput(StreamPlan plan, org.apache.spark.sql.types.StructType tableSchema) {
    for (MetricSpec metric : config.metrics()) {
      if (metric.queryName().equals(plan.queryName())) {
        MetricDefinitionGuard.check(context.spark(), plan.outputPath(), metric, tableSchema);
      }
    }
  }

  @Override
  protected java.util.Optional<Watermarking> watermarking() {
    return java.util.Optional.of(
        new Watermarking(config.delaySetting(), config.watermarkDelay(), config.sources()));
  }

  /**
   * Silver rows → the metric's windowed aggregates, watermarked once per listed source (see
   * MetricAggregation, SourceInputs).
   */
  Dataset<Row> transform(Dataset<Row> silver, MetricSpec metric) {
    return MetricAggregation.aggregate(
        SourceInputs.watermarked(silver, config.watermarkDelay(), config.sources(), null), metric);
  }
}

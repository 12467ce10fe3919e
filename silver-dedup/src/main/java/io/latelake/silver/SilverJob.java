package io.latelake.silver;

import io.latelake.core.job.JobContext;
import io.latelake.core.streaming.StreamPlan;
import io.latelake.core.streaming.StreamingJob;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Streams {@code bronze_events} into {@code silver_events}: valid events, deduplicated on {@code
 * event_id} within the watermark, with {@code lateness_s}. With {@code lake.silver.watermark-delay
 * = auto} the delay is chosen when the job is made (once per start; {@link SilverConfig#resolved}).
 * See {@link SilverTransforms#dedup} for the schema. {@link #run()} throws {@link
 * io.latelake.core.config.LakeConfigException} when bronze does not exist yet; its summary counts
 * the rows dropped by the watermark.
 */
public final class SilverJob extends StreamingJob<SilverConfig> {
  public SilverJob(JobContext context, SilverConfig config) {
    super(context, config.resolved(context.spark(), context.tables()), "silver");
  }

  @Override
  protected List<StreamPlan> plans() {
    return List.of(
        new StreamPlan(
            SilverConfig.QUERY_NAME,
            lakeTable("bronze_events", context.tables().bronzeEvents(), "bronze"),
            this::transform,
            context.tables().silverEvents(),
            // the no-data micro-batch after each watermark move commits no empty version
            new StreamPlan.Append().withoutEmptyCommits(),
            config.trigger()));
  }

  @Override
  protected java.util.Optional<Watermarking> watermarking() {
    return java.util.Optional.of(
        new Watermarking(config.delaySetting(), config.watermarkDelay(), config.sources()));
  }

  /** Bronze rows → silver rows ({@link SilverTransforms#dedup}). */
  Dataset<Row> transform(Dataset<Row> bronze) {
    return SilverTransforms.dedup(
        bronze, config.watermarkDelay(), config.event().fieldNames(), config.sources());
  }
}

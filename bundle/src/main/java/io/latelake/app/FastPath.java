package io.latelake.app;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import io.latelake.bronze.BronzeConfig;
import io.latelake.bronze.BronzeJob;
import io.latelake.core.job.JobContext;
import io.latelake.core.streaming.ProgressRecorder;
import io.latelake.core.streaming.StreamSummary;
import io.latelake.core.table.TableRegistry;
import io.latelake.gold.GoldConfig;
import io.latelake.gold.GoldJob;
import io.latelake.silver.SilverConfig;
import io.latelake.silver.SilverJob;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.SparkSession;

/**
 * The fast path run in lock step: one {@link #step()} runs bronze, then silver, then gold, each
 * with the available-now trigger, so each processes exactly what arrived since the previous step in
 * one micro-batch, followed by the no-data micro-batch that moves its watermark — as the
 * long-running streams do live between two trigger intervals. Used by the demo and by tests.
 *
 * <p>The three stages share one progress recorder that writes the step's rows in one append at the
 * step's end ({@link ProgressRecorder#writeOnFlush()}): {@link #step()} returns once every row of
 * the step is in {@code monitoring.stream_progress}. {@link #close()} removes the recorder's
 * listener from the session.
 */
public final class FastPath implements AutoCloseable {
  /**
   * What one step did.
   *
   * @param bronze the bronze run
   * @param silver the silver run
   * @param gold the gold runs, one per metric
   */
  public record Step(StreamSummary bronze, StreamSummary silver, List<StreamSummary> gold) {
    /**
     * @return rows dropped by the watermark in silver and gold during this step
     */
    public long droppedByWatermark() {
      return silver.droppedByWatermark()
          + gold.stream().mapToLong(StreamSummary::droppedByWatermark).sum();
    }
  }

  private final JobContext context;
  private final BronzeConfig bronze;
  private final SilverConfig silver;
  private final GoldConfig gold;
  private final ProgressRecorder progress;

  /**
   * @param spark the session
   * @param config the effective config; triggers are forced to available-now
   * @throws io.latelake.core.config.LakeConfigException on a config error
   */
  public FastPath(SparkSession spark, Config config) {
    Config c =
        config
            .withValue("lake.bronze.trigger", ConfigValueFactory.fromAnyRef("available-now"))
            .withValue("lake.silver.trigger", ConfigValueFactory.fromAnyRef("available-now"))
            .withValue("lake.gold.trigger", ConfigValueFactory.fromAnyRef("available-now"));
    this.bronze = BronzeConfig.fromConfig(c);
    this.silver = SilverConfig.fromConfig(c);
    this.gold = GoldConfig.fromConfig(c);
    this.context = JobContext.start(spark, TableRegistry.fromConfig(c));
    this.progress =
        new ProgressRecorder(spark, context.tables().streamProgress(), Set.of())
            .writeOnFlush()
            .start();
  }

  /** Runs bronze, silver and gold once each; their progress rows are written when it returns. */
  public Step step() {
    try {
      StreamSummary b = new BronzeJob(context, bronze).run(progress).summary();
      StreamSummary s = new SilverJob(context, silver).run(progress).summary();
      List<StreamSummary> g = new GoldJob(context, gold).run(progress).summaries();
      return new Step(b, s, g);
    } finally {
      // Also when a stage fails: the rows of the stages before it are written now.
      progress.flush();
    }
  }

  /** Writes what the progress recorder holds and removes its listener. */
  @Override
  public void close() {
    progress.close();
  }

  public TableRegistry tables() {
    return context.tables();
  }

  /**
   * @return the context the jobs of every step run in
   */
  public JobContext context() {
    return context;
  }

  public GoldConfig goldConfig() {
    return gold;
  }
}

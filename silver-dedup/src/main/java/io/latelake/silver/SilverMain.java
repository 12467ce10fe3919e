package io.latelake.silver;

import com.typesafe.config.Config;
import io.latelake.core.ExitCode;
import io.latelake.core.cli.JobCommand;
import io.latelake.core.job.JobContext;
import io.latelake.core.cli.Launcher;
import io.latelake.core.table.TableRegistry;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;

/**
 * {@code latelake silver}: streams {@code bronze_events} into {@code silver_events}.
 * spark-submit entry point: {@code --class io.latelake.silver.SilverMain}. Exit codes: 0 ok,
 * 1 runtime failure, 2 bad usage or config (bronze missing included).
 */
@Command(name = "silver", mixinStandardHelpOptions = true,
    description = "Stream bronze_events into silver_events, deduplicated within the watermark.")
public final class SilverMain extends JobCommand<SilverConfig> {
  private static final Logger LOG = LoggerFactory.getLogger(SilverMain.class);

  public static void main(String[] args) {
    System.exit(Launcher.execute(new SilverMain(), args));
  }

  @Override
  protected String appName() {
    return "latelake-silver";
  }

  @Override
  protected SilverConfig prepare(Config config) {
    return SilverConfig.fromConfig(config);
  }

  @Override
  protected ExitCode run(JobContext context, SilverConfig silver) {
    SparkSession spark = context.spark();
    TableRegistry tables = context.tables();
    SilverJob.Result r = new SilverJob(spark, silver, tables).run();
    LOG.info("silver done: {} micro-batches, {} rows read, {} dropped by the watermark, into {}",
        r.summary().batches(), r.summary().inputRows(), r.summary().droppedByWatermark(),
        tables.silverEvents());
    return ExitCode.OK;
  }
}

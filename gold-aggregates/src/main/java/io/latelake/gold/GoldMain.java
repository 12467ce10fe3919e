package io.latelake.gold;

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
 * {@code latelake gold}: streams {@code silver_events} into the configured {@code gold.<metric>} tables.
 * spark-submit entry point: {@code --class io.latelake.gold.GoldMain}. Exit codes: 0 ok,
 * 1 runtime failure, 2 bad usage or config (silver missing, no metric included).
 */
@Command(name = "gold", mixinStandardHelpOptions = true,
    description = "Stream silver_events into windowed gold metrics (update mode, MERGE).")
public final class GoldMain extends JobCommand<GoldConfig> {
  private static final Logger LOG = LoggerFactory.getLogger(GoldMain.class);

  public static void main(String[] args) {
    System.exit(Launcher.execute(new GoldMain(), args));
  }

  @Override
  protected String appName() {
    return "latelake-gold";
  }

  @Override
  protected GoldConfig prepare(Config config) {
    return GoldConfig.fromConfig(config);
  }

  @Override
  protected ExitCode run(JobContext context, GoldConfig gold) {
    SparkSession spark = context.spark();
    TableRegistry tables = context.tables();
    GoldJob.Result r = new GoldJob(spark, gold, tables).run();
    for (var m : r.summaries()) {
      LOG.info("{} done: {} micro-batches, {} rows read, {} dropped by the watermark",
          m.queryName(), m.batches(), m.inputRows(), m.droppedByWatermark());
    }
    return ExitCode.OK;
  }
}

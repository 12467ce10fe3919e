package io.latelake.bronze;

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
 * {@code latelake bronze}: streams Kafka or a landing folder into {@code bronze_events}.
 * spark-submit entry point: {@code --class io.latelake.bronze.BronzeMain}. Exit codes: 0 ok,
 * 1 runtime failure, 2 bad usage or config.
 */
@Command(name = "bronze", mixinStandardHelpOptions = true,
    description = "Stream Kafka topics or a landing folder into bronze_events (every record kept).")
public final class BronzeMain extends JobCommand<BronzeConfig> {
  private static final Logger LOG = LoggerFactory.getLogger(BronzeMain.class);

  public static void main(String[] args) {
    System.exit(Launcher.execute(new BronzeMain(), args));
  }

  @Override
  protected String appName() {
    return "latelake-bronze";
  }

  @Override
  protected BronzeConfig prepare(Config config) {
    return BronzeConfig.fromConfig(config);
  }

  @Override
  protected ExitCode run(JobContext context, BronzeConfig bronze) {
    SparkSession spark = context.spark();
    TableRegistry tables = context.tables();
    BronzeJob.Result r = new BronzeJob(spark, bronze, tables).run();
    LOG.info("bronze done: {} micro-batches, {} records into {}", r.summary().batches(),
        r.summary().inputRows(), tables.bronzeEvents());
    return ExitCode.OK;
  }
}

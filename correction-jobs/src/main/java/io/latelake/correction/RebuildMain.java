package io.latelake.correction;

import io.latelake.core.job.JobContext;
import com.typesafe.config.Config;
import io.latelake.core.ExitCode;
import io.latelake.core.cli.Launcher;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;

/**
 * {@code latelake rebuild}: Rebuild settled daily totals gold.daily_<metric> from bronze (replaceWhere on event dates). ({@link RebuildJob}). spark-submit entry point:
 * {@code --class io.latelake.correction.RebuildMain}. Safe to re-run. Exit codes: 0 ok, 1 runtime failure, 2 bad usage or config (a bad date, an unknown metric, bronze missing).
 * Dates are validated before Spark starts.
 */
@Command(name = "rebuild", mixinStandardHelpOptions = true,
    description = "Rebuild settled daily totals gold.daily_<metric> from bronze (replaceWhere on event dates).")
public final class RebuildMain extends RangeCommand {
  private static final Logger LOG = LoggerFactory.getLogger(RebuildMain.class);

  public static void main(String[] args) {
    System.exit(Launcher.execute(new RebuildMain(), args));
  }

  @Override
  protected String name() {
    return "rebuild";
  }

  @Override
  protected ExitCode run(JobContext context, Prepared p) {
    SparkSession spark = context.spark();
    RebuildJob.Result r = new RebuildJob(spark, p.config(), context.tables(),
        p.metrics(), p.range()).run();
    LOG.info("rebuild {}..{}: {}", p.range().from(), p.range().to(),
        String.join("; ", r.metrics().stream().map(m -> m.summary()).toList()));
    return exitCode(r);
  }

  static ExitCode exitCode(RebuildJob.Result r) {
    return ExitCode.OK;
  }
}

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
 * {@code latelake cascade}: Recompute the ISO weeks gold.weekly_<metric> over changed daily totals (MERGE). ({@link CascadeJob}). spark-submit entry point:
 * {@code --class io.latelake.correction.CascadeMain}. Safe to re-run. Exit codes: 0 ok, 1 runtime failure, 2 bad usage or config (a bad date, an unknown metric, a daily table missing).
 * Dates are validated before Spark starts.
 */
@Command(name = "cascade", mixinStandardHelpOptions = true,
    description = "Recompute the ISO weeks gold.weekly_<metric> over changed daily totals (MERGE).")
public final class CascadeMain extends RangeCommand {
  private static final Logger LOG = LoggerFactory.getLogger(CascadeMain.class);

  public static void main(String[] args) {
    System.exit(Launcher.execute(new CascadeMain(), args));
  }

  @Override
  protected String name() {
    return "cascade";
  }

  @Override
  protected ExitCode run(JobContext context, Prepared p) {
    SparkSession spark = context.spark();
    CascadeJob.Result r = new CascadeJob(spark, p.config(), context.tables(),
        p.metrics(), p.range()).run();
    LOG.info("cascade {}..{}: {}", p.range().from(), p.range().to(),
        String.join("; ", r.metrics().stream().map(m -> m.summary()).toList()));
    return exitCode(r);
  }

  static ExitCode exitCode(CascadeJob.Result r) {
    return ExitCode.OK;
  }
}

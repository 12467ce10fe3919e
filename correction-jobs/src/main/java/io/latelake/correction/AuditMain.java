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
 * {@code latelake audit}: Compare closed gold windows with a recomputation from bronze; exit 3 beyond tolerance. ({@link AuditJob}). spark-submit entry point:
 * {@code --class io.latelake.correction.AuditMain}. Safe to re-run. Exit codes: 0 ok (no difference beyond tolerance), 1 runtime failure, 2 bad usage or config, 3 differences beyond lake.correction.audit-tolerance.
 * Dates are validated before Spark starts.
 */
@Command(name = "audit", mixinStandardHelpOptions = true,
    description = "Compare closed gold windows with a recomputation from bronze; exit 3 beyond tolerance.")
public final class AuditMain extends RangeCommand {
  private static final Logger LOG = LoggerFactory.getLogger(AuditMain.class);

  public static void main(String[] args) {
    System.exit(Launcher.execute(new AuditMain(), args));
  }

  @Override
  protected String name() {
    return "audit";
  }

  @Override
  protected ExitCode run(JobContext context, Prepared p) {
    SparkSession spark = context.spark();
    AuditJob.Result r = new AuditJob(spark, p.config(), context.tables(),
        p.metrics(), p.range()).run();
    LOG.info("audit {}..{}: {}", p.range().from(), p.range().to(), r.metrics());
    return exitCode(r);
  }

  /** @return 3 when a difference is beyond tolerance, else 0 */
  public static ExitCode exitCode(AuditJob.Result r) {
    return r.beyondTolerance() > 0 ? ExitCode.AUDIT_DIFFERENCES : ExitCode.OK;
  }
}

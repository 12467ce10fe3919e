package io.latelake.correction;

import io.latelake.core.ExitCode;
import io.latelake.core.cli.Launcher;
import io.latelake.correction.audit.AuditJob;
import picocli.CommandLine.Command;

/**
 * {@code latelake audit} ({@link AuditJob}), entry point for spark-submit: {@code --class
 * io.latelake.correction.AuditMain}. Read only but for its audit rows; dates are validated before
 * Spark starts. Exit codes: 0 ok (no difference beyond tolerance), 1 runtime failure, 2 bad usage
 * or config, 3 differences beyond lake.correction.audit-tolerance.
 */
@Command(
    name = "audit",
    mixinStandardHelpOptions = true,
    description =
        "Compare closed gold windows with a recomputation from bronze; exit 3 beyond tolerance.")
public final class AuditMain extends RangeCommand {
  public AuditMain() {
    super("audit", AuditJob::new);
  }

  /**
   * @return 3 when a difference is beyond tolerance, else 0 ({@link AuditJob.Result#exitCode})
   */
  public static ExitCode exitCode(AuditJob.Result r) {
    return r.exitCode();
  }

  public static void main(String[] args) {
    System.exit(Launcher.execute(new AuditMain(), args));
  }
}

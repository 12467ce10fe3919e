package io.latelake.correction;

import io.latelake.core.cli.Launcher;
import io.latelake.correction.rollup.RebuildJob;
import picocli.CommandLine.Command;

/**
 * {@code latelake rebuild} ({@link RebuildJob}); spark-submit entry point {@code --class
 * io.latelake.correction.RebuildMain}. Safe to re-run; dates are validated before Spark starts.
 * Exit codes: 0 ok, 1 runtime failure, 2 bad usage or config (a bad date, an unknown metric, bronze
 * missing).
 */
@Command(
    name = "rebuild",
    mixinStandardHelpOptions = true,
    description =
        "Rebuild settled daily totals gold.daily_<metric> from bronze (replaceWhere on event dates).")
public final class RebuildMain extends RangeCommand {
  public RebuildMain() {
    super("rebuild", RebuildJob::new);
  }

  public static void main(String[] args) {
    System.exit(Launcher.execute(new RebuildMain(), args));
  }
}

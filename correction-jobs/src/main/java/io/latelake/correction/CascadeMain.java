package io.latelake.correction;

import io.latelake.core.cli.Launcher;
import io.latelake.correction.rollup.CascadeJob;
import picocli.CommandLine.Command;

/**
 * {@code latelake cascade} ({@link CascadeJob}): spark-submit with {@code --class
 * io.latelake.correction.CascadeMain}. Safe to re-run; the dates are checked before Spark starts.
 * Exit codes: 0 ok, 1 runtime failure, 2 bad usage or config (a bad date, an unknown metric, a
 * daily table missing).
 */
@Command(
    name = "cascade",
    mixinStandardHelpOptions = true,
    description =
        "Recompute the rollups of lake.correction.rollups (gold.weekly_, monthly_, yearly_<metric>)"
            + " over changed daily totals (MERGE).")
public final class CascadeMain extends RangeCommand {
  public static void main(String[] args) {
    System.exit(Launcher.execute(new CascadeMain(), args));
  }

  public CascadeMain() {
    super("cascade", CascadeJob::new);
  }
}

package io.latelake.gold;

import io.latelake.core.cli.Launcher;
import io.latelake.core.cli.StreamCommand;
import picocli.CommandLine.Command;

/**
 * {@code latelake gold}: streams {@code silver_events} into the configured {@code gold.<metric>}
 * tables. spark-submit entry point: {@code --class io.latelake.gold.GoldMain}. Exit codes: 0 ok, 1
 * runtime failure, 2 bad usage or config (silver missing, no metric included).
 */
@Command(
    name = "gold",
    mixinStandardHelpOptions = true,
    description = "Stream silver_events into windowed gold metrics (update mode, MERGE).")
public final class GoldMain extends StreamCommand<GoldConfig> {
  public GoldMain() {
    super(GoldConfig::fromConfig, GoldJob::new);
  }

  public static void main(String[] args) {
    System.exit(Launcher.execute(new GoldMain(), args));
  }
}

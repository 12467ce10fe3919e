package io.latelake.silver;

import io.latelake.core.cli.Launcher;
import io.latelake.core.cli.StreamCommand;
import picocli.CommandLine.Command;

/**
 * {@code latelake silver}: streams {@code bronze_events} into {@code silver_events}. spark-submit
 * entry point: {@code --class io.latelake.silver.SilverMain}. Exit codes: 0 ok, 1 runtime failure,
 * 2 bad usage or config (bronze missing included).
 */
@Command(
    name = "silver",
    mixinStandardHelpOptions = true,
    description = "Stream bronze_events into silver_events, deduplicated within the watermark.")
public final class SilverMain extends StreamCommand<SilverConfig> {
  public SilverMain() {
    super(SilverConfig::fromConfig, SilverJob::new);
  }

  public static void main(String[] args) {
    System.exit(Launcher.execute(new SilverMain(), args));
  }
}

package io.latelake.bronze;

import io.latelake.core.cli.Launcher;
import io.latelake.core.cli.StreamCommand;
import picocli.CommandLine.Command;

/**
 * {@code latelake bronze}: streams Kafka or a landing folder into {@code bronze_events}.
 * spark-submit entry point: {@code --class io.latelake.bronze.BronzeMain}. Exit codes: 0 ok, 1
 * runtime failure, 2 bad usage or config.
 */
@Command(
    name = "bronze",
    mixinStandardHelpOptions = true,
    description = "Stream Kafka topics or a landing folder into bronze_events (every record kept).")
public final class BronzeMain extends StreamCommand<BronzeConfig> {
  public BronzeMain() {
    super(BronzeConfig::fromConfig, BronzeJob::new);
  }

  public static void main(String[] args) {
    System.exit(Launcher.execute(new BronzeMain(), args));
  }
}

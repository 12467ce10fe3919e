package io.latelake.cli;

import io.latelake.analyst.CatalogMain;
import io.latelake.analyst.NotebookMain;
import io.latelake.analyst.SqlMain;
import io.latelake.app.DemoCommand;
import io.latelake.app.RunMain;
import io.latelake.bronze.BronzeMain;
import io.latelake.bronze.replay.ReplayMain;
import io.latelake.core.cli.Launcher;
import io.latelake.correction.ApplyCorrectionsMain;
import io.latelake.correction.AsOfMain;
import io.latelake.correction.AuditMain;
import io.latelake.correction.BackfillMain;
import io.latelake.correction.CascadeMain;
import io.latelake.correction.CorrectMain;
import io.latelake.correction.RebuildMain;
import io.latelake.gold.GoldMain;
import io.latelake.profiler.ProfileMain;
import io.latelake.profiler.ReportMain;
import io.latelake.silver.SilverMain;
import picocli.CommandLine.Command;

/**
 * {@code latelake <command>}: one entry point for every job. Each command is also a spark-submit
 * entry point of its own ({@code --class io.latelake.bronze.BronzeMain}, ...). Exit codes: 0 ok, 1
 * runtime failure, 2 bad usage or config, 3 audit differences.
 */
@Command(
    name = "latelake",
    mixinStandardHelpOptions = true,
    version = "latelake 0.1.0",
    description =
        "Event-time counting on Spark Structured Streaming and Delta Lake that never "
            + "loses a late event.",
    subcommands = {
      BronzeMain.class,
      SilverMain.class,
      GoldMain.class,
      RunMain.class,
      DemoCommand.class,
      ReplayMain.class,
      CorrectMain.class,
      ApplyCorrectionsMain.class,
      RebuildMain.class,
      CascadeMain.class,
      AuditMain.class,
      AsOfMain.class,
      BackfillMain.class,
      ProfileMain.class,
      ReportMain.class,
      CatalogMain.class,
      SqlMain.class,
      NotebookMain.class
    })
public final class LatelakeCli implements Runnable {
  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(Launcher.execute(new LatelakeCli(), args));
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
    throw new picocli.CommandLine.ParameterException(spec.commandLine(), "name a command");
  }
}

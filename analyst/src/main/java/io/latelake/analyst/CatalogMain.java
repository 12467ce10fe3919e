package io.latelake.analyst;

import com.typesafe.config.Config;
import io.latelake.core.ExitCode;
import io.latelake.core.catalog.CatalogConfig;
import io.latelake.core.catalog.CatalogRegister;
import io.latelake.core.cli.Launcher;
import io.latelake.core.job.JobContext;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code latelake catalog register}: registers the lake's tables and the gold status views in the
 * session's catalog ({@link CatalogRegister}). spark-submit entry point: {@code --class
 * io.latelake.analyst.CatalogMain ... register}. Exit codes: 0 ok, 1 runtime failure, 2 bad usage
 * or config ({@code lake.catalog.enabled = false}, a name registered at another location).
 */
@Command(
    name = "catalog",
    mixinStandardHelpOptions = true,
    description = "Register latelake tables and status views in the catalog.",
    subcommands = CatalogMain.Register.class)
public final class CatalogMain extends CommandGroup {
  public static void main(String[] args) {
    System.exit(Launcher.execute(new CatalogMain(), args));
  }

  /** {@code catalog register}. */
  @Command(
      name = "register",
      mixinStandardHelpOptions = true,
      description =
          "Register every existing latelake table as an external Delta table and "
              + "create the <metric>_status views; idempotent.")
  static final class Register extends AnalystCommand<CatalogConfig> {
    @Spec CommandSpec spec;

    @Override
    String appName() {
      return "latelake-catalog";
    }

    @Override
    CatalogConfig prepare(Config config) {
      return CatalogConfig.fromConfig(config);
    }

    @Override
    ExitCode run(JobContext context, Config config, CatalogConfig prepared) {
      CatalogRegister.Result r = new RegisterAction(context, prepared).run();
      print(spec.commandLine().getOut(), r);
      return r.exitCode();
    }
  }

  /** Prints what {@link CatalogRegister#run} registered. */
  public static void print(PrintWriter out, CatalogRegister.Result r) {
    out.println(r.summary());
    for (String n : r.names()) {
      out.println("  " + n);
    }
    out.flush();
  }
}

package io.latelake.analyst;

import io.latelake.core.cli.ConfigOptions;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * A command whose work is in its subcommands ({@code catalog register}, {@code notebook run}): it
 * takes the config options its subcommands inherit ({@link AnalystCommand#parentOptions}) and, run
 * without a subcommand, is a usage error (exit 2) naming them.
 */
abstract class CommandGroup implements Runnable {
  @Spec CommandSpec spec;

  @Mixin ConfigOptions options = new ConfigOptions();

  @Override
  public final void run() {
    throw new ParameterException(
        spec.commandLine(), "name a subcommand: " + String.join(", ", spec.subcommands().keySet()));
  }
}

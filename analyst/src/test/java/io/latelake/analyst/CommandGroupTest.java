package io.latelake.analyst;

import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.core.cli.Launcher;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The command groups ({@code catalog}, {@code notebook}): usage without a subcommand, and the
 * options they hand down to it. No Spark.
 */
class CommandGroupTest {
  @Test
  void aGroupWithoutSubcommandIsAUsageErrorNamingIt() {
    StringWriter err = new StringWriter();
    int code =
        Launcher.execute(
            new CatalogMain(), new PrintWriter(new StringWriter()), new PrintWriter(err));
    assertThat(code).isEqualTo(2);
    assertThat(err.toString().lines().findFirst())
        .contains("latelake: name a subcommand: register");

    StringWriter err2 = new StringWriter();
    assertThat(
            Launcher.execute(
                new NotebookMain(), new PrintWriter(new StringWriter()), new PrintWriter(err2)))
        .isEqualTo(2);
    assertThat(err2.toString().lines().findFirst()).contains("latelake: name a subcommand: run");
  }

  @Test
  void theSubcommandTakesTheGroupsOptionsUnderItsOwn() {
    CommandLine cli = new CommandLine(new CatalogMain());
    CommandLine.ParseResult parsed =
        cli.parseArgs("--config", "group.conf", "--set", "a=1", "register", "--set", "b=2");
    AnalystCommand<?> register = (AnalystCommand<?>) parsed.subcommand().commandSpec().userObject();
    assertThat(register.effectiveOptions().configFile())
        .isEqualTo(Optional.of(Path.of("group.conf")));
    assertThat(register.effectiveOptions().overrides()).containsExactly("a=1", "b=2");

    CommandLine.ParseResult run =
        new CommandLine(new NotebookMain())
            .parseArgs("--set", "a=1", "run", "--config", "own.conf", "nb.sql");
    AnalystCommand<?> notebook = (AnalystCommand<?>) run.subcommand().commandSpec().userObject();
    assertThat(notebook.effectiveOptions().configFile())
        .isEqualTo(Optional.of(Path.of("own.conf")));
    assertThat(notebook.effectiveOptions().overrides()).containsExactly("a=1");
  }
}

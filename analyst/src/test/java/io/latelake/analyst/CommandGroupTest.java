package io.latelake.analyst;

import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.core.cli.Launcher;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
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

  /**
   * A local lake.root that does not exist: one line, exit 2, before any Spark work, and the folder
   * is not created (no metastore appears there).
   */
  @Test
  void aLakeFolderThatDoesNotExistIsAUsageErrorAndIsNotCreated(
      @org.junit.jupiter.api.io.TempDir Path tmp) {
    Path missing = tmp.resolve("no-such-lake");
    String set = "lake.root=\"" + missing + "\"";
    String expected =
        "latelake: Cannot open the lake at "
            + missing
            + ": the folder does not exist (lake.root); give the lake's folder with --set"
            + " lake.root=<folder> (the demo prints the folder it wrote)\n";
    StringWriter sql = new StringWriter();
    assertThat(
            Launcher.execute(
                new SqlMain(),
                new PrintWriter(new StringWriter()),
                new PrintWriter(sql),
                "--set",
                set,
                "SELECT 1"))
        .isEqualTo(2);
    StringWriter register = new StringWriter();
    assertThat(
            Launcher.execute(
                new CatalogMain(),
                new PrintWriter(new StringWriter()),
                new PrintWriter(register),
                "register",
                "--set",
                set))
        .isEqualTo(2);

    assertThat(List.of(sql.toString(), register.toString())).containsOnly(expected);
    assertThat(missing).doesNotExist();
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

package io.latelake.analyst;

import com.typesafe.config.Config;
import io.latelake.core.ExitCode;
import io.latelake.core.catalog.CatalogConfig;
import io.latelake.core.cli.Launcher;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.job.JobContext;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code latelake notebook run notebooks/<name>.sql [--param key=value ...]}: runs a notebook's
 * cells in order against the catalog ({@link NotebookRunner}) and writes an HTML page ({@code
 * --output}, default {@code <lake.root>/reports/notebooks/<name>.html}). spark-submit entry point:
 * {@code --class io.latelake.analyst.NotebookMain ... run FILE}. Cells are read-only as {@code
 * latelake sql} ({@link ReadOnlyGuard}, Delta tables read by path only under {@code lake.root}).
 * Exit codes: 0 every cell ran, 1 a cell failed or was refused (the page shows its error), 2 bad
 * usage (no such file, not a notebook, an undeclared parameter).
 */
@Command(
    name = "notebook",
    mixinStandardHelpOptions = true,
    description = "Run analyst notebooks (Databricks source format) against the catalog.",
    subcommands = NotebookMain.Run.class)
public final class NotebookMain extends CommandGroup {
  public static void main(String[] args) {
    System.exit(Launcher.execute(new NotebookMain(), args));
  }

  record Prepared(Notebook notebook, Map<String, String> params, Path output) {}

  /** {@code notebook run}. */
  @Command(
      name = "run",
      mixinStandardHelpOptions = true,
      description = "Run a notebook's cells in order and write an HTML page.")
  static final class Run extends AnalystCommand<Prepared> {
    @Parameters(index = "0", paramLabel = "NOTEBOOK", description = "notebooks/<name>.sql")
    Path file;

    @Option(
        names = "--param",
        paramLabel = "KEY=VALUE",
        description = "A widget value, bound to :KEY. Repeatable.")
    Map<String, String> params = new LinkedHashMap<>();

    @Option(
        names = "--output",
        paramLabel = "FILE",
        description = "HTML page to write (default <lake.root>/reports/notebooks/<name>.html).")
    Path output;

    @Option(
        names = "--max-rows",
        defaultValue = "1000",
        paramLabel = "N",
        description = "Rows shown per cell. Default: ${DEFAULT-VALUE}.")
    int maxRows;

    @Spec CommandSpec spec;

    @Override
    String appName() {
      return "latelake-notebook";
    }

    @Override
    Prepared prepare(Config config) {
      CatalogConfig.fromConfig(config);
      if (maxRows < 1 || maxRows > 1_000_000) {
        throw LakeConfigException.invalid("--max-rows", maxRows, "must be between 1 and 1000000");
      }
      String source;
      try {
        source = Files.readString(file);
      } catch (NoSuchFileException e) {
        throw LakeConfigException.invalid("NOTEBOOK", file, "no such file");
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read " + file, e);
      }
      String name = file.getFileName().toString().replaceFirst("\\.sql$", "");
      Notebook nb = Notebook.parse(name, source);
      Path out =
          output != null
              ? output
              : Path.of(
                  io.latelake.core.table.TableRegistry.fromConfig(config).root(),
                  "reports",
                  "notebooks",
                  name + ".html");
      return new Prepared(nb, params, out);
    }

    @Override
    ExitCode run(JobContext context, Config config, Prepared p) {
      ReadOnlyGuard guard = ReadOnlyGuard.forLake(context.spark(), context.tables().root());
      NotebookAction.Result r =
          new NotebookAction(
                  context,
                  new NotebookAction.Options(p.notebook(), p.params(), p.output(), maxRows, guard))
              .run();
      PrintWriter out = spec.commandLine().getOut();
      out.println(r.summary());
      r.run().cells().stream()
          .filter(c -> c.error().isPresent())
          .forEach(c -> out.println("  failed: " + c.error().get()));
      out.flush();
      return r.exitCode();
    }
  }

  /** Writes the page, creating its folder. */
  static void write(Path file, String html) {
    try {
      if (file.toAbsolutePath().getParent() != null) {
        Files.createDirectories(file.toAbsolutePath().getParent());
      }
      Files.writeString(file, html);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + file, e);
    }
  }
}

package io.latelake.analyst;

import com.typesafe.config.Config;
import io.latelake.core.ExitCode;
import io.latelake.core.cli.ConfigOptions;
import io.latelake.core.config.ConfigLoader;
import io.latelake.core.job.JobContext;
import io.latelake.core.table.TableRegistry;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParentCommand;

/**
 * The shape of the analyst commands' {@code main}, as {@code JobCommand} with the catalog session
 * of {@link AnalystSessions}: arguments → config → validated options (before any Spark work) →
 * session → run → exit code; the session is always stopped. Unlike the jobs, the effective
 * configuration is logged at DEBUG only: results go to standard output, standard error stays quiet.
 *
 * @param <T> the command's validated options
 */
abstract class AnalystCommand<T> implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(AnalystCommand.class);

  @Mixin ConfigOptions options = new ConfigOptions();

  abstract String appName();

  /** Validates config and options. Must not touch Spark. */
  abstract T prepare(Config config);

  /**
   * Runs the command's batch action ({@link io.latelake.core.job.BatchAction}: run id, Spark job
   * descriptions, result record) in a context on the lake of {@code lake.root}.
   */
  abstract ExitCode run(JobContext context, Config config, T prepared);

  /**
   * The command this one is a subcommand of: a {@link CommandGroup} ({@code catalog}, {@code
   * notebook}) whose options it takes, or the {@code latelake} CLI (for {@code sql}); else null.
   */
  @ParentCommand Object parent;

  /**
   * @return the options given to the parent command ({@code catalog --config F register}), if any:
   *     the launcher puts {@code --config} right after the first word
   */
  ConfigOptions parentOptions() {
    return parent instanceof CommandGroup group ? group.options : null;
  }

  /**
   * @return own options over the parent's: own file if given, parent's overrides first
   */
  ConfigOptions effectiveOptions() {
    ConfigOptions parent = parentOptions();
    if (parent == null) {
      return options;
    }
    java.util.List<String> overrides = new java.util.ArrayList<>(parent.overrides());
    overrides.addAll(options.overrides());
    return new ConfigOptions(options.configFile().or(parent::configFile).orElse(null), overrides);
  }

  /**
   * Every analyst command reads a lake: a local {@code lake.root} that does not exist is a usage
   * error before any Spark work, so nothing (the local metastore included) is created there.
   *
   * @throws io.latelake.core.config.LakeConfigException (exit 2) when the local folder is missing
   */
  static void requireLocalLake(String root) {
    java.util.Optional<java.nio.file.Path> dir =
        io.latelake.core.catalog.CatalogSessions.localFolder(root);
    if (dir.isPresent() && !java.nio.file.Files.isDirectory(dir.get())) {
      throw new io.latelake.core.config.LakeConfigException(
          "Cannot open the lake at "
              + dir.get()
              + ": the folder does not exist (lake.root); give the lake's folder with --set"
              + " lake.root=<folder> (the demo prints the folder it wrote)");
    }
  }

  @Override
  public final Integer call() {
    Config config = effectiveOptions().load();
    T prepared = prepare(config);
    requireLocalLake(TableRegistry.fromConfig(config).root());
    // Interactive tools: stdout holds the result, stderr stays quiet; the configuration is there
    // at DEBUG (logger io.latelake.analyst) when asked for.
    if (LOG.isDebugEnabled()) {
      LOG.debug("Effective configuration:\n{}", ConfigLoader.describe(config));
    }
    SparkSession spark = AnalystSessions.create(appName(), config);
    try {
      return run(JobContext.start(spark, TableRegistry.fromConfig(config)), config, prepared)
          .code();
    } finally {
      spark.stop();
    }
  }
}

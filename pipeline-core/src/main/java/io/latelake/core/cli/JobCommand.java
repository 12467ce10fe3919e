package io.latelake.core.cli;

import com.typesafe.config.Config;
import io.latelake.core.ExitCode;
import io.latelake.core.config.ConfigLoader;
import io.latelake.core.spark.SparkSessions;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Mixin;

/**
 * The shape of every job's {@code main}: arguments → config → typed, validated job config (before
 * any Spark work) → SparkSession → run → exit code; the session is always stopped.
 *
 * @param <T> the job's typed config
 */
public abstract class JobCommand<T> implements Callable<Integer> {
  @Mixin
  protected ConfigOptions options = new ConfigOptions();

  /** @return the Spark application name */
  protected abstract String appName();

  /**
   * Validates the config for this job. Must not touch Spark.
   *
   * @throws io.latelake.core.config.LakeConfigException on any problem
   */
  protected abstract T prepare(Config config);

  /** Runs the job on a live session. */
  protected abstract ExitCode run(SparkSession spark, Config config, T prepared);

  @Override
  public final Integer call() {
    Config config = options.load();
    T prepared = prepare(config);
    ConfigLoader.logEffective(config);
    SparkSession spark = SparkSessions.create(appName(), config);
    try {
      return run(spark, config, prepared).code();
    } finally {
      // On SIGTERM Spark's own shutdown hook stops the session, after the streams' graceful stop
      // (see StreamRunner); stopping it here as well could cut that stop short.
      if (!org.apache.hadoop.util.ShutdownHookManager.get().isShutdownInProgress()) {
        spark.stop();
      }
    }
  }
}

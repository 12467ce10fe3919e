package io.latelake.core.cli;

import com.typesafe.config.Config;
import io.latelake.core.ExitCode;
import io.latelake.core.catalog.CatalogConfig;
import io.latelake.core.catalog.CatalogSessions;
import io.latelake.core.catalog.JobCatalog;
import io.latelake.core.config.ConfigLoader;
import io.latelake.core.job.JobContext;
import io.latelake.core.metrics.Pushgateway;
import io.latelake.core.metrics.RunFigures;
import io.latelake.core.metrics.StreamMetrics;
import io.latelake.core.spark.SparkSessions;
import io.latelake.core.table.TableRegistry;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * The shape of every job's {@code main}: arguments → config → the lake's tables and the typed,
 * validated job config (everything checked before any SparkSession exists) → SparkSession → {@link
 * JobContext} → run → exit code; the session is always stopped. {@code run} never sees the raw
 * {@link Config}: whatever it needs is in the typed config or the context. With {@code
 * lake.catalog.enabled} the session gets the lake's catalog ({@link CatalogSessions}) and the
 * tables the job creates are registered by name ({@link JobCatalog}: before the run, as each
 * streaming query starts, after the run).
 *
 * @param <T> the job's typed config
 */
public abstract class JobCommand<T> implements Callable<Integer> {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(JobCommand.class);

  @Mixin protected ConfigOptions options = new ConfigOptions();

  /**
   * @return the Spark application name: {@code latelake-<command name>} (the {@link Command}
   *     annotation's name)
   */
  protected String appName() {
    return "latelake-" + getClass().getAnnotation(Command.class).name();
  }

  /**
   * Validates everything this job reads from the config (and its options) into its typed config.
   * Runs before any SparkSession exists and must not touch Spark.
   *
   * @throws io.latelake.core.config.LakeConfigException on any problem (exit 2)
   */
  protected abstract T prepare(Config config);

  /** Runs the job on a live session. */
  protected abstract ExitCode run(JobContext context, T prepared);

  /**
   * @return true for a command whose own shutdown hook stops it on SIGTERM (the streams': {@code
   *     io.latelake.core.streaming.StreamRunner}); false (the default) gives a batch command {@link
   *     BatchStop}: its Spark jobs cancelled, one log line
   */
  protected boolean stopsItselfOnSigterm() {
    return false;
  }

  private final RunFigures figures = new RunFigures();

  private boolean pushing;

  /**
   * @return true when this run's figures will be pushed ({@code lake.metrics.pushgateway} is set):
   *     figures that cost a Spark job are worked out only then
   */
  protected final boolean pushing() {
    return pushing;
  }

  /**
   * @return the figures this run reports to a Pushgateway ({@link Pushgateway}, when {@code
   *     lake.metrics.pushgateway} is set); {@link #run} adds to them
   */
  protected final RunFigures figures() {
    return figures;
  }

  /** The run's clock; tests override it. */
  protected Clock clock() {
    return Clock.systemUTC();
  }

  @Override
  public final Integer call() {
    // first: a SIGTERM while the config loads or the session starts is a stop too
    Optional<BatchStop> stop =
        stopsItselfOnSigterm() ? Optional.empty() : Optional.of(new BatchStop(appName()));
    Optional<Pushgateway> push = Optional.empty();
    SparkSession spark = null;
    Optional<StreamMetrics> metrics = Optional.empty();
    Optional<JobCatalog> registration = Optional.empty();
    long started = System.nanoTime();
    int exit = ExitCode.RUNTIME_FAILURE.code();
    try {
      Config config = options.load();
      TableRegistry tables = TableRegistry.fromConfig(config);
      T prepared = prepare(config);
      push = Pushgateway.fromConfig(config);
      pushing = push.isPresent();
      Optional<io.latelake.core.metrics.StreamMetricsPlan> metricsPlan =
          StreamMetrics.enabled(config)
              ? Optional.of(io.latelake.core.metrics.StreamMetricsPlan.fromConfig(config))
              : Optional.empty();
      CatalogConfig catalog = CatalogConfig.fromConfig(config);
      ConfigLoader.logEffective(config);
      long starting = System.nanoTime();
      spark =
          SparkSessions.create(
              appName(), catalog.registeredByJobs() ? CatalogSessions.withCatalog(config) : config);
      started = System.nanoTime();
      LOG.info(
          "{}: Spark {} session on {} started in {} s",
          appName(),
          spark.version(),
          spark.sparkContext().master(),
          String.format(java.util.Locale.ROOT, "%.1f", (started - starting) / 1e9));
      SparkSession session = spark;
      stop.ifPresent(s -> s.attach(session.sparkContext()));
      metrics = metricsPlan.map(p -> StreamMetrics.install(session, p));
      registration = JobCatalog.start(session, catalog);
      ExitCode code = run(JobContext.start(session, tables, clock()), prepared);
      if (!org.apache.hadoop.util.ShutdownHookManager.get().isShutdownInProgress()) {
        registration.ifPresent(JobCatalog::register);
      }
      exit = code.code();
      return exit;
    } catch (RuntimeException e) {
      // the exit code Launcher will give it: the first LatelakeException in the cause chain, else 1
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof io.latelake.core.LatelakeException l) {
          exit = l.exitCode().code();
          break;
        }
      }
      throw e;
    } finally {
      // first: once the command has ended, an exit's shutdown is not a stop
      stop.ifPresent(BatchStop::ended);
      int code = exit;
      long tookNanos = System.nanoTime() - started;
      // a stream stopped by SIGTERM: the JVM is exiting (143); no push races its halt
      boolean stopping = org.apache.hadoop.util.ShutdownHookManager.get().isShutdownInProgress();
      push.filter(p -> !stopping)
          .ifPresent(
              p ->
                  p.push(
                      appName(),
                      code,
                      java.time.Duration.ofNanos(tookNanos),
                      clock().instant(),
                      figures));
      registration.ifPresent(JobCatalog::close);
      metrics.ifPresent(m -> m.stopReading());
      // On SIGTERM Spark's own shutdown hook stops the session, after the streams' graceful stop
      // (see StreamRunner); stopping it here as well could cut that stop short.
      if (spark != null
          && !org.apache.hadoop.util.ShutdownHookManager.get().isShutdownInProgress()) {
        SparkSessions.stop(spark);
      }
    }
  }
}

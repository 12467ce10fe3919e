package io.latelake.app;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.util.ShutdownHookManager;
import org.apache.spark.SparkContext;

/**
 * The stop of {@code latelake demo} on SIGTERM or SIGINT: a shutdown hook registered with Hadoop's
 * {@link ShutdownHookManager} at priority {@value #SHUTDOWN_HOOK_PRIORITY}, so it runs after the
 * streams' own stop (priority 100: each running stage's queries stop after their micro-batch and
 * their progress rows are written) and before Spark stops its context (priority 40 and below). It
 * keeps Spark up until the demo has ended (at most {@link #WAIT}): the step that was running ends,
 * its progress rows are written and the demo prints one line saying it stopped. After the stream
 * (the report, {@code correct}, the profile) it also cancels the demo's Spark jobs, as a batch
 * command's stop does, and silences Spark's and Delta's loggers, whose lines would only report the
 * cancellation.
 */
final class DemoStop implements AutoCloseable {
  /** Hadoop shutdown hook priority: below the streams' stop (100), above Spark's (40 and below). */
  static final int SHUTDOWN_HOOK_PRIORITY = 90;

  /** How long the hook waits for the demo to end. */
  static final Duration WAIT = Duration.ofSeconds(90);

  private static final Duration CANCEL_EVERY = Duration.ofMillis(200);

  private final CountDownLatch ended = new CountDownLatch(1);
  private final Runnable hook;

  /** The session whose jobs a stop cancels: set once the stream has ended. */
  private volatile SparkContext batchJobs;

  /** Registers the hook. */
  DemoStop() {
    hook =
        () -> {
          long deadline = System.nanoTime() + WAIT.toNanos();
          try {
            boolean quieted = false;
            do {
              SparkContext sc = batchJobs;
              if (sc != null && !sc.isStopped()) {
                if (!quieted) {
                  for (String logger : List.of("org.apache", "io.delta")) {
                    org.apache.logging.log4j.core.config.Configurator.setAllLevels(
                        logger, org.apache.logging.log4j.Level.OFF);
                  }
                  quieted = true;
                }
                sc.cancelAllJobs();
              }
            } while (!ended.await(CANCEL_EVERY.toMillis(), TimeUnit.MILLISECONDS)
                && System.nanoTime() < deadline);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        };
    ShutdownHookManager.get()
        .addShutdownHook(
            hook, SHUTDOWN_HOOK_PRIORITY, WAIT.plusSeconds(10).toSeconds(), TimeUnit.SECONDS);
  }

  /**
   * @param sc the session of the demo's batch steps, whose jobs a stop from now on cancels
   */
  void batchPhase(SparkContext sc) {
    batchJobs = sc;
  }

  /** The demo has ended (by itself or by the stop): the hook no longer waits. */
  @Override
  public void close() {
    ended.countDown();
    try {
      ShutdownHookManager.get().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // shutting down: the hook sees the demo has ended
    }
  }
}

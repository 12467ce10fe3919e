package io.latelake.core.cli;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.util.ShutdownHookManager;
import org.apache.spark.SparkContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stop on SIGTERM of a batch command ({@code correct}, {@code profile}, {@code audit}, ...): a
 * shutdown hook registered with Hadoop's {@link ShutdownHookManager} at priority {@value
 * #SHUTDOWN_HOOK_PRIORITY}, so it runs before Spark stops its context (priority 40 and below). It
 * logs one INFO line (naming SIGTERM, SIGINT or SIGHUP, or saying the JVM exits without one),
 * cancels the command's Spark jobs (again every {@link #CANCEL_EVERY} until the command has ended,
 * so no later step starts one) and waits up to {@link #WAIT} for the command to end; {@link
 * Launcher} then leaves the failure the cancellation caused at DEBUG. The JVM exits with 128 + the
 * signal's number: 143 for SIGTERM, 130 for SIGINT.
 *
 * <p>What a stopped run leaves: every Delta commit is atomic, so each table holds its last commit
 * from before the stop or the one the stop did not interrupt. The batch commands are written to be
 * run again after a failure at any point (for {@code correct}: its log before gold, its state
 * last), which is what to do after a SIGTERM.
 *
 * <p>{@link #afterStreams} is the same stop for a command that first runs streams in its session
 * and then batch steps ({@code latelake demo}): it runs after the streams' own stop (priority 100,
 * each running query ends its micro-batch and its progress rows are written) and before Spark's,
 * keeps Spark up until the command has ended, cancels jobs only once {@link #attach} names the
 * session of the batch steps, and logs nothing (the command prints its own line).
 */
public final class BatchStop {
  private static final Logger LOG = LoggerFactory.getLogger(BatchStop.class);

  /** Hadoop shutdown hook priority: above Spark's (40 and below). */
  static final int SHUTDOWN_HOOK_PRIORITY = 100;

  /** How long the hook waits for the command to end after cancelling its jobs. */
  static final Duration WAIT = Duration.ofSeconds(30);

  private static final Duration CANCEL_EVERY = Duration.ofMillis(200);

  /** Set once a hook of this JVM has begun a stop. */
  private static final AtomicBoolean STOPPED = new AtomicBoolean();

  /** {@link #afterStreams}' hook priority: below the streams' stop (100), above Spark's (40). */
  static final int AFTER_STREAMS_PRIORITY = 90;

  /** How long {@link #afterStreams}' hook waits: the streams' running micro-batches end first. */
  static final Duration AFTER_STREAMS_WAIT = Duration.ofSeconds(90);

  private final CountDownLatch ended = new CountDownLatch(1);
  private final Runnable hook;

  /** The session's context once it exists; before that a stop has no Spark job to cancel. */
  private volatile SparkContext context;

  /**
   * Registers the hook, before the command loads its config or starts its session: a SIGTERM that
   * comes before {@link #attach} logs its line too.
   *
   * @param command the command's name, in the log line
   */
  BatchStop(String command) {
    hook =
        () -> {
          if (ended.getCount() == 0) {
            return; // the command had ended: an exit, not a stop
          }
          STOPPED.set(true);
          quietCancelledTasks();
          String why =
              SIGNAL.get() == null
                  ? " (the JVM is exiting without a SIGTERM, SIGINT or SIGHUP, e.g. System.exit)"
                  : " on " + SIGNAL.get();
          SparkContext sc = context;
          if (sc == null) {
            // A session started from now on fails at once: Spark cannot add its shutdown hook
            // while the JVM shuts down.
            LOG.info(
                "{} stopping{} before its Spark session started: nothing was written",
                command,
                why);
            return;
          }
          LOG.info(
              "{} stopping{}: its running Spark jobs are cancelled; each table keeps its"
                  + " last complete commit; run it again to finish its work",
              command,
              why);
          if (!cancelUntilEnded(System.nanoTime() + WAIT.toNanos())) {
            LOG.warn(
                "{} did not end within {} s of its stop; Spark's own shutdown stops it now",
                command,
                WAIT.toSeconds());
          }
        };
    watchSignals();
    ShutdownHookManager.get()
        .addShutdownHook(hook, SHUTDOWN_HOOK_PRIORITY, WAIT.toSeconds() + 10, TimeUnit.SECONDS);
  }

  /** {@link #afterStreams}' stop: waits for the command, cancelling once a session is attached. */
  private BatchStop() {
    hook =
        () -> {
          if (ended.getCount() == 0) {
            return; // the command had ended: an exit, not a stop
          }
          STOPPED.set(true);
          cancelUntilEnded(System.nanoTime() + AFTER_STREAMS_WAIT.toNanos());
        };
    watchSignals();
    ShutdownHookManager.get()
        .addShutdownHook(
            hook, AFTER_STREAMS_PRIORITY, AFTER_STREAMS_WAIT.toSeconds() + 10, TimeUnit.SECONDS);
  }

  /**
   * The stop of a command that runs streams and then batch steps in one session ({@code latelake
   * demo}; see the class comment). Call {@link #attach} when the streams have ended and {@link
   * #ended} when the command has.
   *
   * @return the registered stop
   */
  public static BatchStop afterStreams() {
    return new BatchStop();
  }

  /**
   * Cancels the attached session's jobs (again every {@link #CANCEL_EVERY}, so no later step starts
   * one; silencing Spark's and Delta's loggers with the first) until the command has ended or the
   * deadline passed, then waits, up to the same deadline, for the killed tasks to end.
   *
   * @param deadline {@link System#nanoTime} after which the hook returns
   * @return true when the command ended by the deadline
   */
  private boolean cancelUntilEnded(long deadline) {
    SparkContext sc = null;
    try {
      do {
        SparkContext attached = context;
        if (attached != null && !attached.isStopped()) {
          if (sc == null) {
            quietCancelledTasks();
          }
          sc = attached;
          sc.cancelAllJobs();
        }
      } while (!ended.await(CANCEL_EVERY.toMillis(), TimeUnit.MILLISECONDS)
          && System.nanoTime() < deadline);
      // Killed tasks end at their next check: Spark's hook, next, removes the blocks they may
      // still read.
      while (sc != null
          && !sc.isStopped()
          && runningTasks(sc) > 0
          && System.nanoTime() < deadline) {
        Thread.sleep(CANCEL_EVERY.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.debug("Cancelling the jobs on SIGTERM failed", e);
    }
    return ended.getCount() == 0;
  }

  /**
   * The first of SIGTERM, SIGINT and SIGHUP this JVM received, e.g. {@code SIGTERM}; null before.
   */
  private static final AtomicReference<String> SIGNAL = new AtomicReference<>();

  private static final AtomicBoolean WATCHING = new AtomicBoolean();

  /**
   * Chains a handler on SIGTERM, SIGINT and SIGHUP that notes the signal and then calls the JVM's
   * own (which starts the shutdown, exit 128 + the signal's number), so that the stop line says
   * what stopped the command. A signal the JVM does not handle itself (ignored, as SIGINT is for a
   * background job of a script, or {@code -Xrs}) is left alone.
   */
  @SuppressWarnings("removal")
  static void watchSignals() {
    if (!WATCHING.compareAndSet(false, true)) {
      return;
    }
    for (String name : java.util.List.of("TERM", "INT", "HUP")) {
      try {
        sun.misc.Signal signal = new sun.misc.Signal(name);
        sun.misc.SignalHandler[] previous = new sun.misc.SignalHandler[1];
        previous[0] =
            sun.misc.Signal.handle(
                signal,
                s -> {
                  SIGNAL.compareAndSet(null, "SIG" + name);
                  sun.misc.SignalHandler jvm = previous[0];
                  if (jvm == null) {
                    System.exit(128 + s.getNumber()); // as the JVM's own handler does
                  } else {
                    jvm.handle(s);
                  }
                });
        if (previous[0] == sun.misc.SignalHandler.SIG_DFL
            || previous[0] == sun.misc.SignalHandler.SIG_IGN) {
          sun.misc.Signal.handle(signal, previous[0]); // not the JVM's handler: left as it was
        }
      } catch (IllegalArgumentException | UnsupportedOperationException e) {
        LOG.debug("SIG{} is not watched: {}", name, e.getMessage());
      }
    }
  }

  /**
   * @param sc the command's session context, whose jobs a stop from now on cancels
   */
  public void attach(SparkContext sc) {
    context = sc;
  }

  private static int runningTasks(SparkContext sc) {
    int n = 0;
    for (var e : sc.statusTracker().getExecutorInfos()) {
      n += e.numRunningTasks();
    }
    return n;
  }

  /**
   * Silences Spark, Delta, Parquet and Hadoop ({@code org.apache}, {@code io.delta}) for the rest
   * of the JVM's life, unless DEBUG is on for this class: each cancelled task, MERGE and block
   * fetch logs its cancellation at WARN or ERROR, with a trace, and so does the scheduler once
   * Spark's own hook has stopped the context under tasks still ending. The JVM is exiting on
   * request; those lines report only the stop.
   */
  private static void quietCancelledTasks() {
    if (LOG.isDebugEnabled()) {
      return;
    }
    for (String logger : java.util.List.of("org.apache", "io.delta")) {
      org.apache.logging.log4j.core.config.Configurator.setAllLevels(
          logger, org.apache.logging.log4j.Level.OFF);
    }
  }

  /** The command has ended (by itself or by the stop): the hook no longer waits for it. */
  public void ended() {
    ended.countDown();
    try {
      ShutdownHookManager.get().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // shutting down: the hook sees the command has ended
    }
  }

  /**
   * @return true once SIGTERM has stopped a batch command of this JVM: what the command then throws
   *     is the stop's consequence
   */
  static boolean stopped() {
    return STOPPED.get();
  }

  /**
   * @return true once this JVM received SIGTERM, SIGINT or SIGHUP (watched since {@link
   *     #watchSignals})
   */
  static boolean signalled() {
    return SIGNAL.get() != null;
  }
}

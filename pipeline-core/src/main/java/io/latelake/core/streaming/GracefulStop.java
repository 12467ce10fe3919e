package io.latelake.core.streaming;

import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.hadoop.util.ShutdownHookManager;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stop on SIGTERM of a {@link StreamRunner} run: a shutdown hook registered with Hadoop's
 * {@link ShutdownHookManager} at priority {@value #SHUTDOWN_HOOK_PRIORITY} (Spark stops its context
 * from the same manager at priority 40 and below, so this hook runs first) waits for the running
 * micro-batch of each query to finish (at most {@link #STOP_GRACE}, 60 s), stops the queries, has
 * the last progress rows written and only then lets Spark stop the session. Nothing is logged at
 * ERROR; the JVM exits with 143 (128 + SIGTERM), the exit status every scheduler reads as
 * "terminated on request".
 */
final class GracefulStop {
  private static final Logger LOG = LoggerFactory.getLogger(GracefulStop.class);

  /** Hadoop shutdown hook priority of the graceful stop: above Spark's (40 and below). */
  static final int SHUTDOWN_HOOK_PRIORITY = 100;

  /** How long SIGTERM waits for a running micro-batch to finish before interrupting it. */
  static final Duration STOP_GRACE = Duration.ofSeconds(60);

  /** How long the whole graceful stop may take before Hadoop moves on to Spark's hook. */
  private static final Duration HOOK_TIMEOUT = STOP_GRACE.plusMinutes(3);

  private final AtomicBoolean requested = new AtomicBoolean();
  private final CountDownLatch done = new CountDownLatch(1);
  private final Runnable hook;

  /**
   * Registers the hook.
   *
   * @param running the queries running now (read when the stop comes)
   * @param afterStop given the queries it stopped, writes their last progress rows
   */
  GracefulStop(Supplier<List<StreamingQuery>> running, Consumer<List<StreamingQuery>> afterStop) {
    hook =
        () -> {
          requested.set(true);
          try {
            List<StreamingQuery> active = running.get();
            List<String> names = active.stream().map(StreamingQuery::name).toList();
            LOG.info("Stop requested: stopping {} after their running micro-batch", names);
            stopBetweenBatches(active);
            afterStop.accept(active);
          } catch (RuntimeException e) {
            LOG.warn("Graceful stop incomplete: {}", e.toString());
          } finally {
            done.countDown();
          }
        };
    ShutdownHookManager.get()
        .addShutdownHook(hook, SHUTDOWN_HOOK_PRIORITY, HOOK_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
  }

  /**
   * @return true once a stop was requested (SIGTERM)
   */
  boolean requested() {
    return requested.get();
  }

  /** Waits until the requested stop has completed (at most the hook's timeout). */
  void awaitDone() {
    try {
      done.await(HOOK_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Removes the hook after the run ended by itself; a no-op while the JVM shuts down. */
  void unregister() {
    try {
      ShutdownHookManager.get().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // shutting down: the hook stops the queries and writes the progress
    }
  }

  /**
   * Stops each query as soon as it is between two micro-batches, or as soon as the micro-batch it
   * was running when the stop came has completed: a query whose micro-batches run back to back
   * (each longer than its trigger interval) is never seen idle, so it is stopped right after that
   * micro-batch, interrupting the next one at its start (that one is replayed on the next start).
   * After {@link #STOP_GRACE} the rest are stopped mid-batch.
   */
  private static void stopBetweenBatches(List<StreamingQuery> queries) {
    List<StreamingQuery> left = new ArrayList<>(queries);
    Map<StreamingQuery, Long> running = new IdentityHashMap<>();
    for (StreamingQuery q : queries) {
      running.put(q, lastBatchId(q));
    }
    long deadline = System.nanoTime() + STOP_GRACE.toNanos();
    while (!left.isEmpty() && System.nanoTime() < deadline) {
      for (var it = left.iterator(); it.hasNext(); ) {
        StreamingQuery q = it.next();
        if (!q.isActive() || !q.status().isTriggerActive()) {
          StreamRunner.stopQuietly(q);
          it.remove();
        } else if (lastBatchId(q) > running.get(q)) {
          quietInterruptedWriters();
          StreamRunner.stopQuietly(q);
          it.remove();
        }
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    if (!left.isEmpty()) {
      quietInterruptedWriters();
    }
    for (StreamingQuery q : left) {
      LOG.info(
          "[{}] still in a micro-batch after {} s: stopping it now; the micro-batch is "
              + "replayed on the next start",
          q.name(),
          STOP_GRACE.toSeconds());
      StreamRunner.stopQuietly(q);
    }
  }

  /**
   * A micro-batch that the stop interrupts makes Spark's and Delta's file writers log "Aborting
   * job" at ERROR with an {@code InterruptedException}, and Spark's broadcast "Store broadcast ...
   * fail" when the interrupt comes while it stores a broadcast, although nothing failed: the batch
   * was not committed and is replayed on the next start. The JVM is shutting down, so these loggers
   * are silenced for the rest of its life; a real write failure before this point still fails the
   * query and is reported by {@link StreamRunner#run}.
   */
  private static void quietInterruptedWriters() {
    for (String logger :
        List.of(
            "org.apache.spark.broadcast.TorrentBroadcast",
            "org.apache.spark.sql.delta.files.DeltaFileFormatWriter",
            "org.apache.spark.sql.execution.datasources.FileFormatWriter",
            "org.apache.spark.sql.execution.streaming.runtime.MicroBatchExecution",
            "org.apache.spark.sql.execution.streaming.MicroBatchExecution")) {
      org.apache.logging.log4j.core.config.Configurator.setLevel(
          logger, org.apache.logging.log4j.Level.OFF);
    }
  }

  /**
   * @return the id of the query's last completed micro-batch, -1 before the first
   */
  private static long lastBatchId(StreamingQuery q) {
    StreamingQueryProgress p = q.lastProgress();
    return p == null ? -1 : p.batchId();
  }
}

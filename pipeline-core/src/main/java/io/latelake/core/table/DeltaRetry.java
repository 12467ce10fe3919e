package io.latelake.core.table;

import io.delta.exceptions.DeltaConcurrentModificationException;
import java.time.Duration;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retries a Delta commit that lost to a concurrent commit ({@code ConcurrentAppendException},
 * {@code ConcurrentDeleteReadException}, ... — any {@link
 * io.delta.exceptions.DeltaConcurrentModificationException} or its Spark-side base class anywhere
 * in the cause chain), with a bounded, logged exponential backoff. The action must be idempotent (a
 * MERGE on keys, a replaceWhere, a txnAppId/txnVersion write). Delta's own ERROR lines about a
 * conflict this class handles are dropped from the log ({@link HandledConflictFilter}). {@link
 * #runRetryingAny} retries every failure the same way, for a write whose failure may be transient
 * (the progress rows of {@code monitoring.stream_progress}).
 */
public final class DeltaRetry {
  private static final Logger LOG = LoggerFactory.getLogger(DeltaRetry.class);

  static {
    HandledConflictFilter.install();
  }

  private DeltaRetry() {}

  /**
   * @param label what is committed, for the log
   * @param maxAttempts attempts in all (at least 1)
   * @param backoff wait before the first retry; doubles after each further conflict
   * @param action the commit
   * @return the action's result
   * @throws StorageException (exit code 1) when every attempt lost to a concurrent commit; any
   *     other exception of the action is rethrown as is
   */
  public static <T> T run(String label, int maxAttempts, Duration backoff, Supplier<T> action) {
    long wait = Math.max(1, backoff.toMillis());
    for (int attempt = 1; ; attempt++) {
      try {
        return action.get();
      } catch (RuntimeException e) {
        if (!isConflict(e)) {
          throw e;
        }
        if (attempt >= maxAttempts) {
          throw new StorageException(
              "Cannot commit "
                  + label
                  + ": lost to a concurrent commit "
                  + attempt
                  + " times (lake.correction.max-commit-attempts = "
                  + maxAttempts
                  + "): "
                  + e.getMessage(),
              e);
        }
        wait = pause(label, "concurrent Delta commit", e, attempt, maxAttempts, wait);
      }
    }
  }

  /**
   * As {@link #run(String, int, Duration, Supplier)}, retrying every failure, not only conflicts:
   * for a write whose failure may be transient (storage, a lost executor) and that the caller makes
   * idempotent (e.g. it drops on a retry what an earlier attempt committed before failing).
   *
   * @throws StorageException (exit code 1) when every attempt failed, with the last failure as its
   *     cause
   */
  public static <T> T runRetryingAny(
      String label, int maxAttempts, Duration backoff, Supplier<T> action) {
    long wait = Math.max(1, backoff.toMillis());
    for (int attempt = 1; ; attempt++) {
      try {
        return action.get();
      } catch (Exception e) { // Spark's SparkException is checked in Java but thrown anyway
        if (attempt >= maxAttempts) {
          throw new StorageException(
              "Cannot write " + label + ": failed " + attempt + " times: " + e.getMessage(), e);
        }
        wait = pause(label, "failed", e, attempt, maxAttempts, wait);
      }
    }
  }

  /** Logs the retry, waits {@code wait} ms and returns the next wait (doubled). */
  private static long pause(
      String label, String what, Exception e, int attempt, int maxAttempts, long wait) {
    LOG.warn(
        "{}: {} ({}), attempt {}/{}, retrying in {} ms",
        label,
        what,
        e.getClass().getSimpleName(),
        attempt,
        maxAttempts,
        wait);
    try {
      Thread.sleep(wait);
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      throw new StorageException("Interrupted while retrying " + label, ie);
    }
    return wait * 2;
  }

  /**
   * @return true when {@code e} or one of its causes is a Delta concurrent-commit conflict
   */
  public static boolean isConflict(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof DeltaConcurrentModificationException
          || t instanceof org.apache.spark.sql.delta.DeltaConcurrentModificationException) {
        return true;
      }
    }
    return false;
  }
}

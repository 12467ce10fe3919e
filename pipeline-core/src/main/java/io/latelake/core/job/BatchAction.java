package io.latelake.core.job;

import io.latelake.core.table.TableRegistry;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A batch action, in the manner of Iceberg's Spark actions: built from the run's {@link JobContext}
 * and its validated options, one {@link #run()} that returns an immutable result record. Each step
 * runs under a Spark job description ({@code <run id>: <step>}), so the Spark UI shows which step a
 * job belongs to. The correction path's actions, the profiler's, {@code backfill} and the analyst
 * commands' ({@code sql}, {@code notebook run}, {@code catalog register}) are actions.
 *
 * @param <O> the validated options
 * @param <R> the result record: its summary, figures and exit code ({@link ActionResult})
 */
public abstract class BatchAction<O, R extends ActionResult> {
  private static final Logger LOG = LoggerFactory.getLogger(BatchAction.class);

  protected final JobContext context;
  protected final SparkSession spark;
  protected final TableRegistry registry;
  protected final O options;
  private final String runId;

  /**
   * @param action the action's name, e.g. {@code correct}: the prefix of its run id
   * @param options the action's validated options
   */
  protected BatchAction(String action, JobContext context, O options) {
    this.context = context;
    this.spark = context.spark();
    this.registry = context.tables();
    this.options = options;
    this.runId = context.runId(action);
  }

  /**
   * Runs the action once.
   *
   * @throws io.latelake.core.config.LakeConfigException (exit 2) when an input table is missing or
   *     an option does not fit the tables, before anything is written
   * @throws io.latelake.core.table.StorageException (exit 1) when a write fails
   */
  public abstract R run();

  /**
   * @return this run's id, {@code <action>-<start>-<suffix>} ({@link JobContext#runId})
   */
  public final String runId() {
    return runId;
  }

  /**
   * @return the run's start (UTC, microseconds) as a Spark timestamp
   */
  protected final Timestamp startedAt() {
    return Timestamp.from(context.startedAt());
  }

  /** A step that takes at least this long is logged at INFO, a shorter one at DEBUG. */
  static final long SLOW_STEP_MS = 5_000;

  /**
   * Runs {@code body} with the Spark job description {@code <run id>: <description>} and logs its
   * wall-clock time: at INFO from {@value #SLOW_STEP_MS} ms, else at DEBUG.
   */
  protected final <T> T step(String description, Supplier<T> body) {
    SparkContext sc = spark.sparkContext();
    String previous = sc.getLocalProperty("spark.job.description");
    sc.setJobDescription(runId + ": " + description);
    long start = System.nanoTime();
    try {
      return body.get();
    } finally {
      sc.setJobDescription(previous);
      long ms = (System.nanoTime() - start) / 1_000_000;
      if (ms >= SLOW_STEP_MS) {
        // a long run shows where its time goes; short steps stay quiet
        LOG.info(
            "{}: {} took {} s",
            runId,
            description,
            String.format(java.util.Locale.ROOT, "%.1f", ms / 1000.0));
      } else {
        LOG.debug("{}: {} took {} ms", runId, description, ms);
      }
    }
  }

  /**
   * Starts {@code body} as a {@link #step(String, Supplier)} on a thread of its own, beside the
   * steps the caller runs next: for independent reads and writes whose time is mostly the driver's
   * (planning, Delta log reads and commits), which the driver's second core can then overlap. Spark
   * runs the jobs of both threads at once. Its Spark jobs carry a job tag of their own, so that
   * {@link Beside#close} can cancel them.
   *
   * <p>Use it in a try-with-resources block: when the caller fails before {@link Beside#join},
   * closing the step cancels it instead of leaving it running after the action has failed.
   *
   * @param description the step's Spark job description, after the run id
   * @param body what the step computes; it runs on the new thread
   * @return the running step; {@link Beside#join} waits for its value
   */
  protected final <T> Beside<T> beside(String description, Supplier<T> body) {
    SparkContext sc = spark.sparkContext();
    String tag = (runId + "-beside-" + BESIDE_IDS.incrementAndGet()).replace(',', '-');
    FutureTask<T> task =
        new FutureTask<>(
            () -> {
              sc.addJobTag(tag);
              try {
                return step(description, body);
              } finally {
                sc.removeJobTag(tag);
              }
            });
    Thread thread = new Thread(task, runId + ": " + description);
    thread.setDaemon(true);
    thread.start();
    return new Beside<>(description, task, thread, sc, tag);
  }

  private static final AtomicLong BESIDE_IDS = new AtomicLong();

  /**
   * A step running beside the caller's ({@link #beside}). Closing it cancels the step when it has
   * not ended: its running Spark jobs (by their job tag) and its thread.
   *
   * @param <T> its value
   */
  protected static final class Beside<T> implements AutoCloseable {
    /** How long {@link #close} waits for a cancelled step's thread to end. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);

    /** How often {@link #close} cancels the step's jobs again while its thread runs. */
    private static final Duration CANCEL_EVERY = Duration.ofMillis(200);

    private final String description;
    private final FutureTask<T> task;
    private final Thread thread;
    private final SparkContext sc;
    private final String tag;

    private Beside(
        String description, FutureTask<T> task, Thread thread, SparkContext sc, String tag) {
      this.description = description;
      this.task = task;
      this.thread = thread;
      this.sc = sc;
      this.tag = tag;
    }

    /**
     * Waits for the step.
     *
     * @return its value
     * @throws RuntimeException the step's own exception, as it threw it
     * @throws IllegalStateException when the waiting thread is interrupted (the step is then
     *     cancelled) or the step was cancelled by {@link #close}
     */
    public T join() {
      try {
        return task.get();
      } catch (InterruptedException e) {
        close(); // before the interrupt is set again, which would cut its wait short
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted while waiting for the step " + description, e);
      } catch (CancellationException e) {
        throw new IllegalStateException("The step " + description + " was cancelled", e);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof RuntimeException r) {
          throw r;
        }
        if (e.getCause() instanceof Error err) {
          throw err;
        }
        throw new IllegalStateException(e.getCause());
      }
    }

    /**
     * Cancels the step when it has not ended (its Spark jobs by their tag, then its thread; Spark
     * marks their running tasks killed and they stop at their next check, without an interrupt that
     * would break a Parquet read mid-page) and waits up to 30 seconds for its thread to end, so
     * that no job of a failed action outlives it. Does nothing when the step has ended; a step's
     * own failure stays for {@link #join}.
     */
    @Override
    public void close() {
      if (task.isDone()) {
        return;
      }
      LOG.debug(
          "Cancelling the step {}: its caller ended before its value was needed", description);
      task.cancel(true);
      // A job the step submits after a cancellation is cancelled by the next one.
      long deadline = System.nanoTime() + CLOSE_WAIT.toNanos();
      try {
        while (thread.isAlive() && System.nanoTime() < deadline) {
          sc.cancelJobsWithTag(tag);
          thread.join(CANCEL_EVERY.toMillis());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (thread.isAlive()) {
        LOG.warn(
            "The step {} did not end within {} s of its cancellation",
            description,
            CLOSE_WAIT.toSeconds());
      }
    }
  }

  /** As {@link #step(String, Supplier)}, for a step without a value. */
  protected final void perform(String description, Runnable body) {
    step(
        description,
        () -> {
          body.run();
          return null;
        });
  }
}

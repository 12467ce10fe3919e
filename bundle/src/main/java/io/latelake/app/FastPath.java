package io.latelake.app;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import io.latelake.bronze.BronzeConfig;
import io.latelake.bronze.BronzeJob;
import io.latelake.core.job.JobContext;
import io.latelake.core.streaming.ProgressRecorder;
import io.latelake.core.streaming.StreamRunner;
import io.latelake.core.streaming.StreamSummary;
import io.latelake.core.table.TableRegistry;
import io.latelake.gold.GoldConfig;
import io.latelake.gold.GoldJob;
import io.latelake.silver.SilverConfig;
import io.latelake.silver.SilverJob;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.SparkSession;

/**
 * The fast path run in lock step: one {@link #step()} runs bronze, then silver, then gold, each
 * with the available-now trigger, so each processes exactly what arrived since the previous step in
 * one micro-batch, followed by the no-data micro-batch that moves its watermark — as the
 * long-running streams do live between two trigger intervals. Used by the demo and by tests.
 *
 * <p>The three stages share one progress recorder that writes the step's rows in one append at the
 * step's end ({@link ProgressRecorder#writeOnFlush()}): {@link #step()} returns once every row of
 * the step is in {@code monitoring.stream_progress}. {@link #close()} removes the recorder's
 * listener from the session.
 */
public final class FastPath implements AutoCloseable {
  /**
   * What one step did.
   *
   * @param bronze the bronze run
   * @param silver the silver run
   * @param gold the gold runs, one per metric
   */
  public record Step(StreamSummary bronze, StreamSummary silver, List<StreamSummary> gold) {
    /**
     * @return rows dropped by the watermark in silver and gold during this step
     */
    public long droppedByWatermark() {
      return silver.droppedByWatermark()
          + gold.stream().mapToLong(StreamSummary::droppedByWatermark).sum();
    }
  }

  private final JobContext context;
  private final BronzeConfig bronze;
  private final SilverConfig silver;
  private final GoldConfig gold;
  private final ProgressRecorder progress;

  /**
   * @param spark the session
   * @param config the effective config; triggers are forced to available-now
   * @throws io.latelake.core.config.LakeConfigException on a config error
   */
  public FastPath(SparkSession spark, Config config) {
    Config c =
        config
            .withValue("lake.bronze.trigger", ConfigValueFactory.fromAnyRef("available-now"))
            .withValue("lake.silver.trigger", ConfigValueFactory.fromAnyRef("available-now"))
            .withValue("lake.gold.trigger", ConfigValueFactory.fromAnyRef("available-now"));
    this.bronze = BronzeConfig.fromConfig(c);
    this.silver = SilverConfig.fromConfig(c);
    this.gold = GoldConfig.fromConfig(c);
    this.context = JobContext.start(spark, TableRegistry.fromConfig(c));
    this.progress =
        new ProgressRecorder(spark, context.tables().streamProgress(), Set.of())
            .writeOnFlush()
            .start();
  }

  /** Runs bronze, silver and gold once each; their progress rows are written when it returns. */
  public Step step() {
    try {
      StreamSummary b = new BronzeJob(context, bronze).run(progress).summary();
      StreamSummary s = new SilverJob(context, silver).run(progress).summary();
      List<StreamSummary> g = new GoldJob(context, gold).run(progress).summaries();
      return new Step(b, s, g);
    } finally {
      // Also when a stage fails: the rows of the stages before it are written now.
      progress.flush();
    }
  }

  /**
   * Runs the fast path over {@code slices} inputs with the three stages side by side, as {@code
   * latelake run} does live, instead of one after another: in tick {@code i} bronze reads slice
   * {@code i} while silver reads what bronze wrote in tick {@code i-1} and gold what silver wrote
   * in tick {@code i-2}; two more ticks drain silver and gold. Each stage still reads exactly one
   * micro-batch of its input per run, as in {@link #step()}, so every table, watermark and row
   * dropped by the watermark is the same as {@code slices} lock steps give; only the time differs
   * (on two cores a stage's driver work overlaps another's tasks).
   *
   * <p>Each run's input is fixed when it starts (the available-now trigger reads what its source
   * holds at that moment), so within a tick gold starts first, then silver once gold has planned
   * its micro-batch (or found nothing to read), then bronze once silver has.
   *
   * <p>A stop requested while it runs (SIGTERM or SIGINT: each running stage's queries stop after
   * their running micro-batch, see {@link StreamRunner}) ends it within the tick that was running:
   * no further stage starts, the tick's progress rows are written, and what the stopped stages
   * threw is the stop's consequence, not a failure.
   *
   * @param slices how many inputs there are
   * @param land writes input {@code i} (0-based) where bronze reads it; called before tick {@code
   *     i}'s bronze run
   * @param afterTick called after each tick with its number (1-based, {@code slices + 2} in all)
   *     and what the tick did (stages that did not run report nothing read); not called for the
   *     tick a stop ended
   * @return the number of ticks completed: {@code slices + 2}, fewer when a stop ended it ({@code
   *     0} for no slices)
   * @throws io.latelake.core.streaming.StreamFailedException when a stage fails (the others of the
   *     tick are awaited first)
   */
  public int pipelined(
      int slices,
      java.util.function.IntConsumer land,
      java.util.function.BiConsumer<Integer, Step> afterTick) {
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(
            3,
            r -> {
              Thread t = new Thread(r, "latelake-fast-path");
              t.setDaemon(true);
              return t;
            });
    int done = 0;
    try {
      for (int tick = 1; slices > 0 && tick <= slices + 2 && !stopping(); tick++) {
        List<Stage> stages = new ArrayList<>();
        Stage gold = null;
        Stage silver = null;
        Stage bronze = null;
        RuntimeException failed = null;
        try {
          if (tick >= 3) {
            gold = launch(pool, new GoldJob(context, this.gold).starts(), true, stages);
          }
          if (tick >= 2 && tick <= slices + 1 && !failed(gold) && !stopping()) {
            silver = launch(pool, new SilverJob(context, this.silver).starts(), true, stages);
          }
          if (tick <= slices && !failed(gold) && !failed(silver) && !stopping()) {
            land.accept(tick - 1);
            bronze = launch(pool, new BronzeJob(context, this.bronze).starts(), false, stages);
          }
        } catch (RuntimeException e) {
          failed = e;
        } finally {
          // every stage that started ends before a failure is reported
          for (Stage st : stages) {
            try {
              await(st.run());
            } catch (RuntimeException e) {
              if (failed == null) {
                failed = e;
              } else if (failed != e) {
                failed.addSuppressed(e);
              }
            }
          }
          progress.flush();
        }
        if (stopping()) {
          return done;
        }
        if (failed != null) {
          throw failed;
        }
        done = tick;
        afterTick.accept(
            tick,
            new Step(
                bronze == null ? idle("bronze") : await(bronze.run()).get(0),
                silver == null ? idle("silver_events") : await(silver.run()).get(0),
                gold == null ? List.of() : await(gold.run())));
      }
      return done;
    } finally {
      pool.shutdownNow();
      try {
        pool.awaitTermination(1, java.util.concurrent.TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * @return true once the JVM shuts down (SIGTERM, SIGINT, or {@code System.exit} elsewhere): the
   *     stages' stop hooks are stopping what runs, and nothing new may start
   */
  static boolean stopping() {
    return org.apache.hadoop.util.ShutdownHookManager.get().isShutdownInProgress();
  }

  /** One stage's run in a tick: its queries and the run itself. */
  private record Stage(
      List<StreamRunner.Start> starts, java.util.concurrent.Future<List<StreamSummary>> run) {}

  /**
   * Starts {@code starts} on the pool, adds the run to {@code stages} and, with {@code awaitInput},
   * returns once each query has fixed its input: planned a micro-batch (a new offset log entry,
   * written after the available-now trigger fixed the end of its input) or ended.
   */
  private Stage launch(
      java.util.concurrent.ExecutorService pool,
      List<StreamRunner.Start> starts,
      boolean awaitInput,
      List<Stage> stages) {
    SparkSession spark = context.spark();
    java.util.Map<String, Long> before = new java.util.HashMap<>();
    for (StreamRunner.Start s : starts) {
      before.put(s.queryName(), planned(spark, s.checkpoint()));
    }
    Stage stage =
        new Stage(
            starts,
            pool.submit(
                () ->
                    StreamRunner.run(spark, context.tables().streamProgress(), starts, progress)));
    stages.add(stage);
    try {
      while (awaitInput && !stage.run().isDone()) {
        boolean all = true;
        for (StreamRunner.Start s : starts) {
          all &= planned(spark, s.checkpoint()) > before.get(s.queryName());
        }
        if (all) {
          break;
        }
        Thread.sleep(25);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the fast path started", e);
    }
    return stage;
  }

  /** Whether {@code stage} ran and ended with a failure (the next stages then do not start). */
  private static boolean failed(Stage stage) {
    if (stage == null || !stage.run().isDone()) {
      return false;
    }
    try {
      stage.run().get();
      return false;
    } catch (java.util.concurrent.ExecutionException
        | InterruptedException
        | java.util.concurrent.CancellationException e) {
      return true;
    }
  }

  private static long planned(SparkSession spark, String checkpoint) {
    return new io.latelake.core.streaming.Checkpoints(spark, checkpoint).lastPlanned().orElse(-1);
  }

  private static StreamSummary idle(String name) {
    return new StreamSummary(name, 0, 0, 0, "");
  }

  private static <T> T await(java.util.concurrent.Future<T> f) {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the fast path ran", e);
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  /** Writes what the progress recorder holds and removes its listener. */
  @Override
  public void close() {
    progress.close();
  }

  public TableRegistry tables() {
    return context.tables();
  }

  /**
   * @return the context the jobs of every step run in
   */
  public JobContext context() {
    return context;
  }

  public GoldConfig goldConfig() {
    return gold;
  }
}

package io.latelake.app;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import io.latelake.bronze.BronzeConfig;
import io.latelake.bronze.BronzeJob;
import io.latelake.core.ExitCode;
import io.latelake.core.cli.JobCommand;
import io.latelake.core.cli.Launcher;
import io.latelake.core.job.JobContext;
import io.latelake.core.streaming.StreamRunner;
import io.latelake.core.streaming.StreamSummary;
import io.latelake.gold.GoldConfig;
import io.latelake.gold.GoldJob;
import io.latelake.silver.SilverConfig;
import io.latelake.silver.SilverJob;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.util.ShutdownHookManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code latelake run}: the fast path as one long-running Spark application — bronze, silver and
 * one gold query per metric, started together with the processing-time trigger (each layer's {@code
 * lake.<layer>.trigger-interval}; {@code lake.<layer>.trigger} is ignored here). spark-submit entry
 * point: {@code --class io.latelake.app.RunMain}.
 *
 * <p>Runs until stopped. SIGTERM stops every query after its running micro-batch and records its
 * progress; the JVM then exits with 143. When one query fails the others are stopped and the exit
 * code is 1, the message naming the query and the reason. Exit 2: bad usage or config.
 *
 * <p>{@code --available-now} runs the layers one after the other instead, each with the
 * available-now trigger to the end of its input (bronze to the end of its source, then silver to
 * the end of bronze, then gold to the end of silver), and exits 0: the same result every time for
 * the same input, for cron and tests. The next run resumes from the checkpoints, so late events
 * that landed in between are filtered against the watermark the previous run left.
 */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description =
        "Run bronze, silver and gold as concurrent long-running streams (processing-time "
            + "trigger) until SIGTERM; with --available-now, each layer to the end of its input, in "
            + "order, then exit.")
public final class RunMain extends JobCommand<RunMain.Layers> {
  private static final Logger LOG = LoggerFactory.getLogger(RunMain.class);

  @Option(
      names = "--available-now",
      description =
          "Run bronze, then silver, then gold, each "
              + "with the available-now trigger to the end of its input, and exit 0 (for cron).")
  boolean availableNow;

  /**
   * The validated config of each layer, triggers forced to processing-time (available-now with
   * {@code --available-now}).
   *
   * @param bronze bronze
   * @param silver silver
   * @param gold gold
   * @param availableNow true: one layer after the other, each to the end of its input
   */
  public record Layers(
      BronzeConfig bronze, SilverConfig silver, GoldConfig gold, boolean availableNow) {}

  public static void main(String[] args) {
    System.exit(Launcher.execute(new RunMain(), args));
  }

  /** The streams' own graceful stop handles SIGTERM (also between the layers of a run). */
  @Override
  protected boolean stopsItselfOnSigterm() {
    return true;
  }

  @Override
  protected String appName() {
    return "latelake-run";
  }

  @Override
  protected Layers prepare(Config config) {
    Config c = config;
    for (String layer : List.of("bronze", "silver", "gold")) {
      c =
          c.withValue(
              "lake." + layer + ".trigger",
              ConfigValueFactory.fromAnyRef(availableNow ? "available-now" : "processing-time"));
    }
    return new Layers(
        BronzeConfig.fromConfig(c),
        SilverConfig.fromConfig(c),
        GoldConfig.fromConfig(c),
        availableNow);
  }

  @Override
  protected ExitCode run(JobContext context, Layers layers) {
    if (layers.availableNow()) {
      return runInOrder(context, layers);
    }
    List<StreamRunner.Start> starts = new ArrayList<>();
    // In this order: each layer creates the table the next one reads.
    starts.addAll(new BronzeJob(context, layers.bronze()).starts());
    starts.addAll(new SilverJob(context, layers.silver()).starts());
    starts.addAll(new GoldJob(context, layers.gold()).starts());
    LOG.info(
        "Running {} (bronze every {}, silver every {}, gold every {}); stop with SIGTERM",
        starts.stream().map(StreamRunner.Start::queryName).toList(),
        layers.bronze().trigger(),
        layers.silver().trigger(),
        layers.gold().trigger());
    for (StreamSummary s :
        StreamRunner.run(context.spark(), context.tables().streamProgress(), starts)) {
      LOG.info(
          "{} stopped: {} micro-batches, {} rows read, {} dropped by the watermark",
          s.queryName(),
          s.batches(),
          s.inputRows(),
          s.droppedByWatermark());
    }
    return ExitCode.OK;
  }

  /**
   * {@code --available-now}: bronze, silver, gold, each to the end of its input (each logs one line
   * per query when done); exit 0. A SIGTERM between layers starts no further layer.
   */
  private static ExitCode runInOrder(JobContext context, Layers layers) {
    LOG.info("Running bronze, silver and gold in order, each to the end of its input");
    new BronzeJob(context, layers.bronze()).run();
    if (!ShutdownHookManager.get().isShutdownInProgress()) {
      new SilverJob(context, layers.silver()).run();
    }
    if (!ShutdownHookManager.get().isShutdownInProgress()) {
      new GoldJob(context, layers.gold()).run();
    }
    return ExitCode.OK;
  }
}

package io.latelake.correction;

import com.typesafe.config.Config;
import io.latelake.core.ExitCode;
import io.latelake.core.cli.JobCommand;
import io.latelake.core.cli.Launcher;
import io.latelake.core.job.JobContext;
import io.latelake.core.table.TableRegistry;
import io.latelake.correction.backfill.BackfillJob;
import io.latelake.correction.shared.CorrectionConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code latelake backfill --metric NAME}: rebuild {@code gold.<metric>} from bronze with the
 * metric's current definition and start its gold stream on a new checkpoint at silver's current end
 * ({@link BackfillJob}); the remedy the gold stream names when a metric's window, group-by or
 * measures changed. spark-submit entry point: {@code --class io.latelake.correction.BackfillMain}.
 * Run it with that metric's gold stream stopped. Exit codes: 0 ok, 1 runtime failure, 2 bad usage
 * or config (an unknown metric, bronze or silver missing). The metric is validated before Spark
 * starts.
 */
@Command(
    name = "backfill",
    mixinStandardHelpOptions = true,
    description =
        "Rebuild gold.<metric> from bronze with the metric's current definition and "
            + "start its gold stream's new checkpoint at silver's current end (after a change of "
            + "window, group-by or measures; stop that gold stream first).")
public final class BackfillMain extends JobCommand<BackfillJob.Options> {
  private static final Logger LOG = LoggerFactory.getLogger(BackfillMain.class);

  @Option(
      names = "--metric",
      required = true,
      paramLabel = "NAME",
      description = "the metric to backfill (a key of lake.gold.metrics)")
  String metric;

  public static void main(String[] args) {
    System.exit(Launcher.execute(new BackfillMain(), args));
  }

  @Override
  protected BackfillJob.Options prepare(Config config) {
    TableRegistry.fromConfig(config);
    CorrectionConfig c = CorrectionConfig.fromConfig(config);
    return new BackfillJob.Options(c, c.metric(metric));
  }

  /** Logs what the run rebuilt, where the old table and checkpoint are, in one line. */
  @Override
  protected ExitCode run(JobContext context, BackfillJob.Options options) {
    BackfillJob.Result r = new BackfillJob(context, options).run();
    r.report(figures());
    LOG.info("backfill {}", r.summary());
    return r.exitCode();
  }
}

package io.latelake.correction;

import com.typesafe.config.Config;
import io.latelake.core.ExitCode;
import io.latelake.core.cli.JobCommand;
import io.latelake.core.cli.Launcher;
import io.latelake.core.job.JobContext;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.TableRegistry;
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
public final class BackfillMain extends JobCommand<BackfillMain.Prepared> {
  @Option(
      names = "--metric",
      required = true,
      paramLabel = "NAME",
      description = "the metric to backfill (a key of lake.gold.metrics)")
  String metric;

  /**
   * @param config the correction config
   * @param metric the metric's current definition
   */
  record Prepared(CorrectionConfig config, MetricSpec metric) {}

  public static void main(String[] args) {
    System.exit(Launcher.execute(new BackfillMain(), args));
  }

  @Override
  protected Prepared prepare(Config config) {
    TableRegistry.fromConfig(config);
    CorrectionConfig c = CorrectionConfig.fromConfig(config);
    return new Prepared(c, c.metric(metric));
  }

  /** The job logs what it rebuilt, where the old table and checkpoint are, in one line. */
  @Override
  protected ExitCode run(JobContext context, Prepared p) {
    BackfillJob.Result r = new BackfillJob(context, p.config(), p.metric()).run();
    figures()
        .gauge(
            "latelake_rows_restated",
            "Gold rows the run restated (or staged, for a reconcile metric).",
            r.restated(),
            "metric",
            r.metric());
    return ExitCode.OK;
  }
}

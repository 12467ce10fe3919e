package io.latelake.correction;

import io.latelake.core.ExitCode;
import io.latelake.core.cli.Launcher;
import io.latelake.core.job.JobContext;
import io.latelake.core.time.DateArgs;
import io.latelake.correction.correct.CorrectJob;
import io.latelake.correction.correct.CorrectResult;
import io.latelake.correction.shared.CorrectionConfig;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code latelake correct}: late-window correction of the gold metrics ({@link CorrectJob}).
 * spark-submit entry point: {@code --class io.latelake.correction.CorrectMain}. Safe to re-run.
 * Exit codes: 0 ok, 1 runtime failure, 2 bad usage or config (a bad {@code --since}, an unknown
 * metric, a missing table, a first run without {@code --since}).
 */
@Command(
    name = "correct",
    mixinStandardHelpOptions = true,
    description = "Restate closed gold windows touched by bronze rows ingested since the last run.")
public final class CorrectMain extends CorrectionCommand<CorrectJob.Options> {
  @Option(
      names = "--since",
      paramLabel = "DATE|INSTANT",
      description =
          "Check bronze rows ingested at or after this UTC date (yyyy-MM-dd) or instant "
              + "instead of those since the last run. Required on the first run.")
  String since;

  @Option(
      names = "--metric",
      paramLabel = "NAME",
      description = "Correct only this metric (repeatable). Default: all.")
  List<String> metricNames = new ArrayList<>();

  public CorrectMain() {
    super("correct");
  }

  @Override
  protected CorrectJob.Options options(CorrectionConfig c) {
    Optional<Instant> s =
        since == null
            ? Optional.empty()
            : Optional.of(DateArgs.pastInstant("--since", since, Instant.now()));
    return new CorrectJob.Options(c, c.select(metricNames), s);
  }

  /** The job logs one line per metric ({@link CorrectResult.MetricResult#summary}). */
  @Override
  protected ExitCode run(JobContext context, CorrectJob.Options options) {
    CorrectResult r = new CorrectJob(context, options).run();
    r.report(figures());
    if (pushing()) {
      for (io.latelake.core.metric.MetricSpec m : options.metrics()) {
        io.latelake.core.metric.GoldStatus.counts(
                context.spark(), context.tables(), m, options.config().horizon())
            .forEach(
                (status, rows) ->
                    figures()
                        .gauge(
                            "latelake_gold_rows",
                            "Gold rows by status after the run: provisional, settled, restated.",
                            rows,
                            "metric",
                            m.name(),
                            "status",
                            status));
      }
    }
    return r.exitCode();
  }

  public static void main(String[] args) {
    System.exit(Launcher.execute(new CorrectMain(), args));
  }
}

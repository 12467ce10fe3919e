package io.latelake.profiler;

import com.typesafe.config.Config;
import io.latelake.core.ExitCode;
import io.latelake.core.cli.JobCommand;
import io.latelake.core.cli.Launcher;
import io.latelake.core.job.JobContext;
import io.latelake.core.time.DayRange;
import java.time.Clock;
import java.time.LocalDate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code latelake report}: the HTML lateness report with PNG charts, from the monitoring tables
 * written by {@code latelake profile}. spark-submit entry point: {@code --class
 * io.latelake.profiler.ReportMain}. Exit codes: 0 ok, 1 runtime failure, 2 bad usage or config (no
 * {@code monitoring.lateness_stats} included).
 */
@Command(
    name = "report",
    mixinStandardHelpOptions = true,
    description = "Write the HTML lateness report (and PNG charts) per source.")
public final class ReportMain extends JobCommand<ProfilerJob.Options> {
  private static final Logger LOG = LoggerFactory.getLogger(ReportMain.class);

  @Option(
      names = "--days",
      paramLabel = "FROM[..TO]",
      description =
          "UTC arrival days to report, e.g. 2024-05-01..2024-05-14. Default: the last "
              + "lake.profiler.lookback-days days, today included.")
  String days;

  public static void main(String[] args) {
    System.exit(Launcher.execute(new ReportMain(), args));
  }

  @Override
  protected ProfilerJob.Options prepare(Config config) {
    ProfilerConfig cfg = ProfilerConfig.fromConfig(config);
    DayRange range =
        days == null
            ? DayRange.lastDays(cfg.lookbackDays(), Clock.systemUTC())
            : io.latelake.core.time.DateArgs.daysBegun(
                "--days", days, LocalDate.now(Clock.systemUTC()));
    return new ProfilerJob.Options(cfg, range);
  }

  @Override
  protected ExitCode run(JobContext context, ProfilerJob.Options options) {
    ReportJob.Result r = new ReportJob(context, options).run();
    LOG.info("report: {}", r.summary());
    return r.exitCode();
  }
}

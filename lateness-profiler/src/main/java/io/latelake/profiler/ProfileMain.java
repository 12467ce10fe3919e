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
 * {@code latelake profile}: lateness statistics, CDF, advice and SLA alerts for a range of arrival
 * days. spark-submit entry point: {@code --class io.latelake.profiler.ProfileMain} (nightly). Exit
 * codes: 0 ok, 1 runtime failure, 2 bad usage or config (a bad {@code --days} or a missing bronze
 * table included), 3 an alert fired (rows were written to {@code monitoring.alerts}).
 */
@Command(
    name = "profile",
    mixinStandardHelpOptions = true,
    description = "Measure lateness from bronze per source and arrival day; advice and alerts.")
public final class ProfileMain extends JobCommand<ProfilerJob.Options> {
  private static final Logger LOG = LoggerFactory.getLogger(ProfileMain.class);

  @Option(
      names = "--days",
      paramLabel = "FROM[..TO]",
      description =
          "UTC arrival days to profile, e.g. 2024-05-14 or 2024-05-01..2024-05-14. "
              + "Default: the last lake.profiler.lookback-days days, today included.")
  String days;

  @Option(
      names = "--exact",
      description =
          "Exact percentiles (percentile_disc) instead of percentile_approx at"
              + " lake.profiler.accuracy: for audits; holds every distinct lateness value of a"
              + " group in memory at once, about every event of a source over the --days range."
              + " lateness_stats.accuracy is null on its rows.")
  boolean exact;

  private Clock clock = Clock.systemUTC();

  public static void main(String[] args) {
    System.exit(Launcher.execute(new ProfileMain(), args));
  }

  /** For tests: a fixed clock. */
  ProfileMain withClock(Clock clock) {
    this.clock = clock;
    return this;
  }

  @Override
  protected Clock clock() {
    return clock;
  }

  @Override
  protected ProfilerJob.Options prepare(Config config) {
    ProfilerConfig cfg = ProfilerConfig.fromConfig(config).withExact(exact);
    DayRange range =
        days == null
            ? DayRange.lastDays(cfg.lookbackDays(), clock)
            : io.latelake.core.time.DateArgs.daysBegun("--days", days, LocalDate.now(clock));
    return new ProfilerJob.Options(cfg, range);
  }

  @Override
  protected ExitCode run(JobContext context, ProfilerJob.Options options) {
    ProfileJob.Result r = new ProfileJob(context, options).run();
    LOG.info("profile done: {}", r.summary());
    r.report(figures());
    return r.exitCode();
  }
}

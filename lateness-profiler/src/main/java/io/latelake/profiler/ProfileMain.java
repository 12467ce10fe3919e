package io.latelake.profiler;

import com.typesafe.config.Config;
import io.latelake.core.ExitCode;
import io.latelake.core.cli.JobCommand;
import io.latelake.core.cli.Launcher;
import io.latelake.core.job.JobContext;
import io.latelake.core.time.DayRange;
import java.time.Clock;
import java.time.LocalDate;
import org.apache.spark.sql.SparkSession;
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
public final class ProfileMain extends JobCommand<ProfileMain.Prepared> {
  private static final Logger LOG = LoggerFactory.getLogger(ProfileMain.class);

  /** Validated inputs of a run. */
  public record Prepared(ProfilerConfig config, DayRange range) {}

  @Option(
      names = "--days",
      paramLabel = "FROM[..TO]",
      description =
          "UTC arrival days to profile, e.g. 2024-05-14 or 2024-05-01..2024-05-14. "
              + "Default: the last lake.profiler.lookback-days days, today included.")
  String days;

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
  protected Prepared prepare(Config config) {
    ProfilerConfig cfg = ProfilerConfig.fromConfig(config);
    DayRange range =
        days == null
            ? DayRange.lastDays(cfg.lookbackDays(), clock)
            : DayRange.parseBegun(days, LocalDate.now(clock));
    return new Prepared(cfg, range);
  }

  @Override
  protected ExitCode run(JobContext context, Prepared p) {
    SparkSession spark = context.spark();
    ProfileJob.Result r =
        new ProfileJob(spark, p.config(), context.tables(), p.range(), context.clock()).run();
    LOG.info(
        "profile done: {} (source, day) rows for {}, {} alerts, {} ms",
        r.stats().size(),
        r.range(),
        r.alerts().size(),
        r.wallTime().toMillis());
    figures()
        .gauge(
            "latelake_profile_alerts",
            "Alerts the profile raised (rows appended to monitoring.alerts).",
            r.alerts().size());
    return r.alerted() ? ExitCode.AUDIT_DIFFERENCES : ExitCode.OK;
  }
}

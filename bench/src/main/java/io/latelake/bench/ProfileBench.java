package io.latelake.bench;

import com.typesafe.config.Config;
import io.latelake.core.job.JobContext;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.time.DayRange;
import io.latelake.profiler.LatenessStats;
import io.latelake.profiler.ProfileJob;
import io.latelake.profiler.ProfilerConfig;
import io.latelake.profiler.ProfilerJob;
import java.time.Clock;
import java.time.ZoneOffset;
import org.apache.spark.sql.SparkSession;

/**
 * The profile group of one repeat: {@code profile} on the lock-step lake against one plain scan of
 * its bronze table ({@code profile}), and the least profile, hand-written, against the same scan
 * ({@code profile-bound}). Times are wall-clock seconds.
 */
final class ProfileBench {
  private final SparkSession spark;
  private final SyntheticEvents data;
  private final Recorded recorded;

  ProfileBench(SparkSession spark, SyntheticEvents data, Recorded recorded) {
    this.spark = spark;
    this.data = data;
    this.recorded = recorded;
  }

  /**
   * Profiles the days from the data's start to its last slice's end plus 2 minutes (UTC).
   *
   * @param cfg the lock-step lake's config
   * @param t its tables
   */
  void run(Config cfg, TableRegistry t) {
    ProfilerConfig pc = ProfilerConfig.fromConfig(cfg);
    DayRange days =
        DayRange.parse(
            SyntheticEvents.START.atZone(ZoneOffset.UTC).toLocalDate()
                + ".."
                + data.sliceEnd(data.sliceCount() - 1)
                    .plusSeconds(120)
                    .atZone(ZoneOffset.UTC)
                    .toLocalDate());
    double profile =
        Bench.time(
            () ->
                new ProfileJob(
                        JobContext.start(spark, t, Clock.systemUTC()),
                        new ProfilerJob.Options(pc, days))
                    .run());
    double scan = Bench.time(() -> BatchBaselines.latenessScan(spark, t.bronzeEvents()));
    double least =
        Bench.time(
            () ->
                BatchBaselines.minimalProfile(
                    spark, t.bronzeEvents(), LatenessStats.LEVELS, pc.accuracy()));
    recorded.record("profile", profile, scan);
    recorded.record("profile-bound", least, scan);
  }
}

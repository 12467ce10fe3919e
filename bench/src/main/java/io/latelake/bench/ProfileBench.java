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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The profile group of one repeat: {@code profile} on the lock-step lake against one plain scan of
 * the profiled days' bronze rows ({@code profile}), and the least profile, hand-written, against
 * the same scan ({@code profile-bound}), whose counts per source and day are checked equal to the
 * profile's {@code lateness_stats} rows and whose percentiles, as the profile's, within {@code
 * percentile_approx}'s rank error of the exact ones (two runs of it over the same rows may differ
 * within that error: partial aggregates merge in another order). With history days, {@link #newDay}
 * times the same profile over the history. Times are wall-clock seconds.
 */
final class ProfileBench {
  private static final Logger LOG = LoggerFactory.getLogger(ProfileBench.class);

  /**
   * One profile of the bench's days over whatever bronze holds then.
   *
   * @param profile seconds of {@code profile}
   * @param dayScan seconds of one plain scan of the profiled days' rows
   * @param bronzeScan seconds of one plain scan of all of bronze
   */
  record NewDay(double profile, double dayScan, double bronzeScan) {}

  private final SparkSession spark;
  private final SyntheticEvents data;
  private final Recorded recorded;

  ProfileBench(SparkSession spark, SyntheticEvents data, Recorded recorded) {
    this.spark = spark;
    this.data = data;
    this.recorded = recorded;
  }

  /**
   * Profiles the bench's days ({@link #days}), then the plain scan and the least profile of the
   * same days; a least profile whose rows differ from the profile's fails the group's check.
   *
   * @param cfg the lock-step lake's config
   * @param t its tables
   */
  void run(Config cfg, TableRegistry t) {
    ProfilerConfig pc = ProfilerConfig.fromConfig(cfg);
    DayRange days = days();
    ProfileJob.Result[] result = new ProfileJob.Result[1];
    double profile = Bench.time(() -> result[0] = profile(pc, t, days));
    double scan = Bench.time(() -> BatchBaselines.latenessScan(spark, t.bronzeEvents(), days));
    @SuppressWarnings("unchecked")
    List<Row>[] least = new List[1];
    double bound =
        Bench.time(
            () ->
                least[0] =
                    BatchBaselines.minimalProfile(
                        spark,
                        t.bronzeEvents(),
                        days,
                        pc.dedupHorizon(),
                        LatenessStats.LEVELS,
                        pc.accuracy()));
    long differences =
        differences(
            result[0].stats(),
            least[0],
            BatchBaselines.percentileRanges(
                spark,
                t.bronzeEvents(),
                days,
                pc.dedupHorizon(),
                LatenessStats.LEVELS,
                pc.accuracy()));
    if (differences > 0) {
      recorded.fail("profile");
      LOG.warn(
          "the least profile and the profile differ in {} (source, day) rows: counts, or "
              + "percentiles beyond percentile_approx's rank error",
          differences);
    }
    recorded.record("profile", profile, scan);
    recorded.record("profile-bound", bound, scan);
  }

  /**
   * Times the profile of the bench's days again, over the history bronze holds now, against a plain
   * scan of those days and one of all of bronze ({@code profile-history}, {@code profile-growth}).
   */
  NewDay newDay(Config cfg, TableRegistry t) {
    ProfilerConfig pc = ProfilerConfig.fromConfig(cfg);
    DayRange days = days();
    double profile = Bench.time(() -> profile(pc, t, days));
    double dayScan = Bench.time(() -> BatchBaselines.latenessScan(spark, t.bronzeEvents(), days));
    double bronzeScan = Bench.time(() -> BatchBaselines.latenessScan(spark, t.bronzeEvents()));
    LOG.info(
        "bench history: profile of {} {} s, plain scan of those days {} s, of all bronze {} s",
        days,
        String.format(java.util.Locale.ROOT, "%.2f", profile),
        String.format(java.util.Locale.ROOT, "%.2f", dayScan),
        String.format(java.util.Locale.ROOT, "%.2f", bronzeScan));
    return new NewDay(profile, dayScan, bronzeScan);
  }

  private ProfileJob.Result profile(ProfilerConfig pc, TableRegistry t, DayRange days) {
    return new ProfileJob(
            JobContext.start(spark, t, Clock.systemUTC()), new ProfilerJob.Options(pc, days))
        .run();
  }

  /** The arrival days from the data's start to its last slice's end plus 2 minutes (UTC). */
  private DayRange days() {
    return DayRange.parse(
        SyntheticEvents.START.atZone(ZoneOffset.UTC).toLocalDate()
            + ".."
            + data.sliceEnd(data.sliceCount() - 1)
                .plusSeconds(120)
                .atZone(ZoneOffset.UTC)
                .toLocalDate());
  }

  /**
   * @param stats the profile's {@code lateness_stats} rows
   * @param least {@link BatchBaselines#minimalProfile}'s rows
   * @param ranges {@link BatchBaselines#percentileRanges}' rows for the same days and levels
   * @return the (source, day) groups whose counts differ, a percentile of either side lies outside
   *     what {@code percentile_approx}'s rank error allows, or that only one side has (a profile
   *     row that measured nothing, n = 0, has no counterpart)
   */
  static long differences(List<Row> stats, List<Row> least, List<Row> ranges) {
    Map<String, Row> profiled = new HashMap<>();
    for (Row r : stats) {
      if (r.getLong(r.fieldIndex("n")) > 0) {
        profiled.put(key(r), r);
      }
    }
    Map<String, Row> allowed = new HashMap<>();
    for (Row r : ranges) {
      allowed.put(key(r), r);
    }
    long differing = 0;
    for (Row r : least) {
      String key = key(r);
      Row ours = profiled.remove(key);
      Row range = allowed.get(key);
      List<Double> theirs = r.getList(r.fieldIndex("quantiles"));
      boolean same =
          ours != null
              && range != null
              && ours.getLong(ours.fieldIndex("n")) == r.getLong(r.fieldIndex("n"));
      for (int i = 0; same && i < theirs.size(); i++) {
        double low = range.<Double>getList(range.fieldIndex("low")).get(i);
        double high = range.<Double>getList(range.fieldIndex("high")).get(i);
        double profile = ours.getDouble(ours.fieldIndex(LatenessStats.PERCENTILE_COLUMNS.get(i)));
        same = low <= theirs.get(i) && theirs.get(i) <= high && low <= profile && profile <= high;
      }
      if (!same) {
        differing++;
        LOG.warn("profile-bound: {} has {}, the profile {}, allowed {}", key, r, ours, range);
      }
    }
    return differing + profiled.size();
  }

  private static String key(Row r) {
    return r.getAs("source") + " " + r.getAs("arrival_day");
  }
}

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
import java.util.function.BiFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The profile group of one repeat: {@code profile} on the lock-step lake against one plain scan of
 * the profiled days' bronze rows ({@code profile}), and the least profile, hand-written, against
 * the same scan ({@code profile-bound}), whose output is checked against the profile's {@code
 * lateness_stats} rows ({@link #differences}). With history days, {@link #newDay} times the same
 * profile over the history. Times are wall-clock seconds.
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
            pc.accuracy(),
            (group, values) ->
                BatchBaselines.ranks(
                    spark,
                    t.bronzeEvents(),
                    days,
                    pc.dedupHorizon(),
                    group.getAs("source"),
                    group.getAs("arrival_day"),
                    values));
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
   * Checks the least profile's rows against the profile's: per (source, day) the same count, and
   * for each level {@code p} the profile's percentile and the bound's both at an exact rank {@code
   * floor((p − ε) n) .. ceil((p + ε) n)}, ε = 1 / accuracy: the rank {@code percentile_approx}
   * guarantees (Spark's {@code DataFrameStatFunctions.approxQuantile}). Two runs of it over the
   * same rows may return different values within that range (their partial summaries merge in
   * another order).
   *
   * @param stats the profile's {@code lateness_stats} rows
   * @param least {@link BatchBaselines#minimalProfile}'s rows
   * @param ranks for one (source, day) and values, their exact ranks ({@link BatchBaselines#ranks})
   * @return the (source, day) groups that fail, or that only one side has (a profile row that
   *     measured nothing, n = 0, has no counterpart)
   */
  static long differences(
      List<Row> stats, List<Row> least, int accuracy, BiFunction<Row, double[], long[][]> ranks) {
    Map<String, Row> profiled = new HashMap<>();
    for (Row r : stats) {
      if (r.getLong(r.fieldIndex("n")) > 0) {
        profiled.put(key(r), r);
      }
    }
    long differing = 0;
    for (Row r : least) {
      Row ours = profiled.remove(key(r));
      long n = r.getLong(r.fieldIndex("n"));
      boolean same = ours != null && ours.getLong(ours.fieldIndex("n")) == n;
      if (same) {
        List<Double> theirs = r.getList(r.fieldIndex("quantiles"));
        int levels = LatenessStats.LEVELS.length;
        double[] values = new double[2 * levels];
        for (int i = 0; i < levels; i++) {
          values[2 * i] = theirs.get(i);
          values[2 * i + 1] =
              ours.getDouble(ours.fieldIndex(LatenessStats.PERCENTILE_COLUMNS.get(i)));
        }
        long[][] at = ranks.apply(r, values);
        for (int i = 0; i < values.length; i++) {
          double p = LatenessStats.LEVELS[i / 2];
          long lowest = (long) Math.floor((p - 1.0 / accuracy) * n);
          long highest = (long) Math.ceil((p + 1.0 / accuracy) * n);
          // the value's ranks [below + 1, atOrBelow] meet the allowed ranks
          boolean allowed = at[i][0] + 1 <= highest && at[i][1] >= lowest;
          if (!allowed) {
            same = false;
            LOG.warn(
                "profile-bound: {} p{}: {} ({}) has exact ranks {}..{}, allowed {}..{}",
                key(r),
                p * 100,
                values[i],
                i % 2 == 0 ? "the bound's" : "the profile's",
                at[i][0] + 1,
                at[i][1],
                lowest,
                highest);
          }
        }
      } else {
        LOG.warn("profile-bound: {} has {}, the profile {}", key(r), r, ours);
      }
      if (!same) {
        differing++;
      }
    }
    return differing + profiled.size();
  }

  private static String key(Row r) {
    return r.getAs("source") + " " + r.getAs("arrival_day");
  }
}

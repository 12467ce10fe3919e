package io.latelake.profiler;

import static org.apache.spark.sql.functions.array;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_list;
import static org.apache.spark.sql.functions.explode;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.kll_sketch_agg_double;
import static org.apache.spark.sql.functions.kll_sketch_get_n_double;
import static org.apache.spark.sql.functions.kll_sketch_get_quantile_double;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import java.util.Arrays;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Lateness quantiles over any range of arrival days from the days' stored KLL sketches ({@code
 * lateness_sketch} of {@code monitoring.lateness_stats}), without reading bronze again. Pure {@code
 * Dataset<Row>} transformations; no I/O.
 *
 * <p><b>Error bound.</b> A sketch is Spark's {@code kll_sketch_agg_double} with {@code k =} {@value
 * #K} (Apache DataSketches' KLL sketch, Karnin–Lang–Liberty 2016). With at most {@code k} values it
 * keeps them all and its quantiles are exact, equal to {@code percentile_approx}'s at the
 * profiler's default accuracy (both return the smallest value whose rank reaches {@code ceil(p ·
 * n)}). Above that, DataSketches documents a normalized rank error of {@value #RANK_ERROR} for one
 * quantile at k = 200 (with 99% confidence, {@code KllSketch.getNormalizedRankError(200, false)}):
 * the returned value's rank lies within 1.33% of n of the requested rank, and merging sketches
 * keeps that bound. The profile sketches each hour of arrival ({@code lateness_by_hour}) and merges
 * a day's hours into the day's sketch, so every sketch here is exact up to {@code k} values and
 * within that rank error above. The per-day percentiles of {@code lateness_stats} stay {@code
 * percentile_approx}'s (exact up to {@code accuracy} events a day, 10,000 by default; else rank
 * error ≤ n / accuracy), or {@code percentile_disc}'s with {@code profile --exact}: the sketches
 * serve ranges, where the days' percentiles cannot be combined.
 */
public final class LatenessSketches {
  /** Spark's default {@code k} of {@code kll_sketch_agg_double}: sketch size and accuracy. */
  public static final int K = 200;

  /** DataSketches' normalized rank error of one quantile at {@link #K} (99% confidence). */
  public static final double RANK_ERROR = 0.0133;

  private LatenessSketches() {}

  /**
   * @param lateness the lateness in seconds (nulls ignored)
   * @return the aggregate: a KLL sketch (binary) of the values, k = {@value #K}
   */
  public static Column sketch(Column lateness) {
    return kll_sketch_agg_double(lateness, K);
  }

  /**
   * @param sketches the name of an array column of sketches (null elements are skipped by {@code
   *     collect_list} before they get here)
   * @return the sketches merged into one ({@code kll_sketch_merge_double}); null for an empty array
   */
  static Column merged(String sketches) {
    return expr(
        "aggregate(slice("
            + sketches
            + ", 2, greatest(size("
            + sketches
            + ") - 1, 0)), try_element_at("
            + sketches
            + ", 1), (a, x) -> kll_sketch_merge_double(a, x))");
  }

  /**
   * Quantiles per source over the given rows of {@code monitoring.lateness_stats} (e.g. those of a
   * range of arrival days): the days' sketches merged ({@code kll_sketch_merge_double}).
   *
   * <p>Output: {@code source} string, {@code n} long (the rows' measured events), {@code
   * sketched_n} long (the events in the merged sketches: less than {@code n} when some days were
   * profiled before the sketches existed, null when none has one), {@code quantiles} array of
   * double at {@code levels}, seconds (null when the merged sketch holds no value).
   *
   * @param stats rows of {@code monitoring.lateness_stats} with {@code source}, {@code n}, {@code
   *     lateness_sketch}
   * @param levels quantile levels in [0, 1]
   */
  public static Dataset<Row> over(Dataset<Row> stats, double[] levels) {
    Column merged = merged("_sketches");
    // one call per level: the rank must be a literal
    Column quantiles =
        array(
            Arrays.stream(levels)
                .mapToObj(v -> kll_sketch_get_quantile_double(col("_merged"), lit(v)))
                .toArray(Column[]::new));
    return stats
        .groupBy(col("source"))
        .agg(sum(col("n")).as("n"), collect_list(col("lateness_sketch")).as("_sketches"))
        .withColumn("_merged", merged)
        .withColumn("sketched_n", kll_sketch_get_n_double(col("_merged")))
        .select(
            col("source"),
            col("n"),
            col("sketched_n"),
            when(col("sketched_n").gt(0), quantiles).as("quantiles"));
  }

  /**
   * Quantiles per source over a span of hours of arrival, from the hours' sketches of the given
   * rows of {@code monitoring.lateness_stats} ({@code lateness_by_hour}) merged as in {@link
   * #over}: the quantiles of an outage's hours, or of a day's working hours, without reading
   * bronze. A source without rows in the span has no row. Days profiled before the hours were kept
   * have no {@code lateness_by_hour} and add nothing.
   *
   * @param stats rows of {@code monitoring.lateness_stats} with {@code source} and {@code
   *     lateness_by_hour} (e.g. those of the days the span touches)
   * @param from the span's first hour (UTC, inclusive), on the hour
   * @param to the span's end (UTC, exclusive), on the hour
   * @param levels quantile levels in [0, 1]
   * @return as {@link #over}: {@code source}, {@code n}, {@code sketched_n}, {@code quantiles}
   * @throws IllegalArgumentException when {@code from} or {@code to} is not on the hour (a part of
   *     an hour cannot be cut from its sketch)
   */
  public static Dataset<Row> overHours(
      Dataset<Row> stats, java.time.Instant from, java.time.Instant to, double[] levels) {
    for (java.time.Instant t : java.util.List.of(from, to)) {
      if (!t.equals(t.truncatedTo(java.time.temporal.ChronoUnit.HOURS))) {
        throw new IllegalArgumentException(
            "A span of hours of arrival starts and ends on the hour (UTC): " + from + ".." + to);
      }
    }
    Column hour = col("_h.arrival_hour");
    return over(
        stats
            .select(col("source"), explode(col("lateness_by_hour")).as("_h"))
            .filter(
                hour.geq(lit(java.sql.Timestamp.from(from)))
                    .and(hour.lt(lit(java.sql.Timestamp.from(to)))))
            .select(
                col("source"),
                col("_h.n").as("n"),
                col("_h.lateness_sketch").as("lateness_sketch")),
        levels);
  }
}

package io.latelake.profiler;

import static org.apache.spark.sql.functions.array;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.count_if;
import static org.apache.spark.sql.functions.floor;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.percentile_approx;
import static org.apache.spark.sql.functions.unix_micros;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Back-test of the expected completeness ({@link LatenessCdf#windowCompleteness}) on a recorded
 * timeline: the CDF is learnt from the events that had arrived by a cutoff (the first {@code 1 −
 * holdout} share of arrivals), then for every tumbling event-time window that starts after the
 * cutoff and whose end + the largest age is within the timeline, the prediction at each age a is
 * compared with what had actually arrived by window end + a, as a share of all of the window's
 * events in the timeline. Test code: {@code RealDataProfileTest} back-tests the model on the real
 * data with it; no job calls it.
 */
final class CompletenessValidation {
  private CompletenessValidation() {}

  /**
   * The error at one age.
   *
   * @param age window age (now − window end)
   * @param windows windows compared
   * @param events their events
   * @param predicted expected completeness (the same for every window of the same length)
   * @param pooledActual Σ arrived by end + age / Σ events, over the windows
   * @param meanActual mean of the windows' actual completeness
   * @param meanAbsError mean over windows of |predicted − actual|
   * @param pooledError predicted − pooledActual (calibration error)
   */
  public record AgeError(
      Duration age,
      long windows,
      long events,
      double predicted,
      double pooledActual,
      double meanActual,
      double meanAbsError,
      double pooledError) {}

  /**
   * @param cutoff enqueued time that splits learning from held-out data
   * @param trainEvents events arrived by the cutoff (the CDF's input)
   * @param errors one entry per age
   */
  public record Result(Instant cutoff, long trainEvents, List<AgeError> errors) {
    public Result {
      errors = List.copyOf(errors);
    }
  }

  /**
   * @param lateness rows with {@code event_time}, {@code enqueued_time}, {@code lateness_s} ({@link
   *     LatenessStats#lateness})
   * @param window tumbling window length (aligned to the epoch, UTC)
   * @param holdout share of the latest arrivals held out, in (0, 1)
   * @param ages window ages to predict at
   * @param steps CDF quantile steps
   * @param accuracy {@code percentile_approx} accuracy
   * @return the errors per age
   * @throws IllegalArgumentException when the holdout is not in (0, 1) or no window qualifies
   */
  public static Result run(
      Dataset<Row> lateness,
      Duration window,
      double holdout,
      List<Duration> ages,
      int steps,
      int accuracy) {
    if (!(holdout > 0 && holdout < 1)) {
      throw new IllegalArgumentException(
          "Invalid holdout " + holdout + ": expected a share " + "strictly between 0 and 1");
    }
    Row bounds =
        lateness
            .agg(
                percentile_approx(
                    unix_micros(col("enqueued_time")), lit(1 - holdout), lit(accuracy)),
                max(unix_micros(col("enqueued_time"))))
            .first();
    long cutoff = bounds.getLong(0);
    long end = bounds.getLong(1);
    Column[] levels = new Column[steps + 1];
    for (int i = 0; i <= steps; i++) {
      levels[i] = lit((double) i / steps);
    }
    Dataset<Row> train = lateness.filter(unix_micros(col("enqueued_time")).leq(cutoff));
    Row q =
        train
            .agg(
                count(col("lateness_s")),
                percentile_approx(col("lateness_s"), array(levels), lit(accuracy)))
            .first();
    List<Double> qs = q.getList(1);
    double[] lv = new double[steps + 1];
    double[] vv = new double[steps + 1];
    for (int i = 0; i <= steps; i++) {
      lv[i] = (double) i / steps;
      vv[i] = qs.get(i);
    }
    LatenessCdf cdf = new LatenessCdf(lv, vv);

    long w = window.toNanos() / 1000;
    long maxAge = ages.stream().mapToLong(a -> a.toNanos() / 1000).max().orElse(0);
    Column start = floor(unix_micros(col("event_time")).divide(w)).multiply(w);
    List<Column> aggs = new ArrayList<>();
    aggs.add(count(lit(1)).as("total"));
    for (int i = 0; i < ages.size(); i++) {
      long a = ages.get(i).toNanos() / 1000;
      aggs.add(
          count_if(unix_micros(col("enqueued_time")).leq(col("_start").plus(w + a)))
              .as("arrived_" + i));
    }
    List<Row> windows =
        lateness
            .withColumn("_start", start)
            .filter(col("_start").geq(cutoff).and(col("_start").plus(w + maxAge).leq(end)))
            .groupBy(col("_start"))
            .agg(aggs.get(0), aggs.subList(1, aggs.size()).toArray(Column[]::new))
            .collectAsList();
    if (windows.isEmpty()) {
      throw new IllegalArgumentException(
          "No window of "
              + window
              + " starts after the cutoff "
              + "and ends "
              + Duration.ofNanos(maxAge * 1000)
              + " before the timeline's end");
    }
    List<AgeError> errors = new ArrayList<>();
    double wSeconds = w / 1e6;
    for (int i = 0; i < ages.size(); i++) {
      double predicted = cdf.windowCompleteness(ages.get(i).toNanos() / 1e9, wSeconds);
      long total = 0;
      long arrived = 0;
      double sumActual = 0;
      double sumAbs = 0;
      for (Row r : windows) {
        long t = r.getAs("total");
        long got = r.getAs("arrived_" + i);
        total += t;
        arrived += got;
        double actual = (double) got / t;
        sumActual += actual;
        sumAbs += Math.abs(predicted - actual);
      }
      double pooled = (double) arrived / total;
      errors.add(
          new AgeError(
              ages.get(i),
              windows.size(),
              total,
              predicted,
              pooled,
              sumActual / windows.size(),
              sumAbs / windows.size(),
              predicted - pooled));
    }
    return new Result(Instant.EPOCH.plusNanos(cutoff * 1000), q.getLong(0), errors);
  }
}

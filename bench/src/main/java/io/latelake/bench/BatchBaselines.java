package io.latelake.bench;

import static org.apache.spark.sql.functions.array;
import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.count_if;
import static org.apache.spark.sql.functions.floor;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.min_by;
import static org.apache.spark.sql.functions.percentile_approx;
import static org.apache.spark.sql.functions.row_number;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.to_date;
import static org.apache.spark.sql.functions.unix_micros;

import io.delta.tables.DeltaTable;
import io.latelake.core.event.BronzeRows;
import io.latelake.core.time.DayRange;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;

/**
 * The hand-written batch jobs latelake is measured against, reading the bronze table: the full
 * recompute of the metric and the least incremental correction (correction group), the least
 * lateness profile and one plain scan (profile group). Gold tables have {@link
 * Baselines#aggregate}'s schema; the streams are in {@link Baselines}.
 */
final class BatchBaselines {
  private BatchBaselines() {}

  /**
   * Full recompute of the metric from bronze: valid rows, exact dedup on {@code event_id} (earliest
   * enqueued time wins), windows, overwrite.
   */
  static void recompute(SparkSession spark, String bronze, String out, Duration window) {
    Dataset<Row> valid = spark.read().format("delta").load(bronze).filter(col("error").isNull());
    Baselines.aggregate(firstArrivals(valid), window)
        .write()
        .format("delta")
        .mode("overwrite")
        .save(out);
  }

  /**
   * The least an incremental correction does, on Spark and Delta alone: the windows of the bronze
   * rows ingested after {@code since} (a filter on {@code ingested_at}, which Delta's file
   * statistics prune), those windows recomputed from bronze (a filter on their event-time range,
   * pruned the same way; dedup among their rows only, so it does less than the exact dedup over
   * every copy of an id), and one MERGE into {@code out} on (window_start, device_id) with the
   * windows' range in the condition. No state, no log, no audit. Bounds the correction figure.
   *
   * @param out a gold table of {@link #recompute}'s schema
   * @return the number of windows touched
   */
  static int incrementalRecompute(
      SparkSession spark, String bronze, String out, Instant since, Duration window) {
    long w = window.toMillis() * 1000;
    Column index = floor(unix_micros(col("event_time")).divide(w));
    Dataset<Row> valid = spark.read().format("delta").load(bronze).filter(col("error").isNull());
    List<Long> touched =
        valid
            .filter(col("ingested_at").gt(lit(Timestamp.from(since))))
            .select(index.as("w"))
            .distinct()
            .collectAsList()
            .stream()
            .map(r -> r.getLong(0))
            .toList();
    if (touched.isEmpty()) {
      return 0;
    }
    long lo = touched.stream().mapToLong(Long::longValue).min().getAsLong();
    long hi = touched.stream().mapToLong(Long::longValue).max().getAsLong();
    Timestamp from = Timestamp.from(Instant.EPOCH.plus(Duration.ofNanos(lo * w * 1000)));
    Timestamp to = Timestamp.from(Instant.EPOCH.plus(Duration.ofNanos((hi + 1) * w * 1000)));
    Dataset<Row> rows =
        valid
            .filter(col("event_time").geq(lit(from)).and(col("event_time").lt(lit(to))))
            .filter(index.isin(touched.toArray()));
    Dataset<Row> first = firstArrivals(rows);
    DeltaTable.forPath(spark, out)
        .as("t")
        .merge(
            Baselines.aggregate(first, window).as("s"),
            "t.window_start >= TIMESTAMP '"
                + from.toInstant()
                + "' AND t.window_start < TIMESTAMP '"
                + to.toInstant()
                + "' AND t.window_start = s.window_start AND t.device_id = s.device_id")
        .whenMatched()
        .updateAll()
        .whenNotMatched()
        .insertAll()
        .execute();
    return touched.size();
  }

  /**
   * The least a lateness profile of {@code days} does: bronze's rows with both times (valid, or
   * future-dated) from ingest date {@code from − 1 day − horizon} on (the partitions the profile
   * reads, {@link io.latelake.profiler.ProfileReads#readArrivals}), the first arrival of each
   * {@code event_id} ({@code min_by} on enqueued time, then ingest time), Kafka CreateTime rows
   * left out, then per source and arrival day in {@code days} the count and one {@code
   * percentile_approx} of lateness at {@code levels}. No arrival-order watermark flags, no other
   * counts, nothing written. Bounds the profile figure.
   *
   * @param horizon the id horizon ({@code lake.correction.dedup-horizon})
   * @return one row per (source, day): {@code source}, {@code arrival_day}, {@code n}, {@code
   *     quantiles} (array of double, at {@code levels})
   */
  static List<Row> minimalProfile(
      SparkSession spark,
      String bronze,
      DayRange days,
      Duration horizon,
      double[] levels,
      int accuracy) {
    Column[] at = new Column[levels.length];
    for (int i = 0; i < levels.length; i++) {
      at[i] = lit(levels[i]);
    }
    return measuredFirstArrivals(spark, bronze, days, horizon)
        .groupBy(col("source"), to_date(col("enqueued_time")).as("arrival_day"))
        .agg(
            count(lit(1)).as("n"),
            percentile_approx(
                    unix_micros(col("enqueued_time"))
                        .minus(unix_micros(col("event_time")))
                        .divide(1_000_000.0),
                    array(at),
                    lit(accuracy))
                .as("quantiles"))
        .collectAsList();
  }

  /**
   * The exact ranks of {@code values} among the lateness of one (source, day) group of {@link
   * #minimalProfile}'s events: for each value, the count of events whose lateness is below it and
   * the count at or below it, so the value's ranks are {@code [below + 1, atOrBelow]}. Not timed:
   * the check of the bound's output ({@link ProfileBench#differences}).
   *
   * @param day the group's arrival day, as a collected row holds it
   * @return {@code [below, atOrBelow]} per value, in order
   */
  static long[][] ranks(
      SparkSession spark,
      String bronze,
      DayRange days,
      Duration horizon,
      String source,
      Object day,
      double[] values) {
    Column lateness =
        unix_micros(col("enqueued_time")).minus(unix_micros(col("event_time"))).divide(1_000_000.0);
    Column[] counts = new Column[2 * values.length];
    for (int i = 0; i < values.length; i++) {
      counts[2 * i] = count_if(lateness.lt(lit(values[i])));
      counts[2 * i + 1] = count_if(lateness.leq(lit(values[i])));
    }
    Row r =
        measuredFirstArrivals(spark, bronze, days, horizon)
            .filter(
                col("source")
                    .eqNullSafe(lit(source))
                    .and(to_date(col("enqueued_time")).equalTo(lit(day))))
            .agg(counts[0], java.util.Arrays.copyOfRange(counts, 1, counts.length))
            .first();
    long[][] out = new long[values.length][];
    for (int i = 0; i < values.length; i++) {
      out[i] = new long[] {r.getLong(2 * i), r.getLong(2 * i + 1)};
    }
    return out;
  }

  /**
   * The events a profile of {@code days} measures, by the least means: bronze from the ingest date
   * the profile reads from, first arrivals by {@code min_by} on enqueued time then ingest time (the
   * first two of the exact dedup's order), CreateTime rows left out, arrival day in {@code days};
   * columns {@code source}, {@code event_time}, {@code enqueued_time}, {@code timestamp_type}.
   */
  private static Dataset<Row> measuredFirstArrivals(
      SparkSession spark, String bronze, DayRange days, Duration horizon) {
    Dataset<Row> kept =
        spark
            .read()
            .format("delta")
            .load(bronze)
            .filter(
                BronzeRows.ingestDateFrom(
                    io.latelake.profiler.ProfileReads.dedupFrom(days, horizon)))
            .filter(
                col("event_time")
                    .isNotNull()
                    .and(col("enqueued_time").isNotNull())
                    .and(col("error").isNull().or(col("error").equalTo("FUTURE_EVENT_TIME"))));
    Dataset<Row> first =
        kept.groupBy("event_id")
            .agg(
                min_by(
                        struct(
                            col("source"),
                            col("event_time"),
                            col("enqueued_time"),
                            col("timestamp_type")),
                        struct(col("enqueued_time"), col("ingested_at")))
                    .as("f"))
            .select("f.*")
            .filter(
                coalesce(
                        col("timestamp_type")
                            .notEqual(lit(io.latelake.profiler.LatenessStats.CREATE_TIME)),
                        lit(true))
                    .and(inDays(days)));
    return first;
  }

  /** One plain scan of bronze: count, min and max of lateness in seconds. */
  static Row latenessScan(SparkSession spark, String bronze) {
    return latenessScan(spark.read().format("delta").load(bronze));
  }

  /**
   * One plain scan of the rows that arrived on {@code days}: bronze pruned to the ingest dates they
   * can lie in ({@link BronzeRows#ingestDateFrom}), rows whose UTC arrival day is in the range;
   * count, min and max of lateness in seconds.
   */
  static Row latenessScan(SparkSession spark, String bronze, DayRange days) {
    return latenessScan(
        spark
            .read()
            .format("delta")
            .load(bronze)
            .filter(BronzeRows.ingestDateFrom(days.from()).and(inDays(days))));
  }

  private static Row latenessScan(Dataset<Row> rows) {
    return rows.select(
            unix_micros(col("enqueued_time"))
                .minus(unix_micros(col("event_time")))
                .divide(1_000_000.0)
                .as("lateness_s"))
        .agg(count(lit(1)), min("lateness_s"), max("lateness_s"))
        .first();
  }

  /** Rows whose UTC arrival day ({@code to_date(enqueued_time)}) lies in {@code days}. */
  private static Column inDays(DayRange days) {
    return to_date(col("enqueued_time"))
        .between(lit(java.sql.Date.valueOf(days.from())), lit(java.sql.Date.valueOf(days.to())));
  }

  /** The first copy of each {@code event_id}: earliest enqueued time, then earliest ingest. */
  private static Dataset<Row> firstArrivals(Dataset<Row> rows) {
    return rows.withColumn(
            "rn",
            row_number()
                .over(
                    Window.partitionBy("event_id")
                        .orderBy(col("enqueued_time"), col("ingested_at"))))
        .filter(col("rn").equalTo(1));
  }
}

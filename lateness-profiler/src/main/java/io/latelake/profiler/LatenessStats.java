package io.latelake.profiler;

import static org.apache.spark.sql.functions.array;
import static org.apache.spark.sql.functions.avg;
import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_list;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.count_if;
import static org.apache.spark.sql.functions.date_trunc;
import static org.apache.spark.sql.functions.element_at;
import static org.apache.spark.sql.functions.explode;
import static org.apache.spark.sql.functions.first;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.not;
import static org.apache.spark.sql.functions.percentile_approx;
import static org.apache.spark.sql.functions.sort_array;
import static org.apache.spark.sql.functions.stddev_samp;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.to_date;
import static org.apache.spark.sql.functions.unix_micros;
import static org.apache.spark.sql.functions.when;

import io.latelake.core.dedup.ExactDedup;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;

/**
 * Pure {@code Dataset<Row>} transformations of the profiler; no I/O, callable from tests.
 *
 * <p><b>Percentiles.</b> Every percentile is Spark's {@code percentile_approx(lateness_s, p,
 * accuracy)}: it returns an actual lateness value, the smallest one whose rank reaches about {@code
 * ceil(p * n)}, without interpolation; the rank of the returned value is within {@code n /
 * accuracy} of that exact rank (Spark docs of {@code approx_percentile}: "1.0/accuracy is the
 * relative error of the approximation"; Greenwald–Khanna summary). With the default accuracy 10000
 * and fewer than 10000 values per group the result is exact. With {@link ProfilerConfig#exact}
 * ({@code latelake profile --exact}, for audits) every percentile is Spark's {@code
 * percentile_disc(p) WITHIN GROUP (ORDER BY lateness_s)} instead: the exact value at rank {@code
 * ceil(p * n)} (the smallest value whose cumulative share reaches p), at any n, for the memory of
 * every distinct lateness value of a group at once. Null lateness (null event or enqueued time) is
 * ignored.
 */
public final class LatenessStats {
  /** Percentile levels of {@code monitoring.lateness_stats}, in column order. */
  public static final double[] LEVELS = {0.1, 0.5, 0.9, 0.95, 0.99, 0.999};

  /** Percentile columns matching {@link #LEVELS}. */
  public static final List<String> PERCENTILE_COLUMNS =
      List.of("p10_s", "p50_s", "p90_s", "p95_s", "p99_s", "p999_s");

  /** Kafka {@code timestampType} of CreateTime: the producer's clock, not an arrival time. */
  public static final int CREATE_TIME = 0;

  /** Kafka {@code timestampType} of LogAppendTime: the broker's clock. */
  public static final int LOG_APPEND_TIME = 1;

  private LatenessStats() {}

  /**
   * Every received copy the profiler looks at, marked as measured or not.
   *
   * <p>Input: bronze rows ({@code event_id}, {@code event_time}, {@code enqueued_time}, {@code
   * timestamp_type}, {@code ingest_date}, {@code source}, {@code error}, and the tie-break columns
   * bronze has: {@code ingested_at}, {@code kafka_partition}, {@code kafka_offset}, {@code
   * source_file}, {@code payload}). Kept: rows with both times and {@code error} null or {@code
   * FUTURE_EVENT_TIME} (those are the clock-skew events the profile must show, case C10; they are
   * kept out of the streaming path, not out of the profile).
   *
   * <p>Output: {@code source} string, {@code arrival_day} date (UTC date of enqueued_time), {@code
   * ingest_date} date, {@code event_time}, {@code enqueued_time} timestamps, {@code timestamp_type}
   * int, {@code lateness_s} double = (enqueued_time − event_time) in seconds, microsecond
   * precision, negative for clock skew; {@code redelivery} boolean (not the first arrival of its
   * {@code event_id} among the rows given: {@link ExactDedup}, the rule of the correction path;
   * case C30); {@code producer_clock} boolean (Kafka CreateTime: the enqueued time is the
   * producer's clock, not an arrival time; case C14).
   */
  public static Dataset<Row> arrivals(Dataset<Row> bronze) {
    Dataset<Row> kept =
        bronze.filter(
            col("event_time")
                .isNotNull()
                .and(col("enqueued_time").isNotNull())
                .and(col("error").isNull().or(col("error").equalTo("FUTURE_EVENT_TIME"))));
    return ExactDedup.withCopyNumber(kept, "_copy")
        .select(
            col("source"),
            to_date(col("enqueued_time")).as("arrival_day"),
            col("ingest_date"),
            col("event_time"),
            col("enqueued_time"),
            col("timestamp_type"),
            latenessSeconds().as("lateness_s"),
            col("_copy").gt(1).as("redelivery"),
            coalesce(col("timestamp_type").equalTo(CREATE_TIME), lit(false)).as("producer_clock"));
  }

  /**
   * @return whether an {@link #arrivals} row is measured: a first arrival on a broker clock
   */
  public static Column measured() {
    return not(col("redelivery")).and(not(col("producer_clock")));
  }

  /**
   * The events the profiler measures, with their lateness: {@link #arrivals} that are first
   * arrivals (deduplicated events: lateness is a property of an event's first arrival) with an
   * enqueued time from the broker's clock (Kafka LogAppendTime, or a file source's arrival time),
   * never Kafka CreateTime rows. Same columns as {@link #arrivals}.
   */
  public static Dataset<Row> lateness(Dataset<Row> bronze) {
    return arrivals(bronze).filter(measured());
  }

  /**
   * @return (enqueued_time − event_time) in seconds, microsecond precision
   */
  public static Column latenessSeconds() {
    return unix_micros(col("enqueued_time"))
        .minus(unix_micros(col("event_time")))
        .divide(1_000_000.0);
  }

  /**
   * The percentile levels of {@link #summary}'s {@code quantiles}, in order: {@link #LEVELS} (the
   * rows of {@link #statsOf}), then {@code i / cdfSteps} for {@code i = 0..cdfSteps} ({@link
   * #cdf}), then {@code lake.profiler.watermark-coverage} and {@code correction-coverage} ({@link
   * #advice}).
   */
  static double[] summaryLevels(ProfilerConfig cfg) {
    List<Double> levels = new ArrayList<>();
    for (double v : LEVELS) {
      levels.add(v);
    }
    for (int i = 0; i <= cfg.cdfSteps(); i++) {
      levels.add((double) i / cfg.cdfSteps());
    }
    levels.addAll(adviceTargets(cfg));
    return levels.stream().mapToDouble(Double::doubleValue).toArray();
  }

  /** The advice targets: {@code watermark-coverage}, then {@code correction-coverage}. */
  static List<Double> adviceTargets(ProfilerConfig cfg) {
    List<Double> targets = new ArrayList<>(cfg.watermarkCoverage());
    targets.add(cfg.correctionCoverage());
    return targets;
  }

  /**
   * Every figure of a profile run, in one query over {@link #arrivals}: one row per source and
   * arrival day, with the day's hours of arrival nested, and one per source over all the rows given
   * ({@code arrival_day} null). {@link #statsOf}, {@link RangeFigures#cdf} and {@link
   * RangeFigures#advice} derive their rows from these, so a run reads bronze once and aggregates
   * once.
   *
   * <p>How: each row is counted in its hour's, its day's and its source's group (the rows are
   * emitted once per group), with one {@link #quantiles} aggregate per day and source group at all
   * {@link #summaryLevels} (an hour group keeps only its counts and sketch); a second aggregation
   * of those few rows per source and day nests the hours into their day's row and merges their
   * sketches into the day's. The behind-the-watermark flag needs a source's rows in arrival order
   * ({@link BehindWatermark#flag}: a window per source and hour of arrival, and the running maximum
   * of the hours before), computed on the deduplicated rows before they are emitted per group. An
   * earlier version counted it in a second branch joined on the group, and Spark ran that branch's
   * scan, dedup and aggregation a second time (bench, 5M rows of one source: 35.3 s in two chains
   * of stages side by side; 33.2 s in one, with half the CPU time). Until the hour buckets, the
   * arrival-order window sorted each source's rows in one task (14 s of that 5M pass), which no
   * number of cores could shorten; on 2 local cores with one source the buckets change nothing
   * measurable (bench, 1M events: profile 9.31 s before, 9.76 s after, scan 0.31/0.33 s).
   *
   * <p>Measured rows ({@link #measured}) as in {@link #stats}. Output (seconds, UTC): {@code
   * source} string, {@code arrival_day} date (null: the group over all days), {@code n} long,
   * {@code mean_s}, {@code stddev_s}, {@code min_s} double, {@code quantiles} array of double (at
   * {@link #summaryLevels}; null when n = 0), {@code max_s} double, {@code negative_count}, {@code
   * beyond_watermark_count}, {@code beyond_correction_count}, {@code after_publish_count}, {@code
   * create_time_count}, {@code log_append_count} (measured rows with Kafka LogAppendTime), {@code
   * redelivery_count}, {@code received_count} (every received copy), {@code behind_watermark_count}
   * long, {@code sum_s} double (the measured lateness summed), {@code lateness_by_hour} array of
   * struct (the day's hours of arrival with rows, ascending, {@link #HOUR_FIELDS}: {@code
   * arrival_hour} timestamp, the hour's start; {@code n}, {@code sum_s}, {@code min_s}, {@code
   * max_s} and the counts as above; the hour's {@code lateness_sketch}, a KLL sketch, {@link
   * LatenessSketches}; empty in the range rows), {@code lateness_sketch} binary (the day's hours'
   * sketches merged; null in the range rows).
   *
   * @param arrivals output of {@link #arrivals} (or of {@link #lateness})
   * @param cfg thresholds, accuracy, CDF steps and advice targets
   */
  public static Dataset<Row> summary(Dataset<Row> arrivals, ProfilerConfig cfg) {
    double wm = cfg.watermarkDelaySeconds();
    double horizon = cfg.correctionHorizonSeconds();
    long publishMicros = cfg.publishAfter().toNanos() / 1000;
    Column m = measured();
    // the lateness of measured rows only; null (ignored by every aggregate) for the others
    Column l = when(m, col("lateness_s"));
    Column afterPublish =
        m.and(
            unix_micros(col("enqueued_time"))
                .gt(unix_micros(date_trunc("DAY", col("event_time"))).plus(publishMicros)));
    // each row once in its hour's group, once in its day's group (null hour) and once in its
    // source's group over all days (null day and hour)
    Column noHour = lit(null).cast(DataTypes.TimestampType);
    Column groups =
        explode(
            array(
                struct(
                    col("arrival_day").as("day"),
                    date_trunc("HOUR", col("enqueued_time")).as("hour")),
                struct(col("arrival_day").as("day"), noHour.as("hour")),
                struct(lit(null).cast(DataTypes.DateType).as("day"), noHour.as("hour"))));
    Dataset<Row> byGroup =
        arrivals
            .transform(rows -> BehindWatermark.flag(rows, wm, m))
            .withColumn("_behind", m.and(col("_behind")))
            .select(col("*"), groups.as("_g"))
            // percentiles for the day and range groups only: an hour keeps its sketch
            .withColumn("_l", when(col("_g.hour").isNull(), l))
            .groupBy(
                col("source"), col("_g.day").as("arrival_day"), col("_g.hour").as("arrival_hour"))
            .agg(
                count(l).as("n"),
                avg(l).as("mean_s"),
                stddev_samp(l).as("stddev_s"),
                min(l).as("min_s"),
                quantiles("_l", summaryLevels(cfg), cfg).as("quantiles"),
                max(l).as("max_s"),
                count_if(l.lt(0)).as("negative_count"),
                count_if(l.gt(wm)).as("beyond_watermark_count"),
                count_if(l.gt(horizon)).as("beyond_correction_count"),
                count_if(afterPublish).as("after_publish_count"),
                count_if(col("producer_clock").and(not(col("redelivery")))).as("create_time_count"),
                count_if(m.and(col("timestamp_type").equalTo(LOG_APPEND_TIME)))
                    .as("log_append_count"),
                count_if(col("redelivery")).as("redelivery_count"),
                count(lit(1)).as("received_count"),
                count_if(col("_behind")).as("behind_watermark_count"),
                // hours only: a day's sketch is its hours' merged (below), one update per row
                LatenessSketches.sketch(when(col("_g.hour").isNotNull(), l)).as("lateness_sketch"),
                sum(l).as("sum_s"));
    // the hours into their day's row, in the same query (a few rows per source and day by now)
    Column isHour = col("arrival_hour").isNotNull();
    List<Column> nested = new ArrayList<>();
    for (String c : byGroup.columns()) {
      if (!List.of("source", "arrival_day", "arrival_hour", "lateness_sketch").contains(c)) {
        // the one day (or range) row of the group: first non-null value among the rows
        nested.add(first(when(not(isHour), col(c)), true).as(c));
      }
    }
    nested.add(
        sort_array(
                collect_list(
                    when(
                        isHour,
                        struct(HOUR_FIELDS.stream().map(c -> col(c)).toArray(Column[]::new)))))
            .as("lateness_by_hour"));
    nested.add(collect_list(when(isHour, col("lateness_sketch"))).as("_sketches"));
    return byGroup
        .groupBy(col("source"), col("arrival_day"))
        .agg(nested.get(0), nested.subList(1, nested.size()).toArray(Column[]::new))
        .withColumn("lateness_sketch", LatenessSketches.merged("_sketches"))
        .drop("_sketches");
  }

  /** The fields of one element of {@code lateness_stats.lateness_by_hour}, in order. */
  public static final List<String> HOUR_FIELDS =
      List.of(
          "arrival_hour",
          "n",
          "sum_s",
          "min_s",
          "max_s",
          "negative_count",
          "beyond_watermark_count",
          "behind_watermark_count",
          "beyond_correction_count",
          "after_publish_count",
          "create_time_count",
          "redelivery_count",
          "received_count",
          "lateness_sketch");

  /**
   * The percentiles of {@code lateness} at {@code levels} in one aggregate: {@code
   * percentile_approx} at {@link ProfilerConfig#accuracy}, or with {@link ProfilerConfig#exact}
   * {@code percentile_disc} (exact). Both return the value at rank {@code ceil(p * n)}; null values
   * are ignored.
   *
   * @param lateness the name of a double column ({@code percentile_disc} is reached through SQL:
   *     Spark's Java API has no function for it)
   * @return array of double, in the order of {@code levels}; null for a group without values
   */
  static Column quantiles(String lateness, double[] levels, ProfilerConfig cfg) {
    if (!cfg.exact()) {
      return percentile_approx(
          col(lateness),
          array(java.util.Arrays.stream(levels).mapToObj(v -> lit(v)).toArray(Column[]::new)),
          lit(cfg.accuracy()));
    }
    StringBuilder sql = new StringBuilder("percentile_disc(array(");
    for (int i = 0; i < levels.length; i++) {
      // a double literal (D suffix), in plain digits: no exponent for Spark to misread
      sql.append(i == 0 ? "" : ", ")
          .append(java.math.BigDecimal.valueOf(levels[i]).toPlainString());
      sql.append("D");
    }
    sql.append(")) WITHIN GROUP (ORDER BY ").append(lateness).append(")");
    return org.apache.spark.sql.functions.expr(sql.toString());
  }

  /**
   * Lateness statistics per source and arrival day: the rows of {@code monitoring.lateness_stats}.
   * {@link #statsOf} over {@link #summary}.
   *
   * <p>Measured rows ({@link #measured}): first arrivals on a broker clock. {@code n}, the moments,
   * percentiles and every {@code *_count}/{@code *_share} but the two below are over them (a share
   * is null when n = 0). Kafka CreateTime first arrivals are counted in {@code create_time_count}
   * and not measured; redelivered copies in {@code redelivery_count}, with {@code redelivery_share}
   * = redeliveries / all received rows of the source and day.
   *
   * <p>Output schema (seconds, UTC): {@code source} string, {@code arrival_day} date, {@code n}
   * long, {@code mean_s}, {@code stddev_s} (sample; null when n = 1), {@code min_s}, {@code p10_s},
   * {@code p50_s}, {@code p90_s}, {@code p95_s}, {@code p99_s}, {@code p999_s}, {@code max_s}
   * double, {@code negative_count} long and {@code negative_share} double (lateness &lt; 0: clock
   * skew), {@code beyond_watermark_count}/{@code _share} (lateness &gt; watermark delay: what the
   * watermark drops, bounded from above when clocks are not skewed), {@code
   * behind_watermark_count}/ {@code _share} (behind the watermark in arrival order, {@link
   * BehindWatermark#flag}: what it drops), {@code beyond_correction_count}/{@code _share} (lateness
   * &gt; {@code lake.correction.horizon}: arrived after the window was settled), {@code
   * after_publish_count}/{@code _share} (enqueued after the publish time of the event's own UTC day
   * = day start + publish-after), {@code create_time_count} long (events with Kafka CreateTime:
   * left out of every figure above), {@code clock_basis} string ({@code broker} all measured rows
   * LogAppendTime, {@code producer-clock} only CreateTime rows — nothing measured, n = 0 —, {@code
   * mixed-producer-clock} some CreateTime rows left out, {@code captured} files/replays), {@code
   * watermark_delay_s}, {@code correction_horizon_s}, {@code publish_after_s} double, {@code
   * accuracy} int (null: exact percentiles, {@code --exact}), {@code computed_at} timestamp, {@code
   * redelivery_count} long (received copies that are not their event's first arrival), {@code
   * redelivery_share} double, {@code lateness_sketch} binary (the measured lateness as a KLL
   * sketch, k = {@value LatenessSketches#K}, its hours' sketches merged: days merge into a range's
   * quantiles, {@link LatenessSketches#over}), {@code lateness_by_hour} array of struct (the day's
   * hours of arrival with rows, ascending: {@link #HOUR_FIELDS}, the hour's counts, sum, extremes
   * and sketch; hours merge into the quantiles of any span of hours, {@link
   * LatenessSketches#overHours}).
   *
   * @param arrivals output of {@link #arrivals} (or of {@link #lateness}: nothing is then left out)
   * @param cfg thresholds and accuracy
   * @param computedAt the run's time
   */
  public static Dataset<Row> stats(Dataset<Row> arrivals, ProfilerConfig cfg, Instant computedAt) {
    return statsOf(summary(arrivals, cfg), cfg, computedAt);
  }

  /**
   * The rows of {@code monitoring.lateness_stats} ({@link #stats} schema) from the per-day rows of
   * a {@link #summary} made with the same {@code cfg}.
   */
  public static Dataset<Row> statsOf(Dataset<Row> summary, ProfilerConfig cfg, Instant computedAt) {
    List<Column> out =
        new ArrayList<>(
            List.of(
                col("source"),
                col("arrival_day"),
                col("n"),
                col("mean_s"),
                col("stddev_s"),
                col("min_s")));
    for (int i = 0; i < LEVELS.length; i++) {
      out.add(element_at(col("quantiles"), i + 1).as(PERCENTILE_COLUMNS.get(i)));
    }
    out.add(col("max_s"));
    for (String c :
        List.of(
            "negative",
            "beyond_watermark",
            "behind_watermark",
            "beyond_correction",
            "after_publish")) {
      out.add(col(c + "_count"));
      out.add(when(col("n").gt(0), col(c + "_count").divide(col("n"))).as(c + "_share"));
    }
    out.add(col("create_time_count"));
    out.add(
        when(col("create_time_count").gt(0).and(col("n").equalTo(0)), lit("producer-clock"))
            .when(col("create_time_count").gt(0), lit("mixed-producer-clock"))
            .when(col("log_append_count").equalTo(col("n")), lit("broker"))
            .otherwise(lit("captured"))
            .as("clock_basis"));
    out.add(lit(cfg.watermarkDelaySeconds()).as("watermark_delay_s"));
    out.add(lit(cfg.correctionHorizonSeconds()).as("correction_horizon_s"));
    out.add(lit(cfg.publishAfter().toNanos() / 1e9).as("publish_after_s"));
    out.add(
        (cfg.exact() ? lit(null).cast(DataTypes.IntegerType) : lit(cfg.accuracy())).as("accuracy"));
    out.add(lit(java.sql.Timestamp.from(computedAt)).as("computed_at"));
    out.add(col("redelivery_count"));
    out.add(col("redelivery_count").divide(col("received_count")).as("redelivery_share"));
    out.add(col("lateness_sketch"));
    out.add(col("lateness_by_hour"));
    return summary.filter(col("arrival_day").isNotNull()).select(out.toArray(Column[]::new));
  }
}

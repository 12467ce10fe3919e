package io.latelake.profiler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.latelake.core.testing.SparkTestBase;
import java.sql.Date;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/** Exact lateness statistics on small fixtures, including cases C10, C12, C13, C14, C30. */
class LatenessStatsTest extends SparkTestBase {
  private static final Instant NOW = Instant.parse("2024-05-20T00:00:00Z");

  private Row onlyRow(List<Row> bronzeRows, ProfilerConfig cfg) {
    Dataset<Row> arrivals = LatenessStats.arrivals(Fixtures.bronze(spark, bronzeRows));
    List<Row> rows = LatenessStats.stats(arrivals, cfg, NOW).collectAsList();
    assertThat(rows).hasSize(1);
    return rows.get(0);
  }

  @Test
  void c13SmallSetGivesActualValuesWithoutInterpolation() {
    Row r = c13Small(Fixtures.profiler());
    assertThat(List.of(r.getAs("p50_s"), r.getAs("p90_s"), r.getAs("p99_s")))
        .containsExactly(60.0, 600.0, 600.0);
    assertThat(r.<Long>getAs("n")).isEqualTo(4L);
  }

  /** Case C13's small set: lateness 0, 60, 120, 600 s. */
  private Row c13Small(ProfilerConfig cfg) {
    return onlyRow(Fixtures.withLateness("web", "2024-05-14T12:00:00Z", 0, 60, 120, 600), cfg);
  }

  private Row thousand(int accuracy) {
    return thousand(Fixtures.profiler("lake.profiler.accuracy=" + accuracy));
  }

  /** One day of 1000 events, lateness 1, 2, ..., 1000 s. */
  private Row thousand(ProfilerConfig cfg) {
    double[] l = new double[1000];
    for (int i = 0; i < 1000; i++) {
      l[i] = i + 1;
    }
    return onlyRow(Fixtures.withLateness("web", "2024-05-14T00:00:00Z", l), cfg);
  }

  @Test
  void c13ThousandEventsAtDefaultAccuracyAreExact() {
    Row r = thousand(10000);
    assertThat(r.<Double>getAs("p50_s")).isEqualTo(500.0);
    assertThat(r.<Double>getAs("p90_s")).isEqualTo(900.0);
  }

  @Test
  void c13LowAccuracyMovesThePercentileByUpToNOverAccuracyRanks() {
    Row r100 = thousand(100);
    Row r10 = thousand(10);
    assertThat(
            List.of(
                r100.<Double>getAs("p50_s"),
                r100.<Double>getAs("p90_s"),
                r10.<Double>getAs("p50_s")))
        .containsExactly(498.0, 891.0, 413.0);
    assertThat(Math.abs(r10.<Double>getAs("p50_s") - 500)).isLessThanOrEqualTo(1000 / 10.0);
  }

  @Test
  void c13ExactPercentilesAreTheValueAtRankCeilPnWhateverTheAccuracy() {
    Row r = thousand(Fixtures.profiler("lake.profiler.accuracy=10").withExact(true));
    assertThat(LatenessStats.PERCENTILE_COLUMNS.stream().map(c -> r.<Double>getAs(c)).toList())
        .containsExactly(100.0, 500.0, 900.0, 950.0, 990.0, 999.0);
    assertThat(r.<Integer>getAs("accuracy")).isNull();
    // without interpolation, as percentile_approx (percentile_cont would give 90 for p50)
    Row small = c13Small(Fixtures.profiler().withExact(true));
    assertThat(List.of(small.getAs("p50_s"), small.getAs("p90_s"), small.getAs("p99_s")))
        .containsExactly(60.0, 600.0, 600.0);
  }

  @Test
  void c12NullEventTimesAreIgnored() {
    List<Row> rows =
        List.of(
            Fixtures.row(
                "c12-e1", "2024-05-14T12:01:00Z", "2024-05-14T12:01:05Z", null, "web", null),
            Fixtures.row("c12-e2", null, "2024-05-14T12:01:06Z", null, "web", "MISSING_EVENT_TIME"),
            Fixtures.row(
                "c12-e3", "2024-05-14T12:02:00Z", "2024-05-14T12:02:09Z", null, "web", null),
            Fixtures.row(
                "c12-e4", "2024-05-14T12:03:00Z", "2024-05-14T12:03:30Z", null, "web", null),
            Fixtures.row("c12-e5", null, "2024-05-14T12:03:06Z", null, "web", null));
    Row r = onlyRow(rows, Fixtures.profiler());
    assertThat(r.<Long>getAs("n")).isEqualTo(3L);
    assertThat(r.<Double>getAs("p50_s")).isEqualTo(9.0);
    assertThat(r.<Double>getAs("min_s")).isEqualTo(5.0);
    assertThat(r.<Double>getAs("max_s")).isEqualTo(30.0);
  }

  @Test
  void c10FutureDatedEventShowsAsSkew() {
    List<Row> rows =
        List.of(
            Fixtures.row(
                "c10-e1", "2024-05-14T12:01:00Z", "2024-05-14T12:01:01Z", null, "web", null),
            Fixtures.row(
                "c10-e2", "2024-05-14T12:02:00Z", "2024-05-14T12:02:01Z", null, "web", null),
            Fixtures.row(
                "c10-e3",
                "2024-05-15T12:03:00Z",
                "2024-05-14T12:03:01Z",
                null,
                "web",
                "FUTURE_EVENT_TIME"),
            Fixtures.row(
                "c10-e4", "2024-05-14T12:04:00Z", "2024-05-14T12:04:01Z", null, "web", null),
            Fixtures.row(
                "c10-e5", "2024-05-14T12:06:00Z", "2024-05-14T12:06:01Z", null, "web", null));
    Row r = onlyRow(rows, Fixtures.profiler());
    assertThat(r.<Double>getAs("min_s")).isEqualTo(-86399.0);
    assertThat(r.<Double>getAs("p10_s")).isEqualTo(-86399.0);
    assertThat(r.<Double>getAs("p50_s")).isEqualTo(1.0);
    assertThat(r.<Long>getAs("negative_count")).isEqualTo(1L);
    assertThat(r.<Double>getAs("negative_share")).isEqualTo(0.2);
    // the skewed event drags the watermark a day ahead: c10-e4 and c10-e5 arrive behind it,
    // although their own lateness (1 s) is far below the 10-minute delay
    assertThat(r.<Long>getAs("behind_watermark_count")).isEqualTo(2L);
    assertThat(r.<Long>getAs("beyond_watermark_count")).isEqualTo(0L);
  }

  @Test
  void handComputedFixturePerSourceAndArrivalDay() {
    // web on 2024-05-14: lateness -5, 0, 30, 700, 4000 s (watermark 10 min, horizon 1 h,
    // publish next day 06:00); captured arrival times (files).
    List<Row> rows = new ArrayList<>();
    String[][] web = {
      {"2024-05-14T10:00:05Z", "2024-05-14T10:00:00Z"},
      {"2024-05-14T10:00:00Z", "2024-05-14T10:00:00Z"},
      {"2024-05-14T10:00:00Z", "2024-05-14T10:00:30Z"},
      {"2024-05-14T10:00:00Z", "2024-05-14T10:11:40Z"},
      {"2024-05-14T10:00:00Z", "2024-05-14T11:06:40Z"}
    };
    for (int i = 0; i < web.length; i++) {
      rows.add(Fixtures.row("w" + i, web[i][0], web[i][1], null, "web", null));
    }
    // app: an event of 2024-05-13 23:00 arriving 2024-05-14 07:00 (after the 13th's publish
    // time, 28800 s late) and one 2 s late; LogAppendTime. Arrival day 2024-05-14 for both.
    rows.add(Fixtures.row("a0", "2024-05-13T23:00:00Z", "2024-05-14T07:00:00Z", 1, "app", null));
    rows.add(Fixtures.row("a1", "2024-05-14T08:00:00Z", "2024-05-14T08:00:02Z", 1, "app", null));
    // not valid: ignored
    rows.add(
        Fixtures.row(
            "x", "2024-05-14T08:00:00Z", "2024-05-14T08:00:02Z", 1, "app", "INVALID_FIELD"));
    ProfilerConfig cfg =
        Fixtures.profiler(
            "lake.profiler.watermark-delay=10 minutes",
            "lake.correction.horizon=1 hour",
            "lake.profiler.publish-after=30 hours");
    Dataset<Row> stats =
        LatenessStats.stats(LatenessStats.arrivals(Fixtures.bronze(spark, rows)), cfg, NOW);
    assertThat(stats.orderBy("source").collectAsList())
        .extracting(
            r -> r.getAs("source"),
            r -> r.getAs("arrival_day"),
            r -> r.getAs("n"),
            r -> r.getAs("min_s"),
            r -> r.getAs("p50_s"),
            r -> r.getAs("max_s"),
            r -> r.getAs("mean_s"),
            r -> r.getAs("negative_count"),
            r -> r.getAs("beyond_watermark_count"),
            r -> r.getAs("beyond_watermark_share"),
            r -> r.getAs("beyond_correction_count"),
            r -> r.getAs("after_publish_count"),
            r -> r.getAs("create_time_count"),
            r -> r.getAs("clock_basis"))
        .containsExactly(
            tuple(
                "app",
                Date.valueOf(LocalDate.of(2024, 5, 14)),
                2L,
                2.0,
                2.0,
                28800.0,
                14401.0,
                0L,
                1L,
                0.5,
                1L,
                1L,
                0L,
                "broker"),
            tuple(
                "web",
                Date.valueOf(LocalDate.of(2024, 5, 14)),
                5L,
                -5.0,
                30.0,
                4000.0,
                945.0,
                1L,
                2L,
                0.4,
                1L,
                0L,
                0L,
                "captured"));
  }

  @Test
  void c14CreateTimeRowsAreCountedApartAndLeftOutOfTheFigures() {
    List<Row> rows =
        List.of(
            Fixtures.row("c14-k1", "2024-05-14T12:00:00Z", "2024-05-14T12:00:30Z", 1, "web", null),
            Fixtures.row("c14-k2", "2024-05-14T12:00:00Z", "2024-05-14T12:01:30Z", 1, "web", null),
            Fixtures.row("c14-k3", "2024-05-14T12:00:00Z", "2024-05-14T12:05:00Z", 1, "web", null),
            // CreateTime copied from event_time by the producer: lateness would read 0
            Fixtures.row("c14-k4", "2024-05-14T10:00:00Z", "2024-05-14T10:00:00Z", 0, "web", null),
            Fixtures.row("c14-k5", "2024-05-14T10:01:00Z", "2024-05-14T10:01:00Z", 0, "web", null));
    Row r = onlyRow(rows, Fixtures.profiler());
    assertThat(
            List.<Object>of(
                r.getAs("n"),
                r.getAs("p50_s"),
                r.getAs("min_s"),
                r.getAs("max_s"),
                r.getAs("create_time_count"),
                r.getAs("clock_basis")))
        .containsExactly(3L, 90.0, 30.0, 300.0, 2L, "mixed-producer-clock");
    // a topic of CreateTime rows only: nothing measured, the rows counted and flagged
    Row only = onlyRow(rows.subList(3, 5), Fixtures.profiler());
    assertThat(
            List.<Object>of(
                only.getAs("n"), only.getAs("create_time_count"), only.getAs("clock_basis")))
        .containsExactly(0L, 2L, "producer-clock");
    assertThat(only.<Double>getAs("p50_s")).isNull();
    assertThat(only.<Double>getAs("negative_share")).isNull();
  }

  @Test
  void c30RedeliveredCopiesAreCountedApartNotAsEvents() {
    String[][] export = {
      {"c30-r1", "2024-05-14T12:01:00Z", "2024-05-14T12:01:50Z"},
      {"c30-r2", "2024-05-14T12:02:00Z", "2024-05-14T12:03:00Z"},
      {"c30-r3", "2024-05-14T12:03:00Z", "2024-05-14T12:04:10Z"}
    };
    List<Row> rows = new ArrayList<>();
    for (String[] e : export) {
      rows.add(Fixtures.row(e[0], e[1], e[2], null, "web", null, "2024-05-14"));
    }
    rows.add(
        Fixtures.row(
            "c30-r4",
            "2024-05-14T12:30:00Z",
            "2024-05-14T12:30:01Z",
            null,
            "web",
            null,
            "2024-05-14"));
    // the retried export: byte-identical copies, same enqueued times, ingested later
    for (String[] e : export) {
      rows.add(Fixtures.row(e[0], e[1], e[2], null, "web", null, "2024-05-15"));
    }
    Row r = onlyRow(rows, Fixtures.profiler());
    assertThat(
            List.<Object>of(
                r.getAs("n"),
                r.getAs("p50_s"),
                r.getAs("min_s"),
                r.getAs("max_s"),
                r.getAs("redelivery_count"),
                r.getAs("redelivery_share")))
        .containsExactly(4L, 50.0, 1.0, 70.0, 3L, 3.0 / 7);
  }

  /**
   * The behind-the-watermark flag in hour buckets of arrival equals one window per source over all
   * rows: the watermark carries over hour boundaries, a row exactly at it is behind, rows enqueued
   * at the same instant do not see each other, a Kafka CreateTime row does not move it, and each
   * source has its own. Delay 30 s.
   */
  @Test
  void behindTheWatermarkCarriesAcrossHoursOfArrivalPerSource() {
    List<Row> rows =
        List.of(
            Fixtures.row("w1", "2024-05-14T10:59:00Z", "2024-05-14T10:59:30Z", null, "web", null),
            Fixtures.row("w7", "2024-05-14T10:00:00Z", "2024-05-14T10:59:30Z", null, "web", null),
            // next hour: 10:58 is at or before 10:59 − 30 s
            Fixtures.row("w2", "2024-05-14T10:58:00Z", "2024-05-14T11:00:05Z", null, "web", null),
            // two hours on, exactly at the watermark (10:58:30): behind
            Fixtures.row("w3", "2024-05-14T10:58:30Z", "2024-05-14T12:30:00Z", null, "web", null),
            Fixtures.row("w4", "2024-05-14T10:58:31Z", "2024-05-14T12:30:01Z", null, "web", null),
            // the producer's clock (CreateTime): not an event, moves nothing
            Fixtures.row("w5", "2024-05-14T13:00:00Z", "2024-05-14T12:30:02Z", 0, "web", null),
            Fixtures.row("w6", "2024-05-14T10:58:40Z", "2024-05-14T12:45:00Z", null, "web", null),
            // gw has its own watermark: first is never behind, then 09:59 ≤ 10:00 − 30 s
            Fixtures.row("g1", "2024-05-14T10:00:00Z", "2024-05-14T12:00:00Z", null, "gw", null),
            Fixtures.row("g2", "2024-05-14T09:59:00Z", "2024-05-14T13:00:00Z", null, "gw", null));
    Dataset<Row> arrivals = LatenessStats.arrivals(Fixtures.bronze(spark, rows));
    Dataset<Row> flagged =
        BehindWatermark.flag(arrivals, 30, LatenessStats.measured())
            .filter(LatenessStats.measured());
    assertThat(
            flagged
                .selectExpr("concat_ws(' ', source, date_format(event_time, 'HH:mm:ss'), _behind)")
                .as(org.apache.spark.sql.Encoders.STRING())
                .collectAsList()
                .stream()
                .sorted()
                .toList())
        .containsExactly(
            "gw 09:59:00 true", // g2
            "gw 10:00:00 false", // g1
            "web 10:00:00 false", // w7
            "web 10:58:00 true", // w2
            "web 10:58:30 true", // w3
            "web 10:58:31 false", // w4
            "web 10:58:40 false", // w6
            "web 10:59:00 false"); // w1
    // the same as one window per source ordered by enqueued time over every row (event times are
    // unique per source here)
    org.apache.spark.sql.expressions.WindowSpec earlier =
        org.apache.spark.sql.expressions.Window.partitionBy("source")
            .orderBy(
                org.apache.spark.sql.functions.unix_micros(
                    org.apache.spark.sql.functions.col("enqueued_time")))
            .rangeBetween(org.apache.spark.sql.expressions.Window.unboundedPreceding(), -1);
    Dataset<Row> perSource =
        arrivals
            .withColumn(
                "_one",
                org.apache.spark.sql.functions.coalesce(
                    org.apache
                        .spark
                        .sql
                        .functions
                        .expr("unix_micros(event_time)")
                        .leq(
                            org.apache
                                .spark
                                .sql
                                .functions
                                .max(
                                    org.apache.spark.sql.functions.when(
                                        LatenessStats.measured(),
                                        org.apache.spark.sql.functions.expr(
                                            "unix_micros(event_time)")))
                                .over(earlier)
                                .minus(30_000_000L)),
                    org.apache.spark.sql.functions.lit(false)))
            .filter(LatenessStats.measured());
    assertThat(
            flagged
                .join(
                    perSource,
                    scala.jdk.javaapi.CollectionConverters.asScala(List.of("source", "event_time"))
                        .toSeq())
                .filter("_behind <> _one")
                .count())
        .isZero();
  }

  @Test
  void theDaysSketchesMergeIntoTheRangesQuantilesAsPercentileApproxOverTheRangeGivesThem() {
    List<Row> rows = webOverTwoDaysAndApp();
    Dataset<Row> arrivals = LatenessStats.arrivals(Fixtures.bronze(spark, rows));
    double[] levels = {0.1, 0.5, 0.9, 1.0};
    List<Row> range =
        LatenessSketches.over(LatenessStats.stats(arrivals, Fixtures.profiler(), NOW), levels)
            .orderBy("source")
            .collectAsList();
    // web over both days: 1, 2, 3, 4, 10, 20, 30 s; the value at rank ceil(p * 7)
    assertThat(range)
        .extracting(
            r -> r.getAs("source"),
            r -> r.getAs("n"),
            r -> r.getAs("sketched_n"),
            r -> r.getList(r.fieldIndex("quantiles")))
        .containsExactly(
            tuple("app", 1L, 1L, List.of(6.0, 6.0, 6.0, 6.0)),
            tuple("web", 7L, 7L, List.of(1.0, 4.0, 30.0, 30.0)));
    // the same as percentile_approx over the range's rows (the profile's cdf)
    List<Row> exact =
        LatenessStats.lateness(Fixtures.bronze(spark, rows))
            .groupBy("source")
            .agg(
                org.apache.spark.sql.functions.percentile_approx(
                    org.apache.spark.sql.functions.col("lateness_s"),
                    org.apache.spark.sql.functions.array(
                        java.util.Arrays.stream(levels)
                            .mapToObj(v -> org.apache.spark.sql.functions.lit(v))
                            .toArray(org.apache.spark.sql.Column[]::new)),
                    org.apache.spark.sql.functions.lit(10000)))
            .orderBy("source")
            .collectAsList();
    assertThat(exact)
        .extracting(r -> r.getList(1))
        .containsExactly(
            range.get(0).getList(range.get(0).fieldIndex("quantiles")),
            range.get(1).getList(range.get(1).fieldIndex("quantiles")));
  }

  @Test
  void daysProfiledBeforeTheSketchesAreCountedInNAndNamedInTheReport() {
    List<Row> rows = webOverTwoDaysAndApp();
    // web's first day and app's only day as a profile before the sketches left them: null
    Dataset<Row> stats =
        LatenessStats.stats(
                LatenessStats.arrivals(Fixtures.bronze(spark, rows)), Fixtures.profiler(), NOW)
            .withColumn(
                "lateness_sketch",
                org.apache.spark.sql.functions.when(
                    org.apache.spark.sql.functions.expr(
                        "source = 'web' AND arrival_day = DATE'2024-05-15'"),
                    org.apache.spark.sql.functions.col("lateness_sketch")));
    List<Row> range =
        LatenessSketches.over(stats, new double[] {0.1, 0.5, 0.9, 1.0})
            .orderBy("source")
            .collectAsList();
    // web: the second day's 10, 20, 30 s alone; app: no sketch at all
    assertThat(range)
        .extracting(
            r -> r.getAs("source"),
            r -> r.getAs("n"),
            r -> r.getAs("sketched_n"),
            r ->
                r.isNullAt(r.fieldIndex("quantiles")) ? null : r.getList(r.fieldIndex("quantiles")))
        .containsExactly(
            tuple("app", 1L, null, null), tuple("web", 7L, 3L, List.of(10.0, 20.0, 30.0, 30.0)));
    StringBuilder app = new StringBuilder();
    ReportHtml.rangeLine(app, "2024-05-14..2024-05-15", range.get(0));
    assertThat(app.toString())
        .isEqualTo(
            "<p>Over arrival days 2024-05-14..2024-05-15: none of the 1 events is in a lateness"
                + " sketch (days profiled before sketches were kept): run <code>latelake"
                + " profile</code> for those days again.</p>");
    StringBuilder web = new StringBuilder();
    ReportHtml.rangeLine(web, "2024-05-14..2024-05-15", range.get(1));
    assertThat(web.toString())
        .startsWith("<p>Over arrival days 2024-05-14..2024-05-15: n = 3, p50 ")
        .endsWith(
            " 4 events of days profiled before sketches were kept are not in these figures: run"
                + " <code>latelake profile</code> for those days again.</p>");
  }

  @Test
  void hoursOfArrivalKeepTheirCountsAndSketchesAndMergeIntoAnySpanOfHours() {
    // web: event time 10:59, enqueued 10:59:30, 10:59:50, 11:00:30 and 12:00:40; app: one at
    // 11:10:05
    List<Row> rows =
        new ArrayList<>(Fixtures.withLateness("web", "2024-05-14T10:59:00Z", 30, 50, 90, 3700));
    rows.addAll(Fixtures.withLateness("app", "2024-05-14T11:10:00Z", 5));
    // a second copy of web's 90 s event, enqueued in hour 12: a redelivery there
    rows.add(
        Fixtures.row(
            "web-2024-05-14T10:59:00Z-2",
            "2024-05-14T10:59:00Z",
            "2024-05-14T12:30:00Z",
            null,
            "web",
            null));
    Dataset<Row> stats =
        LatenessStats.stats(
            LatenessStats.arrivals(Fixtures.bronze(spark, rows)), Fixtures.profiler(), NOW);
    Row web = stats.filter("source = 'web'").first();
    assertThat(web.<Long>getAs("n")).isEqualTo(4L);
    // default thresholds: watermark delay 10 minutes, correction horizon 1 hour
    assertThat(web.<Row>getList(web.fieldIndex("lateness_by_hour")))
        .extracting(
            h -> h.getTimestamp(h.fieldIndex("arrival_hour")).toInstant().toString(),
            h -> h.getAs("n"),
            h -> h.getAs("sum_s"),
            h -> h.getAs("min_s"),
            h -> h.getAs("max_s"),
            h -> h.getAs("beyond_watermark_count"),
            h -> h.getAs("beyond_correction_count"),
            h -> h.getAs("redelivery_count"),
            h -> h.getAs("received_count"))
        .containsExactly(
            tuple("2024-05-14T10:00:00Z", 2L, 80.0, 30.0, 50.0, 0L, 0L, 0L, 2L),
            tuple("2024-05-14T11:00:00Z", 1L, 90.0, 90.0, 90.0, 0L, 0L, 0L, 1L),
            tuple("2024-05-14T12:00:00Z", 1L, 3700.0, 3700.0, 3700.0, 1L, 1L, 1L, 2L));
    // the day's sketch is its three hours' merged: all four events
    Row day =
        stats
            .filter("source = 'web'")
            .selectExpr(
                "kll_sketch_get_n_double(lateness_sketch) AS n",
                "kll_sketch_get_quantile_double(lateness_sketch, 0.5) AS p50",
                "kll_sketch_get_quantile_double(lateness_sketch, 1.0) AS p100")
            .first();
    assertThat(List.of(day.get(0), day.get(1), day.get(2))).containsExactly(4L, 50.0, 3700.0);
    double[] levels = {0.5, 1.0};
    List<Row> afterTen =
        LatenessSketches.overHours(
                stats,
                Instant.parse("2024-05-14T11:00:00Z"),
                Instant.parse("2024-05-14T13:00:00Z"),
                levels)
            .orderBy("source")
            .collectAsList();
    assertThat(afterTen)
        .extracting(
            r -> r.getAs("source"),
            r -> r.getAs("n"),
            r -> r.getAs("sketched_n"),
            r -> r.getList(r.fieldIndex("quantiles")))
        .containsExactly(
            tuple("app", 1L, 1L, List.of(5.0, 5.0)), tuple("web", 2L, 2L, List.of(90.0, 3700.0)));
    assertThat(
            LatenessSketches.overHours(
                    stats,
                    Instant.parse("2024-05-14T10:00:00Z"),
                    Instant.parse("2024-05-14T11:00:00Z"),
                    levels)
                .collectAsList())
        .extracting(
            r -> r.getAs("source"), r -> r.getAs("n"), r -> r.getList(r.fieldIndex("quantiles")))
        .containsExactly(tuple("web", 2L, List.of(30.0, 50.0)));
    assertThatThrownBy(
            () ->
                LatenessSketches.overHours(
                    stats,
                    Instant.parse("2024-05-14T10:30:00Z"),
                    Instant.parse("2024-05-14T11:00:00Z"),
                    levels))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "A span of hours of arrival starts and ends on the hour (UTC): 2024-05-14T10:30:00Z"
                + "..2024-05-14T11:00:00Z");
  }

  /** web: 1, 2, 3, 4 s on 2024-05-14 and 10, 20, 30 s on 2024-05-15; app: 6 s on 2024-05-15. */
  private static List<Row> webOverTwoDaysAndApp() {
    List<Row> rows =
        new ArrayList<>(Fixtures.withLateness("web", "2024-05-14T10:00:00Z", 1, 2, 3, 4));
    rows.addAll(Fixtures.withLateness("web", "2024-05-15T10:00:00Z", 10, 20, 30));
    rows.addAll(Fixtures.withLateness("app", "2024-05-15T10:00:00Z", 6));
    return rows;
  }
}

package io.latelake.app;

import static io.latelake.app.LakeFixture.event;
import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.core.job.JobContext;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.testing.SparkTestBase;
import io.latelake.core.time.DayRange;
import io.latelake.correction.audit.AuditJob;
import io.latelake.correction.correct.CorrectJob;
import io.latelake.correction.correct.CorrectResult;
import io.latelake.correction.rollup.CascadeJob;
import io.latelake.correction.rollup.CascadeResult;
import io.latelake.correction.rollup.RebuildJob;
import io.latelake.correction.shared.CorrectionConfig;
import io.latelake.correction.shared.RangeSpec;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Encoders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The number cases through the fast path, the correction, the rollups and the audit (cases' common
 * settings: 10-minute watermark, 5-minute windows by page): C39 (leap day, monthly and yearly
 * rollups, a midnight boundary), C41 (sums past 2^63−1) and C42 (NULL values, averages).
 */
class NumberCasesTest extends SparkTestBase {
  @TempDir Path tmp;

  List<String> gold(LakeFixture f) {
    return table(
        f.root + "/gold/page_5m",
        "concat_ws(' ', page, date_format(window_start, 'HH:mm'), events, value_sum, "
            + "corrected_at IS NOT NULL)");
  }

  List<String> table(String path, String expr) {
    return LakeFixture.rows(spark, path, expr);
  }

  /** A landing JSON line whose value is JSON null. */
  static String nullValue(String id, String eventTime, String enqueued, String page) {
    return event(id, eventTime, enqueued, page, 0).replace("\"value\":0", "\"value\":null");
  }

  /**
   * C42: NULL values in count, sum, avg and max. An all-NULL window keeps sum, avg and max NULL in
   * the stream, the correction and the audit; an average is its stored sum over its stored non-null
   * count ({@code value_avg_count}), so the day's average is 60 / 3 = 20, not 60 / 6 = 10 nor the
   * average of window averages 22.5. The case's hourly rollup is checked on the daily one (every
   * home event of the case is in 12:00–13:00).
   */
  @Test
  void c42NullValuesInSumAvgAndMaxStayNullAndAveragesRollUpFromSumAndCount() {
    LakeFixture f =
        new LakeFixture(
            tmp.resolve("c42"),
            "lake.gold.metrics.page_5m={window=\"5 minutes\", group-by=[page], measures=["
                + "{name=events, function=count}, {name=value_sum, function=sum, column=value}, "
                + "{name=value_avg, function=avg, column=value}, "
                + "{name=value_max, function=max, column=value}]}");
    CorrectionConfig config = CorrectionConfig.fromConfig(f.config);
    TableRegistry tables = TableRegistry.fromConfig(f.config);
    FastPath fast = new FastPath(spark, f.config);
    f.land(
        event("c42-n1", "2024-05-14T12:01:00Z", "2024-05-14T12:01:01Z", "home", 10),
        nullValue("c42-n2", "2024-05-14T12:02:00Z", "2024-05-14T12:02:01Z", "home"),
        event("c42-n3", "2024-05-14T12:03:00Z", "2024-05-14T12:03:01Z", "home", 20),
        nullValue("c42-n4", "2024-05-14T12:06:00Z", "2024-05-14T12:06:01Z", "home"));
    fast.step();
    f.land(event("c42-n5", "2024-05-14T12:11:00Z", "2024-05-14T12:11:01Z", "home", 30));
    fast.step();
    f.land(event("c42-n7", "2024-05-14T12:30:00Z", "2024-05-14T12:30:01Z", "other", 1));
    fast.step();
    f.land(nullValue("c42-n6", "2024-05-14T12:07:00Z", "2024-05-14T12:31:00Z", "home"));
    assertThat(fast.step().droppedByWatermark()).isEqualTo(1);
    String measures =
        "concat_ws(' ', page, date_format(window_start, 'HH:mm'), events, "
            + "coalesce(cast(value_sum AS STRING), 'NULL'), "
            + "coalesce(cast(value_avg AS STRING), 'NULL'), "
            + "coalesce(cast(value_avg_sum AS STRING), 'NULL'), value_avg_count, "
            + "coalesce(cast(value_max AS STRING), 'NULL'), corrected_at IS NOT NULL)";
    String gold = f.root + "/gold/page_5m";
    assertThat(table(gold, measures))
        .containsExactly(
            "home 12:00 3 30 15.0 30 2 20 false",
            "home 12:05 1 NULL NULL NULL 0 NULL false",
            "home 12:10 1 30 30.0 30 1 30 false",
            "other 12:30 1 1 1.0 1 1 1 false");

    CorrectResult corrected =
        new CorrectJob(
                JobContext.start(spark, tables),
                new CorrectJob.Options(
                    config, config.metrics(), Optional.of(Instant.parse("2000-01-01T00:00:00Z"))))
            .run();
    assertThat(corrected.rowsChanged()).isEqualTo(1);
    assertThat(table(gold, measures))
        .containsExactly(
            "home 12:00 3 30 15.0 30 2 20 false",
            "home 12:05 2 NULL NULL NULL 0 NULL true",
            "home 12:10 1 30 30.0 30 1 30 false",
            "other 12:30 1 1 1.0 1 1 1 false");
    assertThat(
            table(
                f.root + "/monitoring/corrections_log",
                "concat_ws(' | ', date_format(window_start, 'HH:mm'), reason, old_values, "
                    + "new_values)"))
        .containsExactly(
            "12:05 | LATE_ARRIVAL | {\"events\":1,\"value_sum\":null,\"value_avg\":null,"
                + "\"value_avg_sum\":null,\"value_avg_count\":0,\"value_max\":null} | "
                + "{\"events\":2,\"value_sum\":null,\"value_avg\":null,\"value_avg_sum\":null,"
                + "\"value_avg_count\":0,\"value_max\":null}");

    DayRange may14 = new DayRange(LocalDate.parse("2024-05-14"), LocalDate.parse("2024-05-14"));
    new RebuildJob(JobContext.start(spark, tables), new RangeSpec(config, config.metrics(), may14))
        .run();
    assertThat(
            table(
                f.root + "/gold/daily_page_5m",
                "concat_ws(' ', event_date, page, events, value_sum, value_avg, value_avg_sum, "
                    + "value_avg_count, value_max)"))
        .containsExactly("2024-05-14 home 6 60 20.0 60 3 30", "2024-05-14 other 1 1 1.0 1 1 1");

    AuditJob.Result audit =
        new AuditJob(
                JobContext.start(spark, tables), new RangeSpec(config, config.metrics(), may14))
            .run();
    assertThat(audit.differences()).isZero();
    assertThat(audit.beyondTolerance()).isZero();
  }

  /**
   * C39: leap day, monthly and yearly rollups and a midnight boundary (UTC days). The five on-time
   * events land in one micro-batch and c39-m6 in the next, behind the watermark 2024-02-29T23:50
   * (dropped; the case's one-row-per-batch order drops the same row). Months are sums of whole days
   * (Spark's window() has no month): February 2024 has 29 days, 23:59:59.999999 is in 02-29 and
   * 00:00:00 in 03-01.
   */
  @Test
  void c39LeapDayMonthlyAndYearlyRollupsAndAMidnightBoundary() {
    LakeFixture f =
        new LakeFixture(tmp.resolve("c39"), "lake.correction.rollups=[weekly, monthly, yearly]");
    CorrectionConfig config = CorrectionConfig.fromConfig(f.config);
    TableRegistry tables = TableRegistry.fromConfig(f.config);
    FastPath fast = new FastPath(spark, f.config);
    f.land(
        event("c39-m5", "2024-01-31T12:00:00Z", "2024-01-31T12:00:01Z", "home", 16),
        event("c39-m1", "2024-02-28T23:30:00Z", "2024-02-28T23:30:01Z", "home", 1),
        event("c39-m2", "2024-02-29T12:00:00Z", "2024-02-29T12:00:01Z", "home", 2),
        event("c39-m3", "2024-02-29T23:59:59.999999Z", "2024-02-29T23:59:59.999999Z", "home", 4),
        event("c39-m4", "2024-03-01T00:00:00Z", "2024-03-01T00:00:00.5Z", "home", 8));
    fast.step();
    f.land(event("c39-m6", "2024-02-29T06:00:00Z", "2024-03-01T01:00:00Z", "home", 32));
    assertThat(fast.step().droppedByWatermark()).isEqualTo(1);
    String gold = f.root + "/gold/page_5m";
    String byDay =
        "SELECT concat_ws(' ', to_date(window_start), sum(events), sum(value_sum)) FROM delta.`"
            + gold
            + "` GROUP BY to_date(window_start)";
    String byMonth =
        "SELECT concat_ws(' ', date_format(window_start, 'yyyy-MM'), sum(events), "
            + "sum(value_sum)) FROM delta.`"
            + gold
            + "` GROUP BY date_format(window_start, 'yyyy-MM')";
    // before the correction: what the stream published
    assertThat(sql(byDay))
        .containsExactly("2024-01-31 1 16", "2024-02-28 1 1", "2024-02-29 2 6", "2024-03-01 1 8");
    assertThat(sql(byMonth)).containsExactly("2024-01 1 16", "2024-02 3 7", "2024-03 1 8");

    new CorrectJob(
            JobContext.start(spark, tables),
            new CorrectJob.Options(
                config, config.metrics(), Optional.of(Instant.parse("2000-01-01T00:00:00Z"))))
        .run();
    assertThat(sql(byDay))
        .containsExactly("2024-01-31 1 16", "2024-02-28 1 1", "2024-02-29 3 38", "2024-03-01 1 8");

    new RebuildJob(
            JobContext.start(spark, tables),
            new RangeSpec(
                config,
                config.metrics(),
                new DayRange(LocalDate.parse("2024-01-31"), LocalDate.parse("2024-03-01"))))
        .run();
    CascadeJob.Result cascade =
        new CascadeJob(
                JobContext.start(spark, tables),
                new RangeSpec(
                    config,
                    config.metrics(),
                    new DayRange(LocalDate.parse("2024-01-31"), LocalDate.parse("2024-03-01"))))
            .run();
    assertThat(cascade.metrics().stream().map(CascadeResult::summary).toList())
        .containsExactly(
            "weekly_page_5m: 2 rows changed in 2 weeks (first 2024-01-29, last 2024-02-26); "
                + "4 days (first 2024-01-29, last 2024-03-03) of the edge weeks never rebuilt",
            "monthly_page_5m: 3 rows changed in 3 months (first 2024-01-01, last 2024-03-01); "
                + "60 days (first 2024-01-01, last 2024-03-31) of the edge months never rebuilt",
            "yearly_page_5m: 1 rows changed in 1 year (2024-01-01); "
                + "335 days (first 2024-01-01, last 2024-12-31) of the edge years never rebuilt");
    assertThat(
            table(
                f.root + "/gold/monthly_page_5m",
                "concat_ws(' ', month_start, year, month, page, events, value_sum, days)"))
        .containsExactly(
            "2024-01-01 2024 1 home 1 16 1",
            "2024-02-01 2024 2 home 4 39 2",
            "2024-03-01 2024 3 home 1 8 1");
    assertThat(
            table(
                f.root + "/gold/yearly_page_5m",
                "concat_ws(' ', year_start, year, page, events, value_sum, days)"))
        .containsExactly("2024-01-01 2024 home 6 63 4");

    // February alone: 29 days, 02-29 keeps m3 (23:59:59.999999) and not m4 (03-01 00:00)
    RebuildJob.Result february =
        new RebuildJob(
                JobContext.start(spark, tables),
                new RangeSpec(
                    config,
                    config.metrics(),
                    new DayRange(LocalDate.parse("2024-02-01"), LocalDate.parse("2024-02-29"))))
            .run();
    assertThat(february.range().days()).isEqualTo(29);
    assertThat(
            table(
                f.root + "/gold/daily_page_5m",
                "concat_ws(' ', event_date, page, events, value_sum)"))
        .containsExactly(
            "2024-01-31 home 1 16",
            "2024-02-28 home 1 1",
            "2024-02-29 home 3 38",
            "2024-03-01 home 1 8");
  }

  /**
   * C41: sums past 2^63−1. Sums of whole numbers are DECIMAL(38,0), so no micro-batch fails, no sum
   * wraps, and (big, 12:00) holds exactly 9223372036854775807 + 1; the stream, the daily rollup and
   * the audit agree. The third micro-batch runs in a new fast path (its queries restart from their
   * checkpoints after the batches that passed 2^63−1).
   */
  @Test
  void c41SumsPastTheLongRangeStayExactThroughARestartTheRollupAndTheAudit() {
    LakeFixture f = new LakeFixture(tmp.resolve("c41"));
    CorrectionConfig config = CorrectionConfig.fromConfig(f.config);
    TableRegistry tables = TableRegistry.fromConfig(f.config);
    FastPath fast = new FastPath(spark, f.config);
    f.land(
        event("c41-o1", "2024-05-14T12:01:00Z", "2024-05-14T12:01:01Z", "home", 2147483647L),
        event("c41-o2", "2024-05-14T12:02:00Z", "2024-05-14T12:02:01Z", "home", 1),
        event("c41-o3", "2024-05-14T12:03:00Z", "2024-05-14T12:03:01Z", "home", 3000000000L),
        event("c41-o4", "2024-05-14T12:01:30Z", "2024-05-14T12:01:31Z", "big", Long.MAX_VALUE));
    fast.step();
    f.land(event("c41-o5", "2024-05-14T12:02:30Z", "2024-05-14T12:02:31Z", "big", 1));
    fast.step();
    fast.close();
    FastPath restarted = new FastPath(spark, f.config);
    f.land(event("c41-o6", "2024-05-14T12:06:00Z", "2024-05-14T12:06:01Z", "home", 5));
    restarted.step();
    restarted.close();
    assertThat(gold(f))
        .containsExactly(
            "big 12:00 2 9223372036854775808 false",
            "home 12:00 3 5147483648 false",
            "home 12:05 1 5 false");
    assertThat(
            spark
                .read()
                .format("delta")
                .load(f.root + "/gold/page_5m")
                .schema()
                .apply("value_sum")
                .dataType()
                .simpleString())
        .isEqualTo("decimal(38,0)");

    CorrectResult corrected =
        new CorrectJob(
                JobContext.start(spark, tables),
                new CorrectJob.Options(
                    config, config.metrics(), Optional.of(Instant.parse("2000-01-01T00:00:00Z"))))
            .run();
    assertThat(corrected.rowsChanged()).isZero();
    DayRange may14 = new DayRange(LocalDate.parse("2024-05-14"), LocalDate.parse("2024-05-14"));
    new RebuildJob(JobContext.start(spark, tables), new RangeSpec(config, config.metrics(), may14))
        .run();
    assertThat(
            table(
                f.root + "/gold/daily_page_5m",
                "concat_ws(' ', event_date, page, events, value_sum)"))
        .containsExactly("2024-05-14 big 2 9223372036854775808", "2024-05-14 home 4 5147483653");
    AuditJob.Result audit =
        new AuditJob(
                JobContext.start(spark, tables), new RangeSpec(config, config.metrics(), may14))
            .run();
    assertThat(audit.differences()).isZero();
    assertThat(audit.beyondTolerance()).isZero();
  }

  List<String> sql(String query) {
    return spark.sql(query).as(Encoders.STRING()).collectAsList().stream().sorted().toList();
  }
}

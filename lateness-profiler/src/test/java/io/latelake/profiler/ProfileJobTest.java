package io.latelake.profiler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.latelake.core.ExitCode;
import io.latelake.core.LatelakeException;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.testing.SparkTestBase;
import io.latelake.core.time.DayRange;
import java.nio.file.Path;
import java.sql.Date;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The profile run against Delta tables in a temp folder. */
class ProfileJobTest extends SparkTestBase {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2024-05-20T03:00:00Z"), ZoneOffset.UTC);

  private TableRegistry lake(Path dir, List<Row> rows) {
    TableRegistry tables = new TableRegistry(dir.toString());
    Fixtures.bronze(spark, rows)
        .write()
        .format("delta")
        .partitionBy("ingest_date")
        .mode("overwrite")
        .save(tables.bronzeEvents());
    return tables;
  }

  /** The latest version of each monitoring table named. */
  private List<Long> latestVersions(TableRegistry tables, List<String> names) {
    List<Long> out = new ArrayList<>();
    for (String t : names) {
      out.add(
          io.delta.tables.DeltaTable.forPath(spark, tables.monitoring(t))
              .history(1)
              .first()
              .getLong(0));
    }
    return out;
  }

  private List<Row> table(TableRegistry tables, String name) {
    return spark.read().format("delta").load(tables.monitoring(name)).collectAsList();
  }

  @Test
  void rerunForTheSameDaysLeavesOneRowPerSourceAndDay(@TempDir Path dir) {
    List<Row> rows = new ArrayList<>(Fixtures.withLateness("web", "2024-05-14T10:00:00Z", 1, 2, 3));
    rows.addAll(Fixtures.withLateness("web", "2024-05-15T10:00:00Z", 4, 5));
    rows.addAll(Fixtures.withLateness("app", "2024-05-15T10:00:00Z", 6));
    TableRegistry tables = lake(dir, rows);
    DayRange range = DayRange.parse("2024-05-14..2024-05-15");
    ProfilerConfig cfg = Fixtures.profiler();
    new ProfileJob(
            io.latelake.core.job.JobContext.start(spark, tables, CLOCK),
            new ProfilerJob.Options(cfg, range))
        .run();
    ProfileJob.Result second =
        new ProfileJob(
                io.latelake.core.job.JobContext.start(spark, tables, CLOCK),
                new ProfilerJob.Options(cfg, range))
            .run();
    // a third run over one of the days only replaces that day
    new ProfileJob(
            io.latelake.core.job.JobContext.start(spark, tables, CLOCK),
            new ProfilerJob.Options(cfg, DayRange.parse("2024-05-15")))
        .run();

    assertThat(table(tables, "lateness_stats"))
        .extracting(
            r -> r.getAs("source"),
            r -> r.getAs("arrival_day").toString(),
            r -> r.getAs("n"),
            r -> r.getAs("max_s"))
        .containsExactlyInAnyOrder(
            tuple("web", "2024-05-14", 3L, 3.0),
            tuple("web", "2024-05-15", 2L, 5.0),
            tuple("app", "2024-05-15", 1L, 6.0));
    // the range's quantiles from the days' stored sketches, bronze not read: web 1, 2, 3, 4, 5 s
    assertThat(
            LatenessSketches.over(
                    spark.read().format("delta").load(tables.monitoring("lateness_stats")),
                    new double[] {0.5, 1.0})
                .orderBy("source")
                .collectAsList())
        .extracting(
            r -> r.getAs("source"),
            r -> r.getAs("n"),
            r -> r.getAs("sketched_n"),
            r -> r.getList(r.fieldIndex("quantiles")))
        .containsExactly(
            tuple("app", 1L, 1L, List.of(6.0, 6.0)), tuple("web", 5L, 5L, List.of(3.0, 5.0)));
    assertThat(second.stats()).hasSize(3);
    assertThat(second.alerts()).isEmpty();
  }

  /**
   * A run over days on which nothing arrived (the default last days on an old lake) writes nothing:
   * the earlier run's advice, replay and distribution stay, instead of being overwritten empty.
   */
  @Test
  void aRangeWithoutArrivalsWritesNothingAndKeepsTheEarlierRun(@TempDir Path dir) {
    TableRegistry tables =
        lake(dir, new ArrayList<>(Fixtures.withLateness("web", "2024-05-14T10:00:00Z", 1, 2, 3)));
    ProfilerConfig cfg = Fixtures.profiler();
    ProfileJob.Result first =
        new ProfileJob(
                io.latelake.core.job.JobContext.start(spark, tables, CLOCK),
                new ProfilerJob.Options(cfg, DayRange.parse("2024-05-14")))
            .run();
    List<String> tablesRead =
        List.of("lateness_stats", "lateness_cdf", "watermark_advice", "watermark_replay");
    List<Long> versions = latestVersions(tables, tablesRead);

    ProfileJob.Result empty =
        new ProfileJob(
                io.latelake.core.job.JobContext.start(spark, tables, CLOCK),
                new ProfilerJob.Options(cfg, DayRange.parse("2024-05-16..2024-05-20")))
            .run();

    assertThat(first.stats()).hasSize(1);
    assertThat(first.advice()).isNotEmpty();
    assertThat(first.replay()).isNotEmpty();
    assertThat(
            List.of(
                empty.stats().size(),
                empty.advice().size(),
                empty.replay().size(),
                empty.alerts().size()))
        .containsExactly(0, 0, 0, 0);
    assertThat(empty.exitCode()).isEqualTo(ExitCode.OK);
    assertThat(latestVersions(tables, tablesRead)).isEqualTo(versions);
    assertThat(table(tables, "watermark_advice")).hasSize(first.advice().size());
    assertThat(table(tables, "watermark_replay")).hasSize(first.replay().size());
  }

  @Test
  void readsOnlyTheRangeAndPrunesOlderIngestPartitions(@TempDir Path dir) {
    List<Row> rows = new ArrayList<>();
    rows.add(
        Fixtures.row(
            "in", "2024-05-14T10:00:00Z", "2024-05-14T10:00:01Z", null, "web", null, "2024-05-14"));
    rows.add(
        Fixtures.row(
            "late-ingest",
            "2024-05-14T10:00:00Z",
            "2024-05-14T10:00:02Z",
            null,
            "web",
            null,
            "2024-05-19"));
    rows.add(
        Fixtures.row(
            "other-day",
            "2024-05-15T10:00:00Z",
            "2024-05-15T10:00:03Z",
            null,
            "web",
            null,
            "2024-05-15"));
    // arrival day in range, but in an ingest partition before the range: pruned, never read
    rows.add(
        Fixtures.row(
            "pruned",
            "2024-05-14T10:00:00Z",
            "2024-05-14T10:00:04Z",
            null,
            "web",
            null,
            "2024-05-10"));
    TableRegistry tables = lake(dir, rows);
    Dataset<Row> read =
        ProfileReads.readLateness(
            spark, tables, DayRange.parse("2024-05-14"), java.time.Duration.ofDays(1));
    assertThat(read.collectAsList())
        .extracting(r -> r.getAs("lateness_s"))
        .containsExactlyInAnyOrder(1.0, 2.0);
    assertThat(read.queryExecution().executedPlan().toString())
        .contains("PartitionFilters: [isnotnull(ingest_date")
        .contains("(ingest_date#");
  }

  @Test
  void aCopyWhoseFirstArrivalWasBeforeTheRangeIsARedeliveryNotAnEvent(@TempDir Path dir) {
    List<Row> rows = new ArrayList<>();
    // first arrival on 2024-05-13 (a day before the profiled range), its copy on the 14th
    rows.add(
        Fixtures.row(
            "a", "2024-05-13T23:58:00Z", "2024-05-13T23:59:00Z", null, "web", null, "2024-05-13"));
    rows.add(
        Fixtures.row(
            "a", "2024-05-13T23:58:00Z", "2024-05-14T00:10:00Z", null, "web", null, "2024-05-14"));
    rows.add(
        Fixtures.row(
            "b", "2024-05-14T10:00:00Z", "2024-05-14T10:00:05Z", null, "web", null, "2024-05-14"));
    TableRegistry tables = lake(dir, rows);
    ProfileJob.Result r =
        new ProfileJob(
                io.latelake.core.job.JobContext.start(spark, tables, CLOCK),
                new ProfilerJob.Options(Fixtures.profiler(), DayRange.parse("2024-05-14")))
            .run();
    assertThat(r.stats())
        .extracting(
            s -> s.getAs("arrival_day").toString(),
            s -> s.getAs("n"),
            s -> s.getAs("p50_s"),
            s -> s.getAs("redelivery_count"),
            s -> s.getAs("redelivery_share"))
        .containsExactly(tuple("2024-05-14", 1L, 5.0, 1L, 0.5));
  }

  @Test
  void missingBronzeIsAUsageError(@TempDir Path dir) {
    TableRegistry tables = new TableRegistry(dir.toString());
    assertThatThrownBy(
            () ->
                new ProfileJob(
                        io.latelake.core.job.JobContext.start(spark, tables, CLOCK),
                        new ProfilerJob.Options(Fixtures.profiler(), DayRange.parse("2024-05-14")))
                    .run())
        .isInstanceOf(io.latelake.core.table.MissingTableException.class)
        .hasMessage(
            "Cannot profile lateness: table bronze_events does not exist at "
                + dir
                + "/bronze/events (lake.root); run `latelake bronze` first")
        .satisfies(e -> assertThat(((LatelakeException) e).exitCode()).isEqualTo(ExitCode.USAGE));
  }

  @Test
  void adviceCoversTheTargetAndCountsWhatTheConfiguredDelayDrops(@TempDir Path dir) {
    // 100 events 30 s apart in event time; 98 arrive 1..98 s late, events 50 and 70 arrive
    // 1000 s and 1200 s late (by then events 30 s · 80 and 30 s · 99 had arrived: both are
    // behind a 10-minute watermark in arrival order too)
    List<Row> rows = new ArrayList<>();
    double[] l = new double[100];
    Instant base = Instant.parse("2024-05-14T10:00:00Z");
    int next = 1;
    for (int i = 0; i < 100; i++) {
      l[i] = i == 50 ? 1000 : i == 70 ? 1200 : next++;
      Instant t = base.plusSeconds(30L * i);
      rows.add(
          Fixtures.row(
              "e" + i, t.toString(), t.plusSeconds((long) l[i]).toString(), null, "web", null));
    }
    double[] sorted = java.util.Arrays.stream(l).sorted().toArray();
    TableRegistry tables = lake(dir, rows);
    ProfilerConfig cfg =
        Fixtures.profiler(
            "lake.profiler.watermark-delay=10 minutes",
            "lake.correction.horizon=12 minutes",
            "lake.profiler.correction-coverage=0.995");
    ProfileJob.Result r =
        new ProfileJob(
                io.latelake.core.job.JobContext.start(spark, tables, CLOCK),
                new ProfilerJob.Options(cfg, DayRange.parse("2024-05-14")))
            .run();
    assertThat(r.advice())
        .extracting(
            a -> a.getAs("kind"),
            a -> a.getAs("coverage"),
            a -> a.getAs("advised_delay_s"),
            a -> a.getAs("configured_delay_s"),
            a -> a.getAs("configured_beyond_count"),
            a -> a.getAs("configured_beyond_share"),
            a -> a.getAs("configured_dropped_count"),
            a -> a.getAs("configured_dropped_share"),
            a -> a.getAs("n"))
        .containsExactly(
            tuple("watermark", 0.99, 1000.0, 600.0, 2L, 0.02, 2L, 0.02, 100L),
            tuple("watermark", 0.999, 1200.0, 600.0, 2L, 0.02, 2L, 0.02, 100L),
            tuple("correction", 0.995, 1200.0, 720.0, 2L, 0.02, null, null, 100L));
    // the 99th lateness value in ascending order is 1000 s: the 99% advice covers it
    assertThat(sorted[98]).isEqualTo(1000.0);
    assertThat(r.advice().get(0).<Double>getAs("advised_delay_s"))
        .isGreaterThanOrEqualTo(sorted[98]);
    // percentile_approx at the default accuracy, said on each row
    assertThat(table(tables, "watermark_advice"))
        .extracting(row -> row.<Integer>getAs("accuracy"))
        .containsExactly(10000, 10000, 10000);
  }

  @Test
  void completenessEstimateEqualsShareOfLatenessAtMostTheAge(@TempDir Path dir) {
    double[] l = new double[200];
    for (int i = 0; i < 200; i++) {
      l[i] = (i % 100 + 1) * 10; // 10, 20, ..., 1000 s, each twice
    }
    TableRegistry tables = lake(dir, Fixtures.withLateness("web", "2024-05-14T10:00:00Z", l));
    new ProfileJob(
            io.latelake.core.job.JobContext.start(spark, tables, CLOCK),
            new ProfilerJob.Options(
                Fixtures.profiler("lake.profiler.cdf-steps=100"), DayRange.parse("2024-05-14")))
        .run();
    List<Row> cdfRows = table(tables, "lateness_cdf");
    assertThat(cdfRows).hasSize(101);
    assertThat(cdfRows.stream().map(row -> row.<Integer>getAs("accuracy")).distinct())
        .containsExactly(10000);
    LatenessCdf cdf = LatenessCdf.fromRows(cdfRows);
    for (double age : new double[] {0, 5, 10, 370, 990, 1000, 5000}) {
      long atMost = java.util.Arrays.stream(l).filter(v -> v <= age).count();
      assertThat(cdf.share(age))
          .as("F(%s)", age)
          .isCloseTo(atMost / 200.0, org.assertj.core.data.Offset.offset(1e-12));
    }
    assertThat(cdf.share(370)).isEqualTo(0.37);
  }

  @Test
  void exceededRuleWritesOneAlertRowAndAnUnexceededRuleNone(@TempDir Path dir) {
    TableRegistry tables =
        lake(dir, Fixtures.withLateness("web", "2024-05-14T10:00:00Z", 1, 2, 3, 500));
    DayRange day = DayRange.parse("2024-05-14");
    ProfileJob.Result quiet =
        new ProfileJob(
                io.latelake.core.job.JobContext.start(spark, tables, CLOCK),
                new ProfilerJob.Options(
                    Fixtures.profiler("lake.profiler.rules=[{metric=p99_s, above=500}]"), day))
            .run();
    assertThat(quiet.alerted()).isFalse();
    assertThat(dir.resolve("monitoring/alerts")).doesNotExist();

    ProfileJob.Result loud =
        new ProfileJob(
                io.latelake.core.job.JobContext.start(spark, tables, CLOCK),
                new ProfilerJob.Options(
                    Fixtures.profiler(
                        "lake.profiler.rules=[{metric=p99_s, above=499.5}, "
                            + "{metric=negative_share, above=0}]"),
                    day))
            .run();
    assertThat(loud.alerted()).isTrue();
    assertThat(table(tables, "alerts"))
        .extracting(
            r -> r.getAs("origin"),
            r -> r.getAs("rule"),
            r -> r.getAs("subject"),
            r -> r.getAs("day"),
            r -> r.getAs("observed"),
            r -> r.getAs("limit_value"),
            r -> r.getAs("message"))
        .containsExactly(
            tuple(
                "lateness-profiler",
                "p99_s > 499.5",
                "web",
                Date.valueOf("2024-05-14"),
                500.0,
                499.5,
                "Lateness SLA exceeded for source 'web' on 2024-05-14: p99_s = 500.0 > 499.5"));
  }

  @Test
  void watermarkDropAlertOverTheLastMicroBatches(@TempDir Path dir) {
    TableRegistry tables = lake(dir, Fixtures.withLateness("web", "2024-05-14T10:00:00Z", 1));
    List<Row> progress = new ArrayList<>();
    for (int b = 0; b < 5; b++) {
      // batch 0 dropped 50 rows; batches 1..4 dropped 1 row of 100 each
      progress.add(
          org.apache.spark.sql.RowFactory.create(
              "silver_events",
              "q",
              "r",
              (long) b,
              Fixtures.ts("2024-05-14T10:0" + b + ":00Z"),
              100L,
              null,
              b == 0 ? 50L : 1L,
              "",
              0L,
              0L,
              0L,
              Fixtures.ts("2024-05-14T10:0" + b + ":00Z"),
              0L,
              null,
              null,
              null,
              null,
              null));
    }
    spark
        .createDataFrame(progress, io.latelake.core.streaming.StreamProgressTable.SCHEMA)
        .write()
        .format("delta")
        .save(tables.streamProgress());
    DayRange day = DayRange.parse("2024-05-14");
    // the window of the last 4 batches holds 4 drops of 400 input rows: no alert at 5 / 1.5%
    assertThat(
            new ProfileJob(
                    io.latelake.core.job.JobContext.start(spark, tables, CLOCK),
                    new ProfilerJob.Options(
                        Fixtures.profiler(
                            "lake.profiler.drop-window-batches=4",
                            "lake.profiler.drop-max-count=5",
                            "lake.profiler.drop-max-share=0.015"),
                        day))
                .run()
                .alerts())
        .isEmpty();
    ProfileJob.Result r =
        new ProfileJob(
                io.latelake.core.job.JobContext.start(spark, tables, CLOCK),
                new ProfilerJob.Options(
                    Fixtures.profiler(
                        "lake.profiler.drop-window-batches=5",
                        "lake.profiler.drop-max-count=53",
                        "lake.profiler.drop-max-share=0.1"),
                    day))
            .run();
    assertThat(r.alerts())
        .extracting(
            a -> a.getAs("rule"),
            a -> a.getAs("subject"),
            a -> a.getAs("observed"),
            a -> a.getAs("message"))
        .containsExactlyInAnyOrder(
            tuple(
                "watermark_drops.count > 53",
                "silver_events",
                54.0,
                "Stream 'silver_events' "
                    + "dropped 54 rows behind the watermark in the last 5 micro-batches (limit 53)"),
            tuple(
                "watermark_drops.share > 0.1",
                "silver_events",
                0.108,
                "Stream 'silver_events' "
                    + "dropped 10.800% of its input rows behind the watermark in the last 5 "
                    + "micro-batches (limit 0.1)"));
  }
}

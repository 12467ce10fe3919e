package io.latelake.profiler;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.current_date;
import static org.apache.spark.sql.functions.current_timestamp;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.to_timestamp;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.testing.SparkTestBase;
import io.latelake.core.time.DayRange;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The profiler on the bundled real datasets, loaded into bronze shape with Spark's CSV reader,
 * against the reference figures in their PROFILE.json. Writes the measured figures to {@code
 * target/real-data-figures.txt}.
 */
class RealDataProfileTest extends SparkTestBase {
  private static final Path REPO = Path.of(System.getProperty("latelake.repo", ".."));
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-11-29T00:00:00Z"), ZoneOffset.UTC);
  private final StringBuilder figures = new StringBuilder();

  private TableRegistry bronze(Path dir, String dataset, String source) {
    TableRegistry tables = new TableRegistry(dir.toString());
    spark
        .read()
        .option("header", "true")
        .csv(REPO.resolve("data").resolve(dataset).toString())
        .select(
            col("event_id"),
            to_timestamp(col("event_time")).as("event_time"),
            to_timestamp(col("arrival_time")).as("enqueued_time"),
            lit(null).cast(DataTypes.IntegerType).as("timestamp_type"),
            current_timestamp().as("ingested_at"),
            current_date().as("ingest_date"),
            lit(source).as("source"),
            lit(null).cast(DataTypes.StringType).as("error"))
        .write()
        .format("delta")
        .partitionBy("ingest_date")
        .save(tables.bronzeEvents());
    return tables;
  }

  private JsonNode profileJson(String dataset) throws IOException {
    return new ObjectMapper()
        .readTree(REPO.resolve("data").resolve(dataset).resolve("PROFILE.json").toFile());
  }

  /** Exact order statistic x_(rank), 1-based, clamped. */
  private static double orderStat(double[] sorted, long rank) {
    return sorted[(int) Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  private void checkPercentiles(Row profile, double[] sorted, JsonNode ref, int accuracy) {
    long n = sorted.length;
    long e = (long) Math.ceil((double) n / accuracy);
    Map<String, String> refKeys =
        Map.of("p50_s", "p50", "p90_s", "p90", "p95_s", "p95", "p99_s", "p99", "p999_s", "p999");
    double[] levels = LatenessStats.LEVELS;
    for (int i = 0; i < levels.length; i++) {
      String c = LatenessStats.PERCENTILE_COLUMNS.get(i);
      if (!refKeys.containsKey(c)) {
        continue;
      }
      long k = (long) Math.ceil(levels[i] * n);
      double got = profile.getAs(c);
      // percentile_approx: within n/accuracy ranks of rank ceil(p n)
      assertThat(got).as(c).isBetween(orderStat(sorted, k - e), orderStat(sorted, k + e));
      // PROFILE.json interpolates between ranks floor((n-1)p)+1 and +1: within the same band
      double reference = ref.get("lateness_s").get(refKeys.get(c)).asDouble();
      assertThat(reference)
          .as("PROFILE.json " + c)
          .isBetween(orderStat(sorted, k - e - 1), orderStat(sorted, k + e));
    }
  }

  private ProfileJob.Result profileAndTime(
      TableRegistry tables, ProfilerConfig cfg, DayRange range, String name) {
    long t0 = System.nanoTime();
    long plain = ProfileReads.readLateness(spark, tables, range, cfg.dedupHorizon()).count();
    long countNanos = System.nanoTime() - t0;
    ProfileJob.Result r =
        new ProfileJob(
                io.latelake.core.job.JobContext.start(spark, tables, CLOCK),
                new ProfilerJob.Options(cfg, range))
            .run();
    long t1 = System.nanoTime();
    ProfileReads.readLateness(spark, tables, range, cfg.dedupHorizon()).count();
    long countAfterNanos = System.nanoTime() - t1;
    figures.append(
        String.format(
            "%s: profiler wall time %d ms for %d rows; plain count() of the "
                + "same bronze rows %d ms before, %d ms after the profile%n",
            name,
            r.wallTime().toMillis(),
            plain,
            countNanos / 1_000_000,
            countAfterNanos / 1_000_000));
    return r;
  }

  private static double[] sortedLateness(Dataset<Row> lateness) {
    return lateness.select("lateness_s").collectAsList().stream()
        .mapToDouble(r -> r.getDouble(0))
        .sorted()
        .toArray();
  }

  private void describe(String name, Row overall, List<Row> advice) {
    figures.append(
        String.format(
            "%s: n=%d p50=%s p95=%s p99=%s max=%s min=%s skew share=%s%n",
            name,
            overall.<Long>getAs("n"),
            overall.getAs("p50_s"),
            overall.getAs("p95_s"),
            overall.getAs("p99_s"),
            overall.getAs("max_s"),
            overall.getAs("min_s"),
            overall.getAs("negative_share")));
    for (Row a : advice) {
      figures.append(
          String.format(
              "  advice %s %s: %s s; configured %s s: lateness beyond it "
                  + "%d (%s), behind the watermark in arrival order %s (%s)%n",
              a.getAs("kind"),
              a.getAs("coverage"),
              a.getAs("advised_delay_s"),
              a.getAs("configured_delay_s"),
              a.<Long>getAs("configured_beyond_count"),
              a.getAs("configured_beyond_share"),
              a.getAs("configured_dropped_count"),
              a.getAs("configured_dropped_share")));
    }
  }

  @Test
  void phoneDataMatchesItsProfileWithinThePercentileAccuracy(@TempDir Path dir) throws IOException {
    TableRegistry tables = bronze(dir, "ooo-iot-umts/ooo_umts_events.csv.gz", "ooo-umts");
    JsonNode ref = profileJson("ooo-iot-umts");
    // as conf/ooo-umts.conf: the profiler compares with gold's 0.1 s watermark delay
    ProfilerConfig cfg =
        Fixtures.profiler(
            "lake.gold.watermark-delay=100 milliseconds",
            "lake.correction.horizon=10 seconds",
            "lake.profiler.report-dir=target/report-ooo-umts");
    DayRange range = DayRange.parse("2014-11-10");
    ProfileJob.Result r = profileAndTime(tables, cfg, range, "ooo-umts");
    assertThat(r.stats()).hasSize(1);
    Row day = r.stats().get(0);
    assertThat(day.<Long>getAs("n")).isEqualTo(ref.get("records").asLong()).isEqualTo(46800L);
    assertThat(day.<Double>getAs("min_s")).isEqualTo(ref.get("lateness_s").get("min").asDouble());
    assertThat(day.<Double>getAs("max_s")).isEqualTo(ref.get("lateness_s").get("max").asDouble());
    assertThat(day.<Double>getAs("mean_s"))
        .isCloseTo(
            ref.get("lateness_s").get("mean").asDouble(),
            org.assertj.core.data.Offset.offset(1e-9));
    assertThat(day.<Long>getAs("negative_count")).isZero();
    assertThat(day.<String>getAs("clock_basis")).isEqualTo("captured");
    double[] sorted =
        sortedLateness(ProfileReads.readLateness(spark, tables, range, cfg.dedupHorizon()));
    checkPercentiles(day, sorted, ref, cfg.accuracy());
    // with n = 46800 and accuracy 10000 the band is ±5 ranks; these are the values returned
    assertThat(
            Arrays.asList(
                day.<Double>getAs("p50_s"), day.<Double>getAs("p95_s"), day.<Double>getAs("p99_s")))
        .containsExactly(0.097, 0.246, 0.296);
    describe("ooo-umts", day, r.advice());
    // PROFILE.json's share behind a 0.1 s watermark in arrival order is 0.072009 (3370 events);
    // here 3373: events with equal enqueued times do not see each other (no order among them)
    assertThat(r.advice().get(0).<Long>getAs("configured_dropped_count")).isEqualTo(3373L);
    assertThat(r.advice().get(0).<Double>getAs("configured_dropped_share"))
        .isCloseTo(
            ref.get("share_behind_watermark_in_arrival_order").get("0.1s").asDouble(),
            org.assertj.core.data.Offset.offset(0.0005));
    assertThat(day.<Long>getAs("behind_watermark_count")).isEqualTo(3373L);
    assertThat(
            new ReportJob(
                    io.latelake.core.job.JobContext.start(spark, tables, CLOCK),
                    new ProfilerJob.Options(cfg, range))
                .run()
                .charts())
        .hasSize(3);
    write();
  }

  @Test
  void curlDataMatchesItsProfileAndCompletenessIsValidated(@TempDir Path dir) throws IOException {
    TableRegistry tables = bronze(dir, "curl-commits/curl_commit_events.csv.gz", "curl-commits");
    JsonNode ref = profileJson("curl-commits");
    ProfilerConfig cfg =
        Fixtures.profiler(
            "lake.profiler.watermark-delay=1 day",
            "lake.correction.horizon=7 days",
            "lake.profiler.report-dir=target/report-curl-commits");
    DayRange range = DayRange.parse("1999-12-29..2026-08-22");
    ProfileJob.Result r = profileAndTime(tables, cfg, range, "curl-commits");
    Dataset<Row> lateness = ProfileReads.readLateness(spark, tables, range, cfg.dedupHorizon());
    double[] sorted = sortedLateness(lateness);
    assertThat((long) sorted.length).isEqualTo(ref.get("records").asLong());
    assertThat(r.stats().stream().mapToLong(s -> s.<Long>getAs("n")).sum()).isEqualTo(85752L);
    // one profile over the whole range: the same aggregation on one group
    Row overall =
        LatenessStats.stats(
                lateness.withColumn("arrival_day", lit(java.sql.Date.valueOf("1999-12-29"))),
                cfg,
                Instant.EPOCH)
            .first();
    assertThat(overall.<Double>getAs("min_s"))
        .isEqualTo(ref.get("lateness_s").get("min").asDouble());
    assertThat(overall.<Double>getAs("max_s"))
        .isEqualTo(ref.get("lateness_s").get("max").asDouble());
    assertThat(overall.<Double>getAs("negative_share"))
        .isCloseTo(
            ref.get("share_negative").asDouble(), org.assertj.core.data.Offset.offset(1e-12));
    checkPercentiles(overall, sorted, ref, cfg.accuracy());
    // --exact: every level, the CDF's included, is the order statistic at rank ceil(p n)
    Row exact =
        LatenessStats.summary(
                lateness.withColumn("arrival_day", lit(java.sql.Date.valueOf("1999-12-29"))),
                cfg.withExact(true))
            .filter(col("arrival_day").isNull())
            .first();
    double[] levels = LatenessStats.summaryLevels(cfg);
    List<Double> expected = new java.util.ArrayList<>();
    for (double p : levels) {
      expected.add(orderStat(sorted, Math.max(1, (long) Math.ceil(p * sorted.length))));
    }
    assertThat(exact.<Long>getAs("n")).isEqualTo((long) sorted.length);
    assertThat(exact.getList(exact.fieldIndex("quantiles"))).isEqualTo(expected);
    describe("curl-commits", overall, r.advice());
    // PROFILE.json: 0.199832 behind a 1-day watermark in arrival order; here 17117 / 85752
    assertThat(r.advice().get(0).<Long>getAs("configured_dropped_count")).isEqualTo(17117L);
    assertThat(r.advice().get(0).<Double>getAs("configured_dropped_share"))
        .isCloseTo(
            ref.get("share_behind_watermark_in_arrival_order").get("86400s").asDouble(),
            org.assertj.core.data.Offset.offset(0.0005));
    assertThat(
            new ReportJob(
                    io.latelake.core.job.JobContext.start(spark, tables, CLOCK),
                    new ProfilerJob.Options(cfg, range))
                .run()
                .charts())
        .hasSize(3);

    List<Duration> ages =
        List.of(
            Duration.ZERO,
            Duration.ofHours(1),
            Duration.ofDays(1),
            Duration.ofDays(7),
            Duration.ofDays(30));
    CompletenessValidation.Result v =
        CompletenessValidation.run(lateness, Duration.ofDays(1), 0.2, ages, 1000, 10000);
    figures.append(
        String.format(
            "curl-commits completeness back-test: cutoff %s, %d training "
                + "events, daily windows%n",
            v.cutoff(), v.trainEvents()));
    for (CompletenessValidation.AgeError e : v.errors()) {
      figures.append(
          String.format(
              "  age %s: %d windows, %d events, predicted %.4f, pooled "
                  + "actual %.4f (error %+.4f), mean actual %.4f, mean abs error per window %.4f%n",
              e.age(),
              e.windows(),
              e.events(),
              e.predicted(),
              e.pooledActual(),
              e.pooledError(),
              e.meanActual(),
              e.meanAbsError()));
      assertThat(e.windows()).isPositive();
      assertThat(e.predicted()).isBetween(0.0, 1.0);
    }
    // completeness never decreases with age, in prediction and in fact
    for (int i = 1; i < v.errors().size(); i++) {
      assertThat(v.errors().get(i).predicted())
          .isGreaterThanOrEqualTo(v.errors().get(i - 1).predicted());
      assertThat(v.errors().get(i).pooledActual())
          .isGreaterThanOrEqualTo(v.errors().get(i - 1).pooledActual());
    }
    write();
  }

  private void write() throws IOException {
    Path out = Path.of("target", "real-data-figures.txt");
    Files.createDirectories(out.getParent());
    Files.writeString(
        out,
        figures.toString(),
        java.nio.file.StandardOpenOption.CREATE,
        java.nio.file.StandardOpenOption.APPEND);
    figures.setLength(0);
  }
}

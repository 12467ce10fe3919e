package io.latelake.app;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import io.latelake.bronze.replay.CapturedEvents;
import io.latelake.bronze.replay.LandingWriter;
import io.latelake.bronze.replay.ReplayPlan;
import io.latelake.core.config.ConfigLoader;
import io.latelake.core.job.JobContext;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.testing.SparkTestBase;
import io.latelake.core.time.DayRange;
import io.latelake.correction.audit.AuditJob;
import io.latelake.correction.correct.CorrectJob;
import io.latelake.correction.correct.CorrectResult;
import io.latelake.correction.rollup.CascadeJob;
import io.latelake.correction.rollup.RebuildJob;
import io.latelake.correction.shared.CorrectionConfig;
import io.latelake.correction.shared.RangeSpec;
import io.latelake.correction.shared.Recompute;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The real curl-commits data (conf/curl-commits.conf: daily windows by top_dir, 1-day watermark,
 * dedup on change_key) replayed through the fast path, then correct + rebuild + cascade: audit
 * finds zero differences, and every closed gold window and every daily total equals an independent
 * recomputation written here in plain Java from the CSV.
 *
 * <p>Subset (to stay within minutes on 2 cores): the commits that arrived in 2025 (UTC), replayed
 * in 30-day slices of arrival time. Their event times reach years back.
 */
class CurlCommitsCorrectionTest extends SparkTestBase {
  private static final Logger LOG = LoggerFactory.getLogger(CurlCommitsCorrectionTest.class);
  private static final Instant FROM = Instant.parse("2025-01-01T00:00:00Z");
  private static final Instant TO = Instant.parse("2026-01-01T00:00:00Z");

  @TempDir Path tmp;

  /** day|top_dir → {commits, files_changed}, from the CSV alone. */
  static Map<String, long[]> independent(List<CapturedEvents.Event> events, Duration skew) {
    Map<String, CapturedEvents.Event> firstCopy = new HashMap<>();
    Comparator<CapturedEvents.Event> byArrival =
        Comparator.comparing(CapturedEvents.Event::arrival)
            .thenComparing(e -> e.fields().get("event_id"));
    for (CapturedEvents.Event e : events) {
      Instant t = Instant.parse(e.fields().get("event_time"));
      if (t.isAfter(e.arrival().plus(skew))) {
        continue; // FUTURE_EVENT_TIME: kept in bronze, never counted
      }
      firstCopy.merge(
          e.fields().get("change_key"), e, (a, b) -> byArrival.compare(a, b) <= 0 ? a : b);
    }
    Map<String, long[]> out = new TreeMap<>();
    for (CapturedEvents.Event e : firstCopy.values()) {
      String day =
          Instant.parse(e.fields().get("event_time"))
              .atZone(ZoneOffset.UTC)
              .toLocalDate()
              .toString();
      long[] v = out.computeIfAbsent(day + "|" + e.fields().get("top_dir"), k -> new long[2]);
      v[0]++;
      v[1] += Long.parseLong(e.fields().get("files_changed"));
    }
    return out;
  }

  static Map<String, long[]> table(List<Row> rows) {
    Map<String, long[]> out = new TreeMap<>();
    for (Row r : rows) {
      // sums of long fields are exact DECIMAL(38,0)
      out.put(
          r.getString(0) + "|" + r.getString(1),
          new long[] {((Number) r.get(2)).longValue(), ((Number) r.get(3)).longValue()});
    }
    return out;
  }

  static Map<String, String> printable(Map<String, long[]> m) {
    Map<String, String> out = new TreeMap<>();
    m.forEach((k, v) -> out.put(k, v[0] + "/" + v[1]));
    return out;
  }

  @Test
  void afterCorrectRebuildAndCascadeAuditFindsNothingAndGoldEqualsAnIndependentRecount() {
    Path root = tmp.resolve("curl");
    Path landing = root.resolve("landing");
    Config config =
        ConfigLoader.load(
            Optional.of(Path.of("../conf/curl-commits.conf")),
            List.of(
                "lake.root=\"" + root + "\"",
                "lake.spark.shuffle-partitions=2",
                "lake.bronze.source=files",
                "lake.bronze.files.path=\"" + landing + "\""));
    CorrectionConfig cc = CorrectionConfig.fromConfig(config);
    TableRegistry tables = TableRegistry.fromConfig(config);
    MetricSpec metric = cc.metric("commits_daily");

    List<CapturedEvents.Event> events =
        CapturedEvents.read(
                Path.of("../data/curl-commits/curl_commit_events.csv.gz"), "arrival_time")
            .stream()
            .filter(e -> !e.arrival().isBefore(FROM) && e.arrival().isBefore(TO))
            .toList();
    List<List<CapturedEvents.Event>> slices = ReplayPlan.slices(events, Duration.ofDays(30));
    FastPath fast = new FastPath(spark, config);
    LandingWriter writer = new LandingWriter(landing);
    long dropped = 0;
    long started = System.nanoTime();
    for (int i = 0; i < slices.size(); i++) {
      writer.write(i + 1, slices.get(i));
      dropped += fast.step().droppedByWatermark();
    }
    double streamS = (System.nanoTime() - started) / 1e9;

    // The watermark replay predicts silver's recorded drops at the configured delay (1 day), in
    // the micro-batches silver recorded.
    long silverDropped =
        spark
            .read()
            .format("delta")
            .load(tables.streamProgress())
            .filter("query_name = 'silver_events'")
            .agg(org.apache.spark.sql.functions.sum("rows_dropped_by_watermark"))
            .first()
            .getLong(0);
    Row configuredReplay =
        io.latelake.profiler.ProfileReads.replay(
                spark,
                tables,
                new DayRange(LocalDate.parse("2025-01-01"), LocalDate.parse("2025-12-31")),
                io.latelake.profiler.ProfilerConfig.fromConfig(config),
                Instant.now())
            .stream()
            .filter(r -> r.<Boolean>getAs("configured"))
            .findFirst()
            .orElseThrow();
    LOG.info("CURL REPLAY: silver dropped {}, replay {}", silverDropped, configuredReplay);
    assertThat(
            List.of(
                configuredReplay.getAs("delay_s"),
                configuredReplay.getAs("dropped_count"),
                configuredReplay.getAs("batch_basis")))
        .containsExactly(86400.0, silverDropped, "recorded");

    Map<String, long[]> expected = independent(events, Duration.ofDays(7));
    LocalDate first = LocalDate.parse(expected.keySet().iterator().next().split("\\|")[0]);
    LocalDate last =
        LocalDate.parse(((TreeMap<String, long[]>) expected).lastKey().split("\\|")[0]);
    DayRange all = new DayRange(first, last);

    AuditJob.Result before =
        new AuditJob(JobContext.start(spark, tables), new RangeSpec(cc, List.of(metric), all))
            .run();

    started = System.nanoTime();
    CorrectResult corrected =
        new CorrectJob(
                JobContext.start(spark, tables),
                new CorrectJob.Options(cc, List.of(metric), Optional.of(Instant.EPOCH)))
            .run();
    double correctS = (System.nanoTime() - started) / 1e9;

    started = System.nanoTime();
    Recompute.gold(spark.read().format("delta").load(tables.bronzeEvents()), metric)
        .write()
        .format("delta")
        .mode("overwrite")
        .save(root.resolve("full_recompute").toString());
    double fullS = (System.nanoTime() - started) / 1e9;

    DayRange year = new DayRange(LocalDate.parse("2024-12-01"), LocalDate.parse("2025-12-31"));
    RebuildJob.Result rebuilt =
        new RebuildJob(JobContext.start(spark, tables), new RangeSpec(cc, List.of(metric), year))
            .run();
    CascadeJob.Result cascaded =
        new CascadeJob(JobContext.start(spark, tables), new RangeSpec(cc, List.of(metric), year))
            .run();
    AuditJob.Result after =
        new AuditJob(JobContext.start(spark, tables), new RangeSpec(cc, List.of(metric), all))
            .run();
    CorrectResult again =
        new CorrectJob(
                JobContext.start(spark, tables),
                new CorrectJob.Options(cc, List.of(metric), Optional.empty()))
            .run();

    CorrectResult.MetricResult m = corrected.metrics().get(0);
    LOG.info(
        "CURL FIGURES: {} events arrived in 2025 in {} slices (stream {} s); dropped by the "
            + "watermark {}; correct: watermark {}, {} windows touched, {} closed, {} deferred, "
            + "{} rows restated in {} s; full recompute of gold from bronze {} s; audit "
            + "differences before {} (beyond tolerance {}), after {}; rebuild changed {} days, "
            + "cascade {} weeks; second correct changed {}",
        events.size(),
        slices.size(),
        String.format("%.0f", streamS),
        dropped,
        m.watermark(),
        m.touchedWindows(),
        m.closedWindows(),
        m.deferredWindows(),
        m.rowsChanged(),
        String.format("%.1f", correctS),
        String.format("%.1f", fullS),
        before.differences(),
        before.beyondTolerance(),
        after.differences(),
        rebuilt.metrics().get(0).changedDays().size(),
        cascaded.metrics().get(0).changedPeriods().size(),
        again.rowsChanged());

    assertThat(dropped).isPositive();
    assertThat(before.differences()).isPositive();
    assertThat(m.rowsChanged()).isPositive();
    assertThat(after.differences()).isZero();
    assertThat(after.beyondTolerance()).isZero();
    assertThat(again.rowsChanged()).isZero();

    Instant watermark = m.watermark();
    Map<String, long[]> expectedClosed = new TreeMap<>();
    expected.forEach(
        (k, v) -> {
          Instant end =
              LocalDate.parse(k.split("\\|")[0])
                  .plusDays(1)
                  .atStartOfDay(ZoneOffset.UTC)
                  .toInstant();
          if (!end.isAfter(watermark)) {
            expectedClosed.put(k, v);
          }
        });
    Map<String, long[]> goldClosed =
        table(
            spark
                .read()
                .format("delta")
                .load(tables.gold("commits_daily"))
                .filter(col("window_end").leq(java.sql.Timestamp.from(watermark)))
                .selectExpr(
                    "cast(to_date(window_start) as string)", "top_dir", "commits", "files_changed")
                .collectAsList());
    assertThat(printable(goldClosed)).isEqualTo(printable(expectedClosed));

    Map<String, long[]> expectedYear = new TreeMap<>();
    expected.forEach(
        (k, v) -> {
          LocalDate d = LocalDate.parse(k.split("\\|")[0]);
          if (!d.isBefore(year.from()) && !d.isAfter(year.to())) {
            expectedYear.put(k, v);
          }
        });
    Map<String, long[]> daily =
        table(
            spark
                .read()
                .format("delta")
                .load(tables.gold("daily_commits_daily"))
                .selectExpr("cast(event_date as string)", "top_dir", "commits", "files_changed")
                .collectAsList());
    assertThat(printable(daily)).isEqualTo(printable(expectedYear));
    long weeklyCommits =
        spark
            .read()
            .format("delta")
            .load(tables.gold("weekly_commits_daily"))
            .filter(col("week_start").geq(java.sql.Date.valueOf("2024-12-02")))
            .selectExpr("sum(commits)")
            .first()
            .getLong(0);
    long dailyCommits =
        daily.entrySet().stream()
            .filter(e -> e.getKey().compareTo("2024-12-02") >= 0)
            .mapToLong(e -> e.getValue()[0])
            .sum();
    assertThat(weeklyCommits).isEqualTo(dailyCommits);
  }
}

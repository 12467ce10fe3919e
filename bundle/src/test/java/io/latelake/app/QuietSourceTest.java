package io.latelake.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latelake.core.catalog.SourcesView;
import io.latelake.core.config.ConfigLoader;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.metrics.StreamMetrics;
import io.latelake.core.streaming.SourceWatermarks;
import io.latelake.core.testing.SparkTestBase;
import io.latelake.core.time.DayRange;
import io.latelake.correction.correct.CorrectJob;
import io.latelake.correction.correct.CorrectResult;
import io.latelake.correction.shared.CorrectionConfig;
import io.latelake.correction.shared.Recompute;
import io.latelake.profiler.ProfileReads;
import io.latelake.profiler.ProfilerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A listed source that goes quiet ({@code lake.sources-idle-after}): two sources {@code a} and
 * {@code b}, both listed, on time (enqueued a second after their event time), driven in lock step
 * (each step: bronze of each source, silver, gold, each to the end of its input; so every step is a
 * new available-now run). Both watermark delays are 10 minutes, windows 5 minutes by page.
 *
 * <p>Steps (event time, 2024-05-14): 1: a1 10:00, b1 10:00; 2: a2 10:05, b2 10:05; 3: a3 10:30
 * ({@code b} quiet from here); 4: a4 10:40; 5: a5 10:45, and {@code b} returns with a backlog: b3
 * 10:08, b4 10:25, b5 10:44, all enqueued at 10:45:01.
 *
 * <p>With {@code b} idle after 20 minutes, its watermark is max(its newest event, arrival clock −
 * 20 min) − 10 min: after step 3 the clock is 10:30:01, so b holds the query at 10:00:01 (a's own
 * is 10:20); after step 4, 10:10:01. In step 5 b3 (10:08) is behind it: dropped by silver, and
 * restated by {@code correct}. Without the timeout (the lake {@code off}) a run in which b sends
 * nothing leaves the watermark where the checkpoint left it (09:55) and nothing closes while b is
 * quiet; nothing is dropped. The same input replayed on a second lake gives the same tables.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QuietSourceTest extends SparkTestBase {
  @TempDir static Path tmp;

  private LockStepLake idle;
  private LockStepLake replay;
  private LockStepLake off;
  private final List<String> idleSteps = new ArrayList<>();
  private final List<String> replaySteps = new ArrayList<>();
  private final List<String> offSteps = new ArrayList<>();
  private String offTurnedOn;
  private StreamMetrics metrics;
  private final List<String> quietGauges = new ArrayList<>();
  private final List<String> sourcesView = new ArrayList<>();

  private static String event(String id, String page, String hhmm, String enqueuedHhmmss) {
    return LakeFixture.event(
        id, "2024-05-14T" + hhmm + ":00Z", "2024-05-14T" + enqueuedHhmmss + "Z", page, 1);
  }

  private static String a(String id, String hhmm) {
    return event(id, "/a", hhmm, hhmm + ":01");
  }

  private static String b(String id, String hhmm) {
    return event(id, "/b", hhmm, hhmm + ":01");
  }

  private LockStepLake lake(String name, String idleAfter) {
    return new LockStepLake(
        spark,
        tmp.resolve(name),
        List.of("a", "b"),
        "lake.sources=[a, b]",
        "lake.sources-idle-after=" + idleAfter);
  }

  /**
   * @return after a step: "silver watermark | gold watermark | silver state rows | closed gold
   *     windows (window_end at or before gold's watermark)"
   */
  private String figures(LockStepLake lake) {
    // one read of stream_progress for the three figures it gives
    Instant silverWm = null;
    Instant goldWm = null;
    long silverBatch = -1;
    Object stateRows = null;
    for (Row r :
        spark
            .read()
            .format("delta")
            .load(lake.context.tables().streamProgress())
            .filter("query_name IN ('silver_events', 'gold_page_5m')")
            .select("query_name", "batch_id", "watermark", "state_rows")
            .collectAsList()) {
      Instant wm = r.isNullAt(2) ? null : r.getTimestamp(2).toInstant();
      if (r.getString(0).equals("silver_events")) {
        silverWm = later(silverWm, wm);
        if (!r.isNullAt(1) && r.getLong(1) > silverBatch) {
          silverBatch = r.getLong(1);
          stateRows = r.get(3);
        }
      } else {
        goldWm = later(goldWm, wm);
      }
    }
    String silverWmText = silverWm == null ? "none" : silverWm.toString();
    String goldWmText = goldWm == null ? "none" : goldWm.toString();
    List<String> closed = new ArrayList<>();
    if (goldWm != null) {
      for (Row r :
          spark
              .read()
              .format("delta")
              .load(lake.root + "/gold/page_5m")
              .filter("window_end <= timestamp'" + goldWmText + "'")
              .orderBy("page", "window_start")
              .select("page", "window_start")
              .collectAsList()) {
        closed.add(
            r.getString(0) + " " + r.getTimestamp(1).toInstant().toString().substring(11, 16));
      }
    }
    return silverWmText + " | " + goldWmText + " | " + stateRows + " | " + closed;
  }

  /** The later of two watermarks, either of them null before a query's first. */
  private static Instant later(Instant a, Instant b) {
    return a == null || (b != null && b.isAfter(a)) ? b : a;
  }

  private void run(LockStepLake lake, List<String> steps) {
    lake.land("a", a("a1", "10:00"));
    lake.land("b", b("b1", "10:00"));
    lake.step();
    steps.add(figures(lake));
    lake.land("a", a("a2", "10:05"));
    lake.land("b", b("b2", "10:05"));
    lake.step();
    steps.add(figures(lake));
    lake.land("a", a("a3", "10:30"));
    lake.step();
    steps.add(figures(lake));
    lake.land("a", a("a4", "10:40"));
    lake.step();
    steps.add(figures(lake));
    gauges();
    lake.land("a", a("a5", "10:45"));
    lake.land(
        "b",
        event("b3", "/b", "10:08", "10:45:01"),
        event("b4", "/b", "10:25", "10:45:01"),
        event("b5", "/b", "10:44", "10:45:01"));
    lake.step();
    steps.add(figures(lake));
    gauges();
  }

  /** With the streams' metrics on: "a's last arrival, its quiet seconds, b's, b's" (UTC). */
  private void gauges() {
    if (metrics != null) {
      var g = metrics.metricRegistry().getGauges();
      List<String> out = new ArrayList<>();
      for (String source : List.of("a", "b")) {
        double last = (Double) g.get("sources." + source + ".latest_enqueued_seconds").getValue();
        out.add(Instant.ofEpochSecond((long) last).toString());
        out.add(String.valueOf(g.get("sources." + source + ".quiet_seconds").getValue()));
      }
      quietGauges.add(String.join(" ", out));
      for (Row r :
          spark
              .sql(
                  SourcesView.query(
                      SourceWatermarks.fromConfig(idle.config),
                      "delta.`" + idle.root + "/bronze/events`",
                      Optional.of("delta.`" + idle.context.tables().streamProgress() + "`")))
              .orderBy("source")
              .collectAsList()) {
        sourcesView.add(
            r.getString(0)
                + " "
                + r.getTimestamp(1).toInstant()
                + " "
                + r.getTimestamp(2).toInstant()
                + " "
                + r.get(3)
                + " "
                + r.get(4)
                + " "
                + r.get(5)
                + " "
                + r.get(6)
                + " "
                + r.get(7));
      }
    }
  }

  @AfterAll
  void closeTheLakes() {
    for (LockStepLake lake : java.util.Arrays.asList(idle, replay, off)) {
      if (lake != null) {
        lake.close();
      }
    }
  }

  @BeforeAll
  void runTheLakes() {
    idle = lake("idle", "\"20 minutes\"");
    replay = lake("replay", "\"20 minutes\"");
    off = lake("off", "off");
    metrics = StreamMetrics.install(spark, List.of("a", "b"));
    try {
      run(idle, idleSteps);
    } finally {
      metrics.uninstall(spark);
      metrics = null;
    }
    run(replay, replaySteps);
    run(off, offSteps);
    // the timeout turned on for a running lake's checkpoints: step 6, a6 11:10, b still quiet
    off.land("a", a("a6", "11:10"));
    off.step(
        off.config.withValue(
            "lake.sources-idle-after",
            com.typesafe.config.ConfigValueFactory.fromAnyRef("20 minutes")));
    offTurnedOn = figures(off);
  }

  @Test
  void theQuietSourceStopsHoldingTheWatermarkAfterTheTimeoutOnTheArrivalClock() {
    assertThat(idleSteps)
        .containsExactly(
            "2024-05-14T09:50:00Z | 2024-05-14T09:50:00Z | 2 | []",
            "2024-05-14T09:55:00Z | 2024-05-14T09:55:00Z | 4 | []",
            // b quiet: the clock (10:30:01) − 20 min − 10 min
            "2024-05-14T10:00:01Z | 2024-05-14T10:00:01Z | 5 | []",
            // 10:40:01 − 30 min: the windows up to 10:10 close while b is quiet; the dedup state
            // lets go of a1 and b1 (event time + delay at or before the watermark)
            "2024-05-14T10:10:01Z | 2024-05-14T10:10:01Z | 4 | "
                + "[/a 10:00, /a 10:05, /b 10:00, /b 10:05]",
            // b is back: its newest event (10:44) holds it again, below a's 10:35; b3 was
            // dropped, a2 and b2 leave the state
            "2024-05-14T10:34:00Z | 2024-05-14T10:34:00Z | 5 | "
                + "[/a 10:00, /a 10:05, /b 10:00, /b 10:05, /b 10:25]");
  }

  @Test
  void theStreamsMetricsShowHowLongEachListedSourceHasBeenQuiet() {
    // after step 4 b has been quiet from 10:05:01 to the clock's 10:40:01; after step 5 both
    // arrived last at 10:45:01
    assertThat(quietGauges)
        .containsExactly(
            "2024-05-14T10:40:01Z 0.0 2024-05-14T10:05:01Z 2100.0",
            "2024-05-14T10:45:01Z 0.0 2024-05-14T10:45:01Z 0.0");
  }

  @Test
  void theSourcesStatusViewShowsTheQuietSourceIdle() {
    // source, last arrival, arrival clock, quiet seconds, idle timeout seconds, idle, rows
    // silver dropped of the source, dropped rows whose split is not known; after steps 4 and 5
    assertThat(sourcesView)
        .containsExactly(
            "a 2024-05-14T10:40:01Z 2024-05-14T10:40:01Z 0.0 1200.0 false 0 0",
            "b 2024-05-14T10:05:01Z 2024-05-14T10:40:01Z 2100.0 1200.0 true 0 0",
            "a 2024-05-14T10:45:01Z 2024-05-14T10:45:01Z 0.0 1200.0 false 0 0",
            "b 2024-05-14T10:45:01Z 2024-05-14T10:45:01Z 0.0 1200.0 false 1 0");
  }

  @Test
  void withoutTheTimeoutAQuietSourceHoldsEveryWindowOpen() {
    assertThat(offSteps)
        .containsExactly(
            "2024-05-14T09:50:00Z | 2024-05-14T09:50:00Z | 2 | []",
            "2024-05-14T09:55:00Z | 2024-05-14T09:55:00Z | 4 | []",
            "2024-05-14T09:55:00Z | 2024-05-14T09:55:00Z | 5 | []",
            "2024-05-14T09:55:00Z | 2024-05-14T09:55:00Z | 6 | []",
            // b3 is kept; a1, b1, a2, b2 and b3 leave the state at once
            "2024-05-14T10:34:00Z | 2024-05-14T10:34:00Z | 5 | "
                + "[/a 10:00, /a 10:05, /b 10:00, /b 10:05, /b 10:25]");
    assertThat(off.droppedIds()).isEmpty();
    assertThat(off.silverDropped).isZero();
  }

  /**
   * @return silver's micro-batches in {@code lake}'s stream_progress: "batch dropped {source=n,
   *     ...}", sources in name order ("null" when the split is not recorded)
   */
  private List<String> silverDropsBySource(LockStepLake lake) {
    List<String> out = new ArrayList<>();
    for (Row r :
        spark
            .read()
            .format("delta")
            .load(lake.context.tables().streamProgress())
            .filter("query_name = 'silver_events'")
            .orderBy("batch_id")
            .select("batch_id", "rows_dropped_by_watermark", "dropped_by_source")
            .collectAsList()) {
      out.add(
          r.getLong(0)
              + " "
              + r.getLong(1)
              + " "
              + (r.isNullAt(2) ? "null" : new java.util.TreeMap<>(r.<String, Long>getJavaMap(2))));
    }
    return out;
  }

  @Test
  void theReturningSourcesEventsBehindTheWatermarkAreDroppedAndRestatedByCorrect() {
    assertThat(idle.droppedIds()).containsExactly("b3");
    assertThat(idle.silverDropped).isEqualTo(1);
    assertThat(idle.goldDropped).isZero();
    // counted for b, the source they came from (each step: a micro-batch with data, then the
    // no-data one that moves the watermark)
    assertThat(silverDropsBySource(idle))
        .containsExactly(
            "0 0 {a=0, b=0}",
            "1 0 {a=0, b=0}",
            "2 0 {a=0, b=0}",
            "3 0 {a=0, b=0}",
            "4 0 {a=0, b=0}",
            "5 0 {a=0, b=0}",
            "6 0 {a=0, b=0}",
            "7 0 {a=0, b=0}",
            "8 1 {a=0, b=1}",
            "9 0 {a=0, b=0}");
    assertThat(idle.gold()).contains("/b 2024-05-14T10:05:00Z 1 1");

    CorrectionConfig cc = CorrectionConfig.fromConfig(idle.config);
    CorrectResult corrected =
        new CorrectJob(
                idle.context, new CorrectJob.Options(cc, cc.metrics(), Optional.of(Instant.EPOCH)))
            .run();
    assertThat(corrected.rowsChanged()).isEqualTo(1);
    // touched: the windows starting 10:00, 10:05, 10:25, 10:30, 10:40, 10:45; closed by 10:34:
    // the first three
    assertThat(corrected.metrics().get(0).summary())
        .matches(
            "page_5m: bronze rows ingested since 1970-01-01T00:00:00Z \\(--since\\), up to version \\d+, 6 windows touched, 3"
                + " closed \\(watermark 2024-05-14T10:34:00Z\\), 3 deferred; 1 gold rows restated"
                + " \\(corrections_log\\) \\(late policy restate\\)");
    assertThat(idle.gold()).contains("/b 2024-05-14T10:05:00Z 2 2");
    // gold = the recompute from bronze, every window
    List<String> recomputed = new ArrayList<>();
    for (Row r :
        Recompute.gold(
                spark.read().format("delta").load(idle.root + "/bronze/events"),
                cc.metrics().get(0))
            .collectAsList()) {
      recomputed.add(
          r.getAs("page")
              + " "
              + r.<java.sql.Timestamp>getAs("window_start").toInstant()
              + " "
              + r.getAs("events")
              + " "
              + r.getAs("value_sum"));
    }
    recomputed.sort(null);
    assertThat(idle.gold()).isEqualTo(recomputed);
  }

  @Test
  void theSameInputReplayedGivesTheSameWatermarksAndTables() {
    assertThat(replaySteps).isEqualTo(idleSteps);
    assertThat(replay.silverIds())
        .isEqualTo(List.of("a1", "a2", "a3", "a4", "a5", "b1", "b2", "b4", "b5"));
    assertThat(replay.droppedIds()).containsExactly("b3");
  }

  /**
   * @return the watermark replay of {@code lake}'s day with {@code config}: "delay_s dropped
   *     micro-batches basis" of silver's configured delay
   */
  private String replayed(LockStepLake lake, com.typesafe.config.Config config) {
    java.time.LocalDate day = java.time.LocalDate.parse("2024-05-14");
    Row r =
        ProfileReads.replay(
                spark,
                lake.context.tables(),
                new DayRange(day, day),
                ProfilerConfig.fromConfig(config),
                Instant.parse("2026-01-01T00:00:00Z"))
            .stream()
            .filter(x -> x.<Boolean>getAs("configured"))
            .findFirst()
            .orElseThrow();
    return r.getAs("delay_s")
        + " "
        + r.getAs("dropped_count")
        + " "
        + r.getAs("micro_batches")
        + " "
        + r.getAs("batch_basis");
  }

  @Test
  void theWatermarkReplayPredictsTheDropsWithAndWithoutTheTimeout() {
    // the profiler replays silver's idle markers: b3 dropped, as the stream did (5 micro-batches
    // with rows, cut as silver recorded them)
    assertThat(replayed(replay, replay.config)).isEqualTo("600.0 1 5 recorded");
    // the off lake, whose stream dropped nothing (step 6 ran with the timeout, and dropped nothing
    // either)
    assertThat(replayed(off, off.config)).isEqualTo("600.0 0 6 recorded");
  }

  @Test
  void theTimeoutCanBeTurnedOnForARunningLake() {
    // b's marker from a6: 11:10:01 − 20 min, − 10 min: 10:40:01 (a's own: 11:00)
    assertThat(offTurnedOn).startsWith("2024-05-14T10:40:01Z | 2024-05-14T10:40:01Z | ");
  }

  @Test
  void timeoutsAreReadPerListedSource() {
    SourceWatermarks s =
        SourceWatermarks.fromConfig(
            ConfigLoader.load(
                Optional.empty(),
                List.of(
                    "lake.sources=[a, b, c]",
                    "lake.sources-idle-after=\"30 minutes\"",
                    "lake.sources-idle-after-per-source={b=\"2 hours\", c=OFF}")));
    assertThat(s.idleAfter())
        .isEqualTo(Map.of("a", Duration.ofMinutes(30), "b", Duration.ofHours(2)));
    assertThat(
            SourceWatermarks.fromConfig(
                    ConfigLoader.load(Optional.empty(), List.of("lake.sources=[a]")))
                .idleAfter())
        .isEmpty();
    assertThatThrownBy(
            () ->
                SourceWatermarks.fromConfig(
                    ConfigLoader.load(
                        Optional.empty(),
                        List.of(
                            "lake.sources=[a]",
                            "lake.sources-idle-after-per-source={\"gw.x\"=\"1 hour\"}"))))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '1 hour' for key 'lake.sources-idle-after-per-source.\"gw.x\"': 'gw.x'"
                + " is not in lake.sources [a] (quote a source name that holds dots: { \"gw.a\" ="
                + " \"1 hour\" })");
    assertThatThrownBy(
            () ->
                SourceWatermarks.fromConfig(
                    ConfigLoader.load(
                        Optional.empty(), List.of("lake.sources-idle-after=\"1 hour\""))))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '1 hour' for key 'lake.sources-idle-after': an idle timeout applies to"
                + " the sources listed in lake.sources, which is empty (one watermark for all"
                + " sources: there is no other source to wait for)");
    assertThatThrownBy(
            () ->
                SourceWatermarks.fromConfig(
                    ConfigLoader.load(
                        Optional.empty(),
                        List.of("lake.sources=[a]", "lake.sources-idle-after=soon"))))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'soon' for key 'lake.sources-idle-after': expected a duration such as"
                + " '10 minutes', '30 s' or '250 ms'");
  }
}

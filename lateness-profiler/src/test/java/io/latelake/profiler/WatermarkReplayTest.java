package io.latelake.profiler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.latelake.core.streaming.SourceWatermarks;
import io.latelake.core.testing.SparkTestBase;
import io.latelake.core.time.DayRange;
import java.sql.Date;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.Test;

/**
 * The watermark replay on hand-made bronze micro-batches where Spark's rule (the watermark moves
 * once per micro-batch, rows judged against the previous micro-batch's) and the per-arrival bound
 * give different counts, each asserted.
 *
 * <p>Three bronze micro-batches of source {@code s} (event time / enqueued time, UTC 2024-05-20):
 * B1 ingested 10:00:05 = e1 10:00:00 / 10:00:01, e2 10:01:00 / 10:01:01, e3 10:00:30 / 10:01:30; B2
 * ingested 10:02:05 = e4 10:02:00 / 10:02:01; B3 ingested 10:03:05 = e5 10:01:30 / 10:03:00, e6
 * 10:00:40 / 10:03:01. Delay 10 s unless stated.
 */
class WatermarkReplayTest extends SparkTestBase {
  private static final DayRange DAY =
      new DayRange(LocalDate.parse("2024-05-20"), LocalDate.parse("2024-05-20"));
  private static final String B1 = "2024-05-20T10:00:05Z";
  private static final String B2 = "2024-05-20T10:02:05Z";
  private static final String B3 = "2024-05-20T10:03:05Z";
  private static final Duration TEN = Duration.ofSeconds(10);
  private static final Duration MINUTE = Duration.ofMinutes(1);

  private static Row row(String id, String source, String event, String enqueued, String batch) {
    return RowFactory.create(
        id,
        Fixtures.ts("2024-05-20T" + event + "Z"),
        Fixtures.ts("2024-05-20T" + enqueued + "Z"),
        1,
        Fixtures.ts(batch),
        Date.valueOf("2024-05-20"),
        source,
        null);
  }

  private Dataset<Row> threeBatches(String... sources) {
    String a = sources.length > 0 ? sources[0] : "s";
    return Fixtures.bronze(
        spark,
        List.of(
            row("e1", a, "10:00:00", "10:00:01", B1),
            row("e2", a, "10:01:00", "10:01:01", B1),
            row("e3", a, "10:00:30", "10:01:30", B1),
            row("e4", a, "10:02:00", "10:02:01", B2),
            row("e5", a, "10:01:30", "10:03:00", B3),
            row("e6", a, "10:00:40", "10:03:01", B3)));
  }

  private static long micros(String iso) {
    Instant i = Instant.parse(iso);
    return i.getEpochSecond() * 1_000_000 + i.getNano() / 1000;
  }

  private List<ReplayOutcome> replay(
      Dataset<Row> bronze,
      List<ReplayBatches.Batch> batches,
      List<String> sources,
      Duration... delays) {
    return replay(bronze, batches, SourceWatermarks.of(sources), delays);
  }

  private List<ReplayOutcome> replay(
      Dataset<Row> bronze,
      List<ReplayBatches.Batch> batches,
      SourceWatermarks sources,
      Duration... delays) {
    return WatermarkReplay.replay(
        spark, WatermarkReplay.input(bronze, DAY), batches, sources, List.of(delays), List.of());
  }

  @Test
  void theEvictingMicroBatchIsFoundByBinarySearch() {
    long none = Long.MIN_VALUE;
    long[] evict = {none, none, 10, 10, 20, 35};
    assertThat(ReplayState.firstAtLeast(evict, 0, 6, 10)).isEqualTo(2);
    assertThat(ReplayState.firstAtLeast(evict, 3, 6, 10)).isEqualTo(3);
    assertThat(ReplayState.firstAtLeast(evict, 0, 6, 11)).isEqualTo(4);
    assertThat(ReplayState.firstAtLeast(evict, 0, 6, 35)).isEqualTo(5);
    // never evicted within the replay
    assertThat(ReplayState.firstAtLeast(evict, 0, 6, 36)).isEqualTo(6);
    assertThat(ReplayState.firstAtLeast(evict, 6, 6, 1)).isEqualTo(6);
  }

  @Test
  void perArrivalBoundCountsRowsThatTheMicroBatchRuleKeeps() {
    // The bound: the watermark moved after every arrival drops e3 (behind e2 − 10 s), e5 and e6
    // (behind e4 − 10 s).
    Dataset<Row> arrivals = LatenessStats.arrivals(threeBatches());
    long perArrival =
        BehindWatermark.flag(arrivals, 10, LatenessStats.measured()).filter("_behind").count();
    assertThat(perArrival).isEqualTo(3);

    // Spark's rule, one silver micro-batch per bronze micro-batch, each followed by a no-data
    // micro-batch: e3 is in e2's micro-batch (not judged against it); B2 is judged against
    // 10:00:50, B3 against 10:01:50 (e4 − 10 s): e5 and e6 are dropped.
    List<ReplayOutcome> none = replay(threeBatches(), List.of(), List.of(), TEN, MINUTE);
    assertThat(none)
        .extracting(
            ReplayOutcome::delay,
            ReplayOutcome::rows,
            ReplayOutcome::microBatches,
            ReplayOutcome::dropped,
            ReplayOutcome::watermarkLagSeconds,
            ReplayOutcome::basis)
        .containsExactly(
            // lag after each micro-batch: 10:01:30 − 10:00:50, 10:02:01 − 10:01:50, 10:03:01 −
            // 10:01:50 = 40, 11, 71 s: median 40
            tuple(TEN, 6L, 3L, 2L, 40.0, WatermarkReplay.PER_BRONZE_BATCH),
            // 60 s: B3 judged against 10:01:00: only e6; lags 90, 61, 121 s: median 90
            tuple(MINUTE, 6L, 3L, 1L, 90.0, WatermarkReplay.PER_BRONZE_BATCH));
    // Dedup state at the end of each micro-batch. 10 s: B1 brings e1, e2, e3 (3); the next
    // micro-batch starts at 10:00:50 and evicts e1 and e3 (expire 10:00:10, 10:00:40): 1; B2
    // adds e4: 2; 10:01:50 evicts e2: 1; e5, e6 are dropped. Peak 3. 60 s: e1, e2, e3 (3), e4
    // (4); the watermark reaches 10:01:00, e1's expiry (Spark evicts at watermark >= expiry): 3;
    // e5 enters, e6 is dropped: 4. Peak 4.
    assertThat(none).extracting(ReplayOutcome::statePeakRows).containsExactly(3L, 4L);
  }

  @Test
  void recordedMicroBatchesWithoutNoDataBatchesBetweenDropLess() {
    // silver read B1, B2, B3 in three micro-batches back to back: B3 is judged against the
    // watermark B2 started with (10:00:50, from B1 alone), so only e6 is dropped.
    List<ReplayBatches.Batch> recorded =
        List.of(
            new ReplayBatches.Batch(3L, micros(B1)),
            new ReplayBatches.Batch(1L, micros(B2)),
            new ReplayBatches.Batch(2L, micros(B3)));
    assertThat(replay(threeBatches(), recorded, List.of(), TEN))
        .extracting(ReplayOutcome::dropped, ReplayOutcome::basis)
        .containsExactly(tuple(1L, WatermarkReplay.RECORDED));

    // B1 and B2 in one recorded micro-batch, then a no-data one, then B3: judged against 10:01:50
    List<ReplayBatches.Batch> together =
        List.of(
            new ReplayBatches.Batch(4L, micros(B2)),
            new ReplayBatches.Batch(0L, null),
            new ReplayBatches.Batch(2L, micros(B3)));
    assertThat(replay(threeBatches(), together, List.of(), TEN))
        .extracting(ReplayOutcome::microBatches, ReplayOutcome::dropped, ReplayOutcome::basis)
        .containsExactly(tuple(2L, 2L, WatermarkReplay.RECORDED));

    // only B1 recorded (then a no-data micro-batch): B2 and B3 after it, one micro-batch each
    List<ReplayBatches.Batch> partly =
        List.of(new ReplayBatches.Batch(3L, micros(B1)), new ReplayBatches.Batch(0L, null));
    assertThat(replay(threeBatches(), partly, List.of(), TEN))
        .extracting(ReplayOutcome::dropped, ReplayOutcome::basis)
        .containsExactly(tuple(2L, WatermarkReplay.MIXED));

    // a data micro-batch without the value (killed): its rows count in the next recorded one (B1
    // and B2 together), B3 comes after the records and is judged against the watermark that
    // micro-batch started with (none yet): nothing dropped
    List<ReplayBatches.Batch> killed =
        List.of(new ReplayBatches.Batch(null, null), new ReplayBatches.Batch(1L, micros(B2)));
    assertThat(replay(threeBatches(), killed, List.of(), TEN))
        .extracting(ReplayOutcome::dropped, ReplayOutcome::basis)
        .containsExactly(tuple(0L, WatermarkReplay.MIXED));
  }

  @Test
  void listedSourcesHoldTheWatermarkAtTheSlowestAndUntilEachHasSent() {
    // B1: a 10:00:00, a 10:01:00; B2: a 10:00:20, b 09:59:00; B3: a 09:58:45, c (unlisted)
    // 09:58:40. With [a, b]: no watermark until b sends (B2 keeps a 10:00:20); B3 is judged
    // against min(10:01:00, 09:59:00) − 10 s = 09:58:50: a 09:58:45 and c 09:58:40 are dropped.
    Dataset<Row> bronze =
        Fixtures.bronze(
            spark,
            List.of(
                row("a1", "a", "10:00:00", "10:00:01", B1),
                row("a2", "a", "10:01:00", "10:01:01", B1),
                row("a3", "a", "10:00:20", "10:02:00", B2),
                row("b1", "b", "09:59:00", "10:02:01", B2),
                row("a4", "a", "09:58:45", "10:03:00", B3),
                row("c1", "c", "09:58:40", "10:03:01", B3)));
    assertThat(replay(bronze, List.of(), List.of("a", "b"), TEN))
        .extracting(ReplayOutcome::dropped)
        .containsExactly(2L);
    // one watermark for all: B2 judged against 10:00:50 (a3, b1), B3 too (a4, c1)
    assertThat(replay(bronze, List.of(), List.of(), TEN))
        .extracting(ReplayOutcome::dropped)
        .containsExactly(4L);
  }

  @Test
  void anIdleSourceTakesSilversIdleMarkersFromTheOtherSourcesArrivals() {
    // [a, b], b idle after 1 minute. B1: a1, b1 10:00:00. B2: a2 10:02:00 (arrival 10:02:01) and
    // c1 (unlisted) 10:02:30, enqueued 10:30:00 by a clock ahead, so its arrival is B2's
    // ingested_at 10:02:05; b quiet. b's markers: 10:01:01 (a2) and 10:01:05 (c1), so its
    // watermark is 10:00:55 and the query's min(10:02:00, 10:01:05) - 10 s = 10:00:55. B3: b
    // returns with b2 10:01:30 (kept), b3 10:00:53 (behind c1's marker only) and b4 10:00:30:
    // 2 dropped. Without the timeout b holds the query at 10:00:00 - 10 s: nothing dropped.
    Dataset<Row> bronze =
        Fixtures.bronze(
            spark,
            List.of(
                row("a1", "a", "10:00:00", "10:00:01", B1),
                row("b1", "b", "10:00:00", "10:00:01", B1),
                row("a2", "a", "10:02:00", "10:02:01", B2),
                row("c1", "c", "10:02:30", "10:30:00", B2),
                row("a3", "a", "10:03:00", "10:03:01", B3),
                row("b2", "b", "10:01:30", "10:03:02", B3),
                row("b3", "b", "10:00:53", "10:03:03", B3),
                row("b4", "b", "10:00:30", "10:03:04", B3)));
    SourceWatermarks idle =
        new SourceWatermarks(List.of("a", "b"), java.util.Map.of("b", Duration.ofMinutes(1)));
    assertThat(replay(bronze, List.of(), idle, TEN))
        .extracting(ReplayOutcome::dropped)
        .containsExactly(2L);
    assertThat(replay(bronze, List.of(), List.of("a", "b"), TEN))
        .extracting(ReplayOutcome::dropped)
        .containsExactly(0L);
  }

  @Test
  void aSpareSlotHoldsTheWatermarkAtTheArrivalClock() {
    // [a] and one spare slot (lake.sources-slots = 2), 10 s. B1: a1 10:05:00 from a clock ahead,
    // arrival 10:00:01; B2: a2 10:04:00. Without the spare the watermark is 10:04:50 after B1 and
    // a2 is dropped; the spare's watermark is the arrival clock - 10 s = 09:59:51, the query's
    // too: a2 is kept.
    String b2 = "2024-05-20T10:02:05Z";
    Dataset<Row> bronze =
        Fixtures.bronze(
            spark,
            List.of(
                row("a1", "a", "10:05:00", "10:00:01", B1),
                row("a2", "a", "10:04:00", "10:02:01", b2)));
    assertThat(
            replay(
                bronze, List.of(), new SourceWatermarks(List.of("a"), java.util.Map.of(), 1), TEN))
        .extracting(ReplayOutcome::dropped)
        .containsExactly(0L);
    assertThat(replay(bronze, List.of(), List.of("a"), TEN))
        .extracting(ReplayOutcome::dropped)
        .containsExactly(1L);
  }

  @Test
  void aRestartHoldsTheWatermarkUntilEveryListedSourceHasSentAgain() {
    // [a, b], 10 s. B1: a1, b1 10:00:00; B2: a2 10:02:00, b2 10:02:30 (watermark 10:01:50); then
    // the query restarts; B3: a3 10:03:30 only; B4: a4 10:02:10. Through the restart b's newest
    // event would let the watermark reach min(10:03:30, 10:02:30) - 10 s = 10:02:20 and drop a4;
    // after it b has sent nothing in this run, counts as watermark 0, and the watermark stays at
    // 10:01:50: a4 is kept.
    String b2 = "2024-05-20T10:02:35Z";
    String b3 = "2024-05-20T10:03:35Z";
    String b4 = "2024-05-20T10:04:05Z";
    Dataset<Row> bronze =
        Fixtures.bronze(
            spark,
            List.of(
                row("a1", "a", "10:00:00", "10:00:01", B1),
                row("b1", "b", "10:00:00", "10:00:01", B1),
                row("a2", "a", "10:02:00", "10:02:01", b2),
                row("b2", "b", "10:02:30", "10:02:31", b2),
                row("a3", "a", "10:03:30", "10:03:31", b3),
                row("a4", "a", "10:02:10", "10:04:01", b4)));
    java.util.function.Function<Boolean, List<ReplayBatches.Batch>> recorded =
        restart ->
            List.of(
                new ReplayBatches.Batch(2L, micros(B1)),
                new ReplayBatches.Batch(0L, null),
                new ReplayBatches.Batch(2L, micros(b2)),
                new ReplayBatches.Batch(0L, null),
                new ReplayBatches.Batch(1L, micros(b3), restart),
                new ReplayBatches.Batch(0L, null),
                new ReplayBatches.Batch(1L, micros(b4)));
    assertThat(replay(bronze, recorded.apply(true), List.of("a", "b"), TEN))
        .extracting(ReplayOutcome::dropped)
        .containsExactly(0L);
    assertThat(replay(bronze, recorded.apply(false), List.of("a", "b"), TEN))
        .extracting(ReplayOutcome::dropped)
        .containsExactly(1L);
  }

  @Test
  void aNewCheckpointStartsWithoutAWatermark() {
    // one watermark, 10 s. B1: a1 10:00:00; B2: a2 10:02:00 (watermark 10:01:50); B3: a3 10:01:00,
    // read by the first micro-batch of a new checkpoint (another query_id): no watermark yet, kept;
    // on the same checkpoint it is behind 10:01:50 and dropped
    String b2 = "2024-05-20T10:02:05Z";
    String b3 = "2024-05-20T10:03:05Z";
    Dataset<Row> bronze =
        Fixtures.bronze(
            spark,
            List.of(
                row("a1", "a", "10:00:00", "10:00:01", B1),
                row("a2", "a", "10:02:00", "10:02:01", b2),
                row("a3", "a", "10:01:00", "10:03:01", b3)));
    java.util.function.Function<Boolean, List<ReplayBatches.Batch>> recorded =
        fresh ->
            List.of(
                new ReplayBatches.Batch(1L, micros(B1)),
                new ReplayBatches.Batch(0L, null),
                new ReplayBatches.Batch(1L, micros(b2)),
                new ReplayBatches.Batch(0L, null),
                new ReplayBatches.Batch(1L, micros(b3), fresh, fresh));
    assertThat(replay(bronze, recorded.apply(true), List.of(), TEN))
        .extracting(ReplayOutcome::dropped)
        .containsExactly(0L);
    assertThat(replay(bronze, recorded.apply(false), List.of(), TEN))
        .extracting(ReplayOutcome::dropped)
        .containsExactly(1L);
  }

  @Test
  void goldRowsLeftToTheCorrectionPathPerMetric() {
    // 10 s: e5 (10:01:30) and e6 (10:00:40) are dropped; 60 s: e6 only. One-minute windows by
    // source: 10:01 and 10:00 (2 rows), then 10:00 (1); ten-second windows: 10:01:30 and
    // 10:00:40 (2), then 10:00:40 (1). Over both metrics: 4 and 2.
    List<ReplayOutcome> outcomes =
        WatermarkReplay.replay(
            spark,
            WatermarkReplay.input(threeBatches(), DAY),
            List.of(),
            SourceWatermarks.none(),
            List.of(TEN, MINUTE),
            List.of(
                new WatermarkReplay.Window(MINUTE, List.of("source")),
                new WatermarkReplay.Window(TEN, List.of())));
    assertThat(outcomes)
        .extracting(ReplayOutcome::dropped, ReplayOutcome::goldRowsToCorrect)
        .containsExactly(tuple(2L, 4L), tuple(1L, 2L));
    // two dropped rows in one window count once: e5 moved into e6's minute
    Dataset<Row> sameMinute =
        Fixtures.bronze(
            spark,
            List.of(
                row("e1", "s", "10:00:00", "10:00:01", B1),
                row("e2", "s", "10:01:00", "10:01:01", B1),
                row("e4", "s", "10:02:00", "10:02:01", B2),
                row("e5", "s", "10:00:50", "10:03:00", B3),
                row("e6", "s", "10:00:40", "10:03:01", B3)));
    assertThat(
            WatermarkReplay.replay(
                spark,
                WatermarkReplay.input(sameMinute, DAY),
                List.of(),
                SourceWatermarks.none(),
                List.of(TEN),
                List.of(new WatermarkReplay.Window(MINUTE, List.of("source")))))
        .extracting(ReplayOutcome::dropped, ReplayOutcome::goldRowsToCorrect)
        .containsExactly(tuple(2L, 1L));
  }

  @Test
  void rowsOfTheTableMarkTheConfiguredAndTheRecommendedDelay() {
    List<ReplayOutcome> outcomes = replay(threeBatches(), List.of(), List.of(), TEN, MINUTE);
    Instant at = Instant.parse("2024-05-21T00:00:00Z");
    Dataset<Row> rows =
        spark.createDataFrame(
            ReplayOutcome.rows("silver_events", DAY, outcomes, TEN, 0.2, at), ReplayOutcome.SCHEMA);
    assertThat(rows.collectAsList())
        .extracting(
            r -> r.getAs("delay_s"),
            r -> r.getAs("configured"),
            r -> r.getAs("recommended"),
            r -> r.getAs("dropped_count"),
            r -> r.getAs("dropped_share"),
            r -> r.getAs("computed_at"))
        .containsExactly(
            tuple(10.0, true, false, 2L, 2 / 6.0, Timestamp.from(at)),
            tuple(60.0, false, true, 1L, 1 / 6.0, Timestamp.from(at)));
    // a target no delay meets: nothing recommended
    assertThat(ReplayOutcome.recommend(outcomes, 0.1)).isNull();
    assertThat(ReplayOutcome.recommend(outcomes, 0.34)).isEqualTo(TEN);
    // no evidence, no recommendation: nothing replayed
    assertThat(
            ReplayOutcome.recommend(
                replay(threeBatches().limit(0), List.of(), List.of(), TEN), 0.5))
        .isNull();
  }

  @Test
  void invalidAndOutOfRangeRowsAreNotReplayed() {
    List<Row> rows = new ArrayList<>(threeBatches().collectAsList());
    rows.add(
        RowFactory.create(
            "bad",
            Fixtures.ts("2024-05-20T09:00:00Z"),
            Fixtures.ts("2024-05-20T10:03:02Z"),
            1,
            Fixtures.ts(B3),
            Date.valueOf("2024-05-20"),
            "s",
            "FUTURE_EVENT_TIME"));
    rows.add(row("late", "s", "09:00:00", "10:03:02", B3));
    rows.add(
        RowFactory.create(
            "next-day",
            Fixtures.ts("2024-05-20T23:59:00Z"),
            Fixtures.ts("2024-05-21T00:00:01Z"),
            1,
            Fixtures.ts("2024-05-21T00:00:05Z"),
            Date.valueOf("2024-05-21"),
            "s",
            null));
    Dataset<Row> bronze = Fixtures.bronze(spark, rows);
    DayRange nextDay = new DayRange(LocalDate.parse("2024-05-21"), LocalDate.parse("2024-05-21"));
    assertThat(WatermarkReplay.input(bronze, DAY).count()).isEqualTo(7);
    assertThat(WatermarkReplay.input(bronze, nextDay).count()).isEqualTo(1);
    // the row dated 09:00 in B3 is dropped too: 3 of 7
    assertThat(replay(bronze, List.of(), List.of(), TEN))
        .extracting(ReplayOutcome::rows, ReplayOutcome::dropped)
        .containsExactly(tuple(7L, 3L));
  }
}

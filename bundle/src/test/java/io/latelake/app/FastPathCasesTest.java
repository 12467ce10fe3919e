package io.latelake.app;

import static io.latelake.app.LakeFixture.event;
import static io.latelake.app.LakeFixture.goldRows;
import static io.latelake.app.LakeFixture.ids;
import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;

import io.delta.tables.DeltaTable;
import io.latelake.core.testing.SparkTestBase;
import io.latelake.gold.GoldJob;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fast path (bronze → silver → gold, micro-batch by micro-batch) on the seed example and the
 * shared cases, with exact expected tables.
 */
class FastPathCasesTest extends SparkTestBase {
  @TempDir Path tmp;

  private long droppedRecorded(LakeFixture f, String query) {
    Row r =
        spark
            .read()
            .format("delta")
            .load(f.root + "/monitoring/stream_progress")
            .filter(col("query_name").equalTo(query))
            .selectExpr("coalesce(sum(rows_dropped_by_watermark), 0)")
            .first();
    return r.getLong(0);
  }

  private String lastWatermark(LakeFixture f, String query) {
    Row r =
        spark
            .read()
            .format("delta")
            .load(f.root + "/monitoring/stream_progress")
            .filter(col("query_name").equalTo(query))
            .orderBy(col("batch_id").desc())
            .select("watermark")
            .first();
    return ((java.sql.Timestamp) r.get(0)).toInstant().toString();
  }

  @Test
  void seedExampleDropsTheLateHomeViewAndRecordsIt() {
    LakeFixture f = seedLake("seed");
    FastPath fast = new FastPath(spark, f.config);
    FastPath.Step last = null;
    for (List<String> slice : SEED_SLICES) {
      f.land(slice.toArray(String[]::new));
      last = fast.step();
    }

    assertThat(last.bronze().inputRows()).isEqualTo(1);
    assertThat(last.silver().droppedByWatermark()).isEqualTo(1);
    assertThat(seedGold(f)).containsExactlyElementsOf(SEED_GOLD);
    assertThat(droppedRecorded(f, "silver_events")).isEqualTo(1);
    assertThat(droppedRecorded(f, "gold_page_5m")).isEqualTo(0);
    // The late event is kept in bronze, valid, for the correction path.
    assertThat(
            spark
                .read()
                .format("delta")
                .load(f.root + "/bronze/events")
                .filter("event_id = 'h4' AND error IS NULL")
                .count())
        .isEqualTo(1);
    assertThat(ids(spark, f.root + "/silver/events"))
        .containsExactly("h1", "h2", "h3", "p1", "p2", "p3");
    assertThat(batches(f, "silver_events")).containsExactlyElementsOf(SEED_SILVER_BATCHES);
    assertThat(batches(f, "gold_page_5m")).containsExactlyElementsOf(SEED_GOLD_BATCHES);
  }

  /** The seed example's three landing files, in arrival order: h4 arrives last, 27 minutes late. */
  private static final List<List<String>> SEED_SLICES =
      List.of(
          List.of(
              seed("h1", "/home", "10:01", "10:01:02", 7),
              seed("p1", "/pricing", "10:02", "10:02:01", 4),
              seed("p2", "/pricing", "10:04", "10:04:03", 6),
              seed("h2", "/home", "10:06", "10:06:01", 5),
              seed("p3", "/pricing", "10:07", "10:07:02", 5)),
          List.of(seed("h3", "/home", "10:30", "10:30:01", 1)),
          List.of(seed("h4", "/home", "10:03", "10:31:00", 5)));

  /** The seed example's gold as "page window_start events total_duration_s": h4 is not in it. */
  private static final List<String> SEED_GOLD =
      List.of(
          "/home 2024-05-14 10:00:00 1 7.0",
          "/home 2024-05-14 10:05:00 1 5.0",
          "/home 2024-05-14 10:30:00 1 1.0",
          "/pricing 2024-05-14 10:00:00 2 10.0",
          "/pricing 2024-05-14 10:05:00 1 5.0");

  /** A lake with the seed example's fields and measures. */
  private LakeFixture seedLake(String name) {
    return new LakeFixture(
        tmp.resolve(name),
        "lake.event.fields=[{name=page, type=string}, {name=value, type=long}, "
            + "{name=duration_s, type=double}]",
        "lake.gold.metrics.page_5m.measures=[{name=events, function=count}, "
            + "{name=value_sum, function=sum, column=value}, "
            + "{name=total_duration_s, function=sum, column=duration_s}]");
  }

  /**
   * @return the lake's gold as "page window_start events total_duration_s", sorted
   */
  private List<String> seedGold(LakeFixture f) {
    return spark
        .read()
        .format("delta")
        .load(f.root + "/gold/page_5m")
        .selectExpr("concat_ws(' ', page, cast(window_start as string), events, total_duration_s)")
        .as(org.apache.spark.sql.Encoders.STRING())
        .collectAsList()
        .stream()
        .sorted()
        .toList();
  }

  /**
   * The seed example's micro-batches of silver as "batch rows-read rows-dropped watermark": one
   * with data per landing file, then the no-data one that moves the watermark to the largest event
   * time - 10 minutes (none after h4: dropped, it moves nothing).
   */
  private static final List<String> SEED_SILVER_BATCHES =
      List.of(
          "0 5 0 1970-01-01 00:00:00",
          "1 0 0 2024-05-14 09:57:00",
          "2 1 0 2024-05-14 09:57:00",
          "3 0 0 2024-05-14 10:20:00",
          "4 1 1 2024-05-14 10:20:00");

  /** The same for gold: silver wrote nothing of the third file, so gold has no fifth batch. */
  private static final List<String> SEED_GOLD_BATCHES =
      List.of(
          "0 5 0 1970-01-01 00:00:00",
          "1 0 0 2024-05-14 09:57:00",
          "2 1 0 2024-05-14 09:57:00",
          "3 0 0 2024-05-14 10:20:00");

  /**
   * The seed example with the three stages side by side ({@link FastPath#pipelined}): the tables
   * and drops of the lock steps above, and each stage's micro-batches as lock steps make them (one
   * per landing file, each followed by the no-data micro-batch that moves the watermark when it
   * changed).
   */
  @Test
  void seedExamplePipelinedMakesTheLockStepsMicroBatches() {
    LakeFixture f = seedLake("seed-pipelined");
    List<String> ticks = new java.util.ArrayList<>();
    try (FastPath fast = new FastPath(spark, f.config)) {
      fast.pipelined(
          SEED_SLICES.size(),
          i -> f.land(SEED_SLICES.get(i).toArray(String[]::new)),
          (tick, step) ->
              ticks.add(
                  tick
                      + ": bronze "
                      + step.bronze().inputRows()
                      + ", silver "
                      + step.silver().inputRows()
                      + ", gold "
                      + step.gold().stream().mapToLong(s -> s.inputRows()).sum()
                      + ", dropped "
                      + step.droppedByWatermark()));
    }

    assertThat(ticks)
        .containsExactly(
            "1: bronze 5, silver 0, gold 0, dropped 0",
            "2: bronze 1, silver 5, gold 0, dropped 0",
            "3: bronze 1, silver 1, gold 5, dropped 0",
            "4: bronze 0, silver 1, gold 1, dropped 1",
            "5: bronze 0, silver 0, gold 0, dropped 0");
    assertThat(seedGold(f)).containsExactlyElementsOf(SEED_GOLD);
    assertThat(ids(spark, f.root + "/silver/events"))
        .containsExactly("h1", "h2", "h3", "p1", "p2", "p3");
    assertThat(batches(f, "silver_events")).containsExactlyElementsOf(SEED_SILVER_BATCHES);
    assertThat(batches(f, "gold_page_5m")).containsExactlyElementsOf(SEED_GOLD_BATCHES);
  }

  /**
   * @return {@code query}'s rows of monitoring.stream_progress as "batch rows dropped watermark"
   */
  private List<String> batches(LakeFixture f, String query) {
    return spark
        .read()
        .format("delta")
        .load(f.root + "/monitoring/stream_progress")
        .filter(col("query_name").equalTo(query))
        .orderBy("batch_id")
        .selectExpr(
            "concat_ws(' ', batch_id, input_rows, rows_dropped_by_watermark, "
                + "cast(watermark as string))")
        .as(org.apache.spark.sql.Encoders.STRING())
        .collectAsList();
  }

  private static String seed(String id, String page, String hhmm, String enq, double dur) {
    return "{\"event_id\":\""
        + id
        + "\",\"event_time\":\"2024-05-14T"
        + hhmm
        + ":00Z\",\"enqueued_time\":\"2024-05-14T"
        + enq
        + "Z\",\"page\":\""
        + page
        + "\",\"value\":1,\"duration_s\":"
        + dur
        + "}";
  }

  @Test
  void c02EventExactlyAtTheWatermarkIsDroppedOneSecondLaterSurvives() {
    LakeFixture f = new LakeFixture(tmp.resolve("c02"));
    FastPath fast = new FastPath(spark, f.config);
    f.land(event("c02-a", "2024-05-14T12:20:00Z", "2024-05-14T12:20:01Z", "p", 1));
    fast.step();
    f.land(
        event("c02-b", "2024-05-14T12:10:00Z", "2024-05-14T12:20:30Z", "p", 4),
        event("c02-c", "2024-05-14T12:10:01Z", "2024-05-14T12:20:31Z", "p", 2));
    fast.step();
    assertThat(goldRows(spark, f.root + "/gold/page_5m"))
        .containsExactly("p 2024-05-14T12:10:00Z 1 2", "p 2024-05-14T12:20:00Z 1 1");
    assertThat(ids(spark, f.root + "/silver/events")).containsExactly("c02-a", "c02-c");
    assertThat(droppedRecorded(f, "silver_events")).isEqualTo(1);
  }

  @Test
  void c10FutureDatedEventStaysOutOfTheStreamSoOnTimeEventsSurvive() {
    LakeFixture f = new LakeFixture(tmp.resolve("c10"));
    FastPath fast = new FastPath(spark, f.config);
    f.land(
        event("c10-e1", "2024-05-14T12:01:00Z", "2024-05-14T12:01:01Z", "home", 1),
        event("c10-e2", "2024-05-14T12:02:00Z", "2024-05-14T12:02:01Z", "home", 2));
    fast.step();
    f.land(event("c10-e3", "2024-05-15T12:03:00Z", "2024-05-14T12:03:01Z", "home", 3));
    fast.step();
    f.land(
        event("c10-e4", "2024-05-14T12:04:00Z", "2024-05-14T12:04:01Z", "home", 4),
        event("c10-e5", "2024-05-14T12:06:00Z", "2024-05-14T12:06:01Z", "home", 5));
    fast.step();
    assertThat(goldRows(spark, f.root + "/gold/page_5m"))
        .containsExactly("home 2024-05-14T12:00:00Z 3 7", "home 2024-05-14T12:05:00Z 1 5");
    List<String> flagged =
        spark
            .read()
            .format("delta")
            .load(f.root + "/bronze/events")
            .filter("error IS NOT NULL")
            .selectExpr("concat(event_id, ' ', error)")
            .as(org.apache.spark.sql.Encoders.STRING())
            .collectAsList();
    assertThat(flagged).containsExactly("c10-e3 FUTURE_EVENT_TIME");
    assertThat(droppedRecorded(f, "silver_events")).isEqualTo(0);
  }

  @Test
  void c11EpochMillisAreReadAsMillisecondsNotYear56337() {
    LakeFixture f = new LakeFixture(tmp.resolve("c11"));
    FastPath fast = new FastPath(spark, f.config);
    f.land(
        event("c11-e1", "2024-05-14T10:01:00Z", "2024-05-14T10:01:02Z", "home", 1),
        "{\"event_id\":\"c11-e2\",\"event_time\":1715680860000,"
            + "\"enqueued_time\":\"2024-05-14T10:01:03Z\",\"page\":\"home\",\"value\":2}");
    fast.step();
    f.land(event("c11-e3", "2024-05-14T10:06:00Z", "2024-05-14T10:06:02Z", "home", 3));
    fast.step();
    assertThat(goldRows(spark, f.root + "/gold/page_5m"))
        .containsExactly("home 2024-05-14T10:00:00Z 2 3", "home 2024-05-14T10:05:00Z 1 3");
    assertThat(lastWatermark(f, "silver_events")).isEqualTo("2024-05-14T09:56:00Z");
  }

  /** Case C40: epoch numbers in s, ms, µs and ns and a 9-digit string; the fraction is cut off. */
  @Test
  void c40EpochNumbersInEveryUnitLandInTheWindowOfTheirStringForm() {
    LakeFixture f = new LakeFixture(tmp.resolve("c40"));
    FastPath fast = new FastPath(spark, f.config);
    String enq = ",\"enqueued_time\":\"2024-05-14T12:05:01Z\",\"page\":\"home\",\"value\":";
    f.land(
        "{\"event_id\":\"c40-p1\",\"event_time\":1715688299" + enq + "1}",
        "{\"event_id\":\"c40-p2\",\"event_time\":1715688299999" + enq + "2}",
        "{\"event_id\":\"c40-p3\",\"event_time\":1715688299999999" + enq + "4}",
        "{\"event_id\":\"c40-p4\",\"event_time\":1715688299999999999" + enq + "8}",
        "{\"event_id\":\"c40-p5\",\"event_time\":\"2024-05-14T12:04:59.999999999Z\"" + enq + "16}",
        "{\"event_id\":\"c40-p6\",\"event_time\":1715688300000" + enq + "32}");
    fast.step();
    f.land(event("c40-z", "2024-05-14T12:30:00Z", "2024-05-14T12:30:01Z", "other", 1));
    fast.step();
    assertThat(goldRows(spark, f.root + "/gold/page_5m"))
        .containsExactly(
            "home 2024-05-14T12:00:00Z 5 31",
            "home 2024-05-14T12:05:00Z 1 32",
            "other 2024-05-14T12:30:00Z 1 1");
  }

  @Test
  void c12NullEventTimesNeitherCountNorMoveTheWatermark() {
    LakeFixture f = new LakeFixture(tmp.resolve("c12"));
    FastPath fast = new FastPath(spark, f.config);
    f.land(
        event("c12-e1", "2024-05-14T12:01:00Z", "2024-05-14T12:01:05Z", "home", 1),
        "{\"event_id\":\"c12-e2\",\"event_time\":null,\"enqueued_time\":\"2024-05-14T12:01:06Z\","
            + "\"page\":\"home\",\"value\":2}",
        event("c12-e3", "2024-05-14T12:02:00Z", "2024-05-14T12:02:09Z", "home", 3));
    fast.step();
    f.land(
        event("c12-e4", "2024-05-14T12:03:00Z", "2024-05-14T12:03:30Z", "home", 4),
        "{\"event_id\":\"c12-e5\",\"event_time\":null,\"enqueued_time\":\"2024-05-14T12:03:06Z\","
            + "\"page\":\"home\",\"value\":5}");
    fast.step();
    assertThat(goldRows(spark, f.root + "/gold/page_5m"))
        .containsExactly("home 2024-05-14T12:00:00Z 3 8");
    assertThat(spark.read().format("delta").load(f.root + "/bronze/events").count()).isEqualTo(5);
    assertThat(
            spark
                .read()
                .format("delta")
                .load(f.root + "/bronze/events")
                .filter("error = 'MISSING_EVENT_TIME'")
                .count())
        .isEqualTo(2);
    assertThat(lastWatermark(f, "silver_events")).isEqualTo("2024-05-14T11:53:00Z");
  }

  @Test
  void duplicatesWithinTheWatermarkAreRemovedCopiesFurtherApartAreNot() {
    LakeFixture f = new LakeFixture(tmp.resolve("dups"));
    FastPath fast = new FastPath(spark, f.config);
    f.land(
        event("d1", "2024-05-14T10:01:00Z", "2024-05-14T10:01:01Z", "home", 1),
        event("d2", "2024-05-14T10:02:00Z", "2024-05-14T10:02:01Z", "home", 2),
        event("d1", "2024-05-14T10:01:00Z", "2024-05-14T10:01:05Z", "home", 1));
    fast.step();
    // A producer retry of d2 in a later micro-batch, still within the watermark: removed.
    f.land(event("d2", "2024-05-14T10:02:00Z", "2024-05-14T10:03:00Z", "home", 2));
    fast.step();
    f.land(event("d3", "2024-05-14T10:30:00Z", "2024-05-14T10:30:01Z", "home", 3));
    fast.step();
    // A copy of d1 restamped 24 minutes later: the first copy left the state with the watermark.
    f.land(event("d1", "2024-05-14T10:25:00Z", "2024-05-14T10:31:00Z", "home", 1));
    fast.step();
    assertThat(ids(spark, f.root + "/silver/events")).containsExactly("d1", "d1", "d2", "d3");
    assertThat(goldRows(spark, f.root + "/gold/page_5m"))
        .containsExactly(
            "home 2024-05-14T10:00:00Z 2 3",
            "home 2024-05-14T10:25:00Z 1 1",
            "home 2024-05-14T10:30:00Z 1 3");
    assertThat(spark.read().format("delta").load(f.root + "/bronze/events").count()).isEqualTo(6);
  }

  @Test
  void replayingTheLastGoldMicroBatchLeavesGoldUnchanged() throws Exception {
    LakeFixture f = new LakeFixture(tmp.resolve("replay"));
    FastPath fast = new FastPath(spark, f.config);
    f.land(
        event("r1", "2024-05-14T10:01:00Z", "2024-05-14T10:01:01Z", "home", 1),
        event("r2", "2024-05-14T10:06:00Z", "2024-05-14T10:06:01Z", "home", 2));
    fast.step();
    f.land(event("r3", "2024-05-14T10:02:00Z", "2024-05-14T10:07:01Z", "home", 4));
    fast.step();
    String gold = f.root + "/gold/page_5m";
    List<Row> before =
        spark.read().format("delta").load(gold).orderBy("window_start").collectAsList();
    long versionBefore = DeltaTable.forPath(spark, gold).history(1).first().getLong(0);

    // Forget that the last micro-batches were committed: the restart runs them again.
    Path commits = Path.of(f.root + "/_checkpoints/gold_page_5m/commits");
    File[] done = commits.toFile().listFiles((d, n) -> n.matches("\\d+"));
    Arrays.sort(done, Comparator.comparingLong(x -> Long.parseLong(x.getName())));
    for (File last : List.of(done[done.length - 1], done[done.length - 2])) {
      Files.delete(last.toPath());
      Files.deleteIfExists(commits.resolve("." + last.getName() + ".crc"));
    }
    GoldJob.Result again = new GoldJob(fast.context(), fast.goldConfig()).run();

    assertThat(again.summaries().get(0).inputRows()).isEqualTo(1);
    assertThat(spark.read().format("delta").load(gold).orderBy("window_start").collectAsList())
        .isEqualTo(before);
    assertThat(DeltaTable.forPath(spark, gold).history(1).first().getLong(0))
        .isEqualTo(versionBefore);
    assertThat(goldRows(spark, gold))
        .containsExactly("home 2024-05-14T10:00:00Z 2 5", "home 2024-05-14T10:05:00Z 1 2");
  }
}

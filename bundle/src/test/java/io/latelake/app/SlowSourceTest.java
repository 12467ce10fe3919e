package io.latelake.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.testing.SparkTestBase;
import io.latelake.gold.GoldConfig;
import io.latelake.gold.GoldJob;
import io.latelake.silver.SilverConfig;
import io.latelake.silver.SilverJob;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two sources in one lake, {@code slow} an hour behind {@code fast} in event time, driven in lock
 * step (each step: bronze of each source, then silver, then gold, each to the end of its input).
 * With {@code lake.sources = [fast, slow]} nothing of the slow source is dropped that is not
 * dropped when it runs alone; with {@code lake.sources = []} (one watermark) the fast source's
 * watermark drops the slow source's on-time events.
 *
 * <p>Per step (event time; enqueued = event time + 1 s for fast, + 1 h 1 s for slow; both delays 10
 * minutes, windows 5 minutes by page): 1: f1 11:00, s1 10:00; 2: f2 11:05, s2 10:05; 3: f3 11:10,
 * fl 10:50 (late for fast alone: its watermark is 10:55), s3 10:10, sl 09:50 (late for slow alone:
 * 09:55). The per-source lake also has a source {@code other} that is not listed: o0 10:20 in step
 * 1, o1 10:30 and o2 09:54 in step 3, enqueued at 11:10:01.
 *
 * <p>A fifth lake has the same sources and three slots ({@code lake.sources-slots = 3}): {@code
 * [fast, slow]} and a spare slot in steps 1 and 2, {@code other} listed into the spare slot in step
 * 3, {@code slow} removed in step 4 (f4 11:15 and s4 10:15 enqueued at 11:15:01, o3 10:40), all on
 * the same checkpoints.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SlowSourceTest extends SparkTestBase {
  @TempDir static Path tmp;

  private LockStepLake perSource;
  private LockStepLake oneWatermark;
  private LockStepLake fastAlone;
  private LockStepLake slowAlone;
  private LockStepLake slotted;
  private final List<String> slottedWatermarks = new java.util.ArrayList<>();

  private static String fast(String id, String hhmm) {
    return LakeFixture.event(
        id, "2024-05-14T" + hhmm + ":00Z", "2024-05-14T" + hhmm + ":01Z", "/f", 1);
  }

  /** A slow-source event: enqueued an hour (and a second) after its event time. */
  private static String slow(String id, String hhmm, String enqueuedHhmm) {
    return LakeFixture.event(
        id, "2024-05-14T" + hhmm + ":00Z", "2024-05-14T" + enqueuedHhmm + ":01Z", "/s", 1);
  }

  /** An event of the unlisted source, enqueued at 11:10:01. */
  private static String other(String id, String hhmm) {
    return LakeFixture.event(id, "2024-05-14T" + hhmm + ":00Z", "2024-05-14T11:10:01Z", "/o", 1);
  }

  private LockStepLake lake(String name, List<String> sources, String lakeSources) {
    return new LockStepLake(spark, tmp.resolve(name), sources, "lake.sources=" + lakeSources);
  }

  @AfterAll
  void closeTheLakes() {
    for (LockStepLake lake :
        java.util.Arrays.asList(perSource, oneWatermark, fastAlone, slowAlone, slotted)) {
      if (lake != null) {
        lake.close();
      }
    }
  }

  @BeforeAll
  void runTheFourLakes() {
    perSource = lake("per-source", List.of("fast", "slow", "other"), "[fast, slow]");
    oneWatermark = lake("one-watermark", List.of("fast", "slow"), "[]");
    fastAlone = lake("fast-alone", List.of("fast"), "[]");
    slowAlone = lake("slow-alone", List.of("slow"), "[]");
    for (LockStepLake lake : List.of(perSource, oneWatermark, fastAlone, slowAlone)) {
      lake.land("fast", fast("f1", "11:00"));
      lake.land("slow", slow("s1", "10:00", "11:00"));
      lake.land("other", other("o0", "10:20"));
      lake.step();
      lake.land("fast", fast("f2", "11:05"));
      lake.land("slow", slow("s2", "10:05", "11:05"));
      lake.step();
      lake.land("fast", fast("f3", "11:10"), fast("fl", "10:50").replace("10:50:01", "11:10:01"));
      lake.land("slow", slow("s3", "10:10", "11:10"), slow("sl", "09:50", "11:10"));
      lake.land("other", other("o1", "10:30"), other("o2", "09:54"));
      lake.step();
    }
    slotted =
        new LockStepLake(
            spark,
            tmp.resolve("slotted"),
            List.of("fast", "slow", "other"),
            "lake.sources=[fast, slow]",
            "lake.sources-slots=3");
    slotted.land("fast", fast("f1", "11:00"));
    slotted.land("slow", slow("s1", "10:00", "11:00"));
    slotted.land("other", other("o0", "10:20"));
    slotted.step();
    slottedWatermarks.add(slotted.watermark("silver_events"));
    slotted.land("fast", fast("f2", "11:05"));
    slotted.land("slow", slow("s2", "10:05", "11:05"));
    slotted.step();
    slottedWatermarks.add(slotted.watermark("silver_events"));
    slotted.land("fast", fast("f3", "11:10"), fast("fl", "10:50").replace("10:50:01", "11:10:01"));
    slotted.land("slow", slow("s3", "10:10", "11:10"), slow("sl", "09:50", "11:10"));
    slotted.land("other", other("o1", "10:30"), other("o2", "09:54"));
    slotted.step(listed(slotted, "fast", "slow", "other"));
    slottedWatermarks.add(slotted.watermark("silver_events"));
    slotted.land("fast", fast("f4", "11:15"));
    slotted.land("slow", slow("s4", "10:15", "11:15"));
    slotted.land("other", other("o3", "10:40"));
    slotted.step(listed(slotted, "fast", "other"));
    slottedWatermarks.add(slotted.watermark("silver_events"));
  }

  private static Config listed(LockStepLake lake, String... sources) {
    return lake.config.withValue(
        "lake.sources", com.typesafe.config.ConfigValueFactory.fromIterable(List.of(sources)));
  }

  @Test
  void aSourceTakesASpareSlotAndARemovedOneLeavesItsSlotOnTheSameCheckpoints() throws Exception {
    // steps 1-2 as the per-source lake: the spare slot's watermark (the largest arrival time -
    // 10 minutes: 11:00:01, then 10:55:01) never holds it. Step 3 starts at 09:55 with other
    // listed: sl and o2 dropped, as in the per-source lake, and counted for other now; the
    // watermark is then min(fast 11:00, slow 10:00, other 10:20). Step 4 without slow: s4 goes
    // through as an unlisted row and the watermark is min(fast 11:05, other 10:30, spare 11:05:01)
    assertThat(slottedWatermarks)
        .containsExactly(
            "2024-05-14T09:50:00Z",
            "2024-05-14T09:55:00Z",
            "2024-05-14T10:00:00Z",
            "2024-05-14T10:30:00Z");
    assertThat(slotted.silverIds())
        .containsExactly("f1", "f2", "f3", "f4", "fl", "o0", "o1", "o3", "s1", "s2", "s3", "s4");
    assertThat(slotted.droppedIds()).containsExactly("o2", "sl");
    assertThat(slotted.silverDropped).isEqualTo(2);
    assertThat(slotted.goldDropped).isEqualTo(0);
    assertThat(
            spark
                .read()
                .format("delta")
                .load(slotted.context.tables().streamProgress())
                .filter("query_name = 'silver_events' AND rows_dropped_by_watermark > 0")
                .select("dropped_by_source")
                .collectAsList()
                .stream()
                .map(r -> new java.util.TreeMap<>(r.<String, Long>getJavaMap(0)).toString())
                .toList())
        .containsExactly("{fast=0, other=1, slow=1}");
    // one checkpoint throughout: the 14 bronze rows read once, the 12 silver rows once
    assertThat(inputRows(slotted, "silver_events")).isEqualTo(14);
    assertThat(inputRows(slotted, "gold_page_5m")).isEqualTo(12);
    assertThat(
            spark
                .read()
                .format("delta")
                .load(slotted.context.tables().streamProgress())
                .filter("query_name = 'silver_events'")
                .select("query_id")
                .distinct()
                .count())
        .isEqualTo(1);
    assertThat(
            java.nio.file.Files.readString(
                java.nio.file.Path.of(
                    slotted.root + "/_checkpoints/silver_events/latelake-sources")))
        .isEqualTo("fast\nother\n(spare 1)");
    assertThat(slotted.gold())
        .containsExactly(
            "/f 2024-05-14T10:50:00Z 1 1",
            "/f 2024-05-14T11:00:00Z 1 1",
            "/f 2024-05-14T11:05:00Z 1 1",
            "/f 2024-05-14T11:10:00Z 1 1",
            "/f 2024-05-14T11:15:00Z 1 1",
            "/o 2024-05-14T10:20:00Z 1 1",
            "/o 2024-05-14T10:30:00Z 1 1",
            "/o 2024-05-14T10:40:00Z 1 1",
            "/s 2024-05-14T10:00:00Z 1 1",
            "/s 2024-05-14T10:05:00Z 1 1",
            "/s 2024-05-14T10:10:00Z 1 1",
            "/s 2024-05-14T10:15:00Z 1 1");
  }

  @Test
  void anotherNumberOfSlotsIsRefusedNamingTheSlotsThatKeepTheCheckpoint() {
    Config oneSlot =
        listed(slotted, "fast")
            .withValue("lake.sources-slots", com.typesafe.config.ConfigValueFactory.fromAnyRef(0));
    assertThatThrownBy(
            () -> new SilverJob(slotted.context, SilverConfig.fromConfig(oneSlot)).starts())
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Cannot start stream silver_events: lake.sources is [fast] but its checkpoint "
                + slotted.root
                + "/_checkpoints/silver_events was built with [fast, other, (spare 1)] (file"
                + " latelake-sources; none: []). Spark records one input per listed source or"
                + " spare slot, plus one, and refuses a checkpoint whose number of inputs"
                + " changed. Set lake.sources-slots = 3 to keep this checkpoint (a source takes a"
                + " spare slot; a removed one leaves its slot spare), restore lake.sources ="
                + " [fast, other] with lake.sources-slots = 3, or rebuild this stream on a new"
                + " checkpoint (move the"
                + " checkpoint aside and delete its output table, then the layers that read"
                + " it)");
    assertThatThrownBy(
            () -> SilverConfig.fromConfig(listed(slotted, "fast", "slow", "other", "extra")))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '3' for key 'lake.sources-slots': fewer slots than the 4 sources"
                + " listed in lake.sources [fast, slow, other, extra] (0: as many as are listed)");
  }

  @Test
  void eachSourceAloneDropsOnlyItsOwnLateEvent() {
    assertThat(fastAlone.silverIds()).containsExactly("f1", "f2", "f3");
    assertThat(fastAlone.droppedIds()).containsExactly("fl");
    assertThat(fastAlone.silverDropped).isEqualTo(1);
    assertThat(fastAlone.goldDropped).isEqualTo(0);
    assertThat(slowAlone.silverIds()).containsExactly("s1", "s2", "s3");
    assertThat(slowAlone.droppedIds()).containsExactly("sl");
    assertThat(slowAlone.silverDropped).isEqualTo(1);
    assertThat(slowAlone.goldDropped).isEqualTo(0);
    assertThat(slowAlone.gold())
        .containsExactly(
            "/s 2024-05-14T10:00:00Z 1 1",
            "/s 2024-05-14T10:05:00Z 1 1",
            "/s 2024-05-14T10:10:00Z 1 1");
  }

  @Test
  void perSourceWatermarksDropNothingOfTheSlowSourceThatItDoesNotDropAlone() {
    // the query's watermark is the slow source's (09:55 after step 2): of the slow source only
    // sl is dropped, as alone; the fast source's fl, late for fast alone, is kept; the unlisted
    // source's rows are judged against the same watermark: o1 kept, o2 dropped
    assertThat(perSource.silverIds())
        .containsExactly("f1", "f2", "f3", "fl", "o0", "o1", "s1", "s2", "s3");
    assertThat(perSource.droppedIds()).containsExactly("o2", "sl");
    assertThat(perSource.silverDropped).isEqualTo(2);
    assertThat(perSource.goldDropped).isEqualTo(0);
    assertThat(perSource.silverIds().stream().filter(id -> id.startsWith("s")).toList())
        .isEqualTo(slowAlone.silverIds());
    assertThat(perSource.droppedIds().stream().filter(id -> id.startsWith("s")).toList())
        .isEqualTo(slowAlone.droppedIds());
    List<String> slowGold = perSource.gold().stream().filter(r -> r.startsWith("/s ")).toList();
    assertThat(slowGold).isEqualTo(slowAlone.gold());
    assertThat(perSource.gold())
        .containsExactly(
            "/f 2024-05-14T10:50:00Z 1 1",
            "/f 2024-05-14T11:00:00Z 1 1",
            "/f 2024-05-14T11:05:00Z 1 1",
            "/f 2024-05-14T11:10:00Z 1 1",
            "/o 2024-05-14T10:20:00Z 1 1",
            "/o 2024-05-14T10:30:00Z 1 1",
            "/s 2024-05-14T10:00:00Z 1 1",
            "/s 2024-05-14T10:05:00Z 1 1",
            "/s 2024-05-14T10:10:00Z 1 1");
  }

  @Test
  void inputRowsCountEachRowOnce() {
    // silver reads the 11 bronze rows through three inputs (fast, slow, the rest), each scanning
    // every row; gold reads the 9 silver rows the same way
    assertThat(inputRows(perSource, "silver_events")).isEqualTo(11);
    assertThat(inputRows(perSource, "gold_page_5m")).isEqualTo(9);
    assertThat(inputRows(oneWatermark, "silver_events")).isEqualTo(8);
  }

  private long inputRows(LockStepLake lake, String query) {
    return spark
        .read()
        .format("delta")
        .load(lake.context.tables().streamProgress())
        .filter(org.apache.spark.sql.functions.col("query_name").equalTo(query))
        .agg(org.apache.spark.sql.functions.sum("input_rows"))
        .first()
        .getLong(0);
  }

  @Test
  void oneWatermarkDropsTheSlowSourcesOnTimeEvents() {
    // after step 1 the fast source's 11:00 sets the watermark to 10:50: every later slow event
    // is dropped, and fl (behind 10:55 in step 3)
    assertThat(oneWatermark.silverIds()).containsExactly("f1", "f2", "f3", "s1");
    assertThat(oneWatermark.droppedIds()).containsExactly("fl", "s2", "s3", "sl");
    assertThat(oneWatermark.silverDropped).isEqualTo(4);
    assertThat(oneWatermark.goldDropped).isEqualTo(0);
    assertThat(oneWatermark.gold())
        .containsExactly(
            "/f 2024-05-14T11:00:00Z 1 1",
            "/f 2024-05-14T11:05:00Z 1 1",
            "/f 2024-05-14T11:10:00Z 1 1",
            "/s 2024-05-14T10:00:00Z 1 1");
  }

  @Test
  void aCheckpointBuiltWithAnotherListIsRefused() {
    Config changed =
        oneWatermark.config.withValue(
            "lake.sources",
            com.typesafe.config.ConfigValueFactory.fromIterable(List.of("fast", "slow")));
    String checkpoint = oneWatermark.root + "/_checkpoints/silver_events";
    assertThatThrownBy(
            () -> new SilverJob(oneWatermark.context, SilverConfig.fromConfig(changed)).starts())
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Cannot start stream silver_events: lake.sources is [fast, slow] but its checkpoint "
                + checkpoint
                + " was built with [] (file latelake-sources; none: []). Spark records one input"
                + " per listed source or spare slot, plus one, and refuses a checkpoint whose"
                + " number of inputs changed. Restore lake.sources = [], or rebuild this stream on"
                + " a new checkpoint (move the checkpoint aside and delete its output table, then"
                + " the layers that read it)");
    assertThatThrownBy(
            () -> new GoldJob(oneWatermark.context, GoldConfig.fromConfig(changed)).starts())
        .isInstanceOf(LakeConfigException.class)
        .hasMessageStartingWith(
            "Cannot start stream gold_page_5m: lake.sources is [fast, slow] but its checkpoint "
                + oneWatermark.root
                + "/_checkpoints/gold_page_5m was built with [] (file latelake-sources; none: []).");
  }
}

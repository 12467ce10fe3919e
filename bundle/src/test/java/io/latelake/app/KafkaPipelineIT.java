package io.latelake.app;

import static io.latelake.app.LakeFixture.event;
import static io.latelake.app.LakeFixture.goldRows;
import static io.latelake.app.LakeFixture.ids;
import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.core.job.JobContext;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.testing.KafkaBroker;
import io.latelake.core.testing.SparkTestBase;
import io.latelake.correction.correct.CorrectJob;
import io.latelake.correction.correct.CorrectResult;
import io.latelake.correction.shared.CorrectionConfig;
import io.latelake.correction.shared.Recompute;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bronze → silver → gold from a real Kafka broker (KRaft, its own JVM on 127.0.0.1), with malformed
 * records and duplicates, across a restart; and two listed topics, one of which goes quiet.
 */
class KafkaPipelineIT extends SparkTestBase {
  @TempDir static Path tmp;

  private static KafkaBroker broker;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = KafkaBroker.start(tmp.resolve("kafka"));
    broker.createTopic("web", 2, true);
    broker.createTopic("legacy", 1, false);
    broker.createTopic("gw-a", 1, false);
    broker.createTopic("gw-b", 1, false);
    broker.createTopic("run-a", 1, false);
    broker.createTopic("run-b", 1, false);
  }

  @AfterAll
  static void stopBroker() {
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void kafkaRecordsFlowThroughEveryLayerExactlyOnce() {
    LakeFixture f =
        new LakeFixture(
            tmp.resolve("lake"),
            "lake.bronze.source=kafka",
            "lake.bronze.kafka.bootstrap-servers=\"" + broker.bootstrapServers() + "\"",
            "lake.bronze.kafka.topics=[web, legacy]");
    FastPath fast = new FastPath(spark, f.config);
    broker.produce(
        "web",
        0,
        List.of(
            event("k1", "2024-05-14T10:01:00Z", "", "/home", 1),
            event("k2", "2024-05-14T10:02:00Z", "", "/home", 2),
            "not json at all",
            event("k1", "2024-05-14T10:01:00Z", "", "/home", 1)));
    broker.produce(
        "web",
        1,
        List.of(
            event("k3", "2024-05-14T10:03:00Z", "", "/pricing", 4),
            "{\"event_time\":\"2024-05-14T10:03:00Z\",\"page\":\"/pricing\",\"value\":9}"));
    broker.produce("legacy", 0, List.of(event("k4", "2024-05-14T10:06:00Z", "", "/home", 8)));
    FastPath.Step first = fast.step();
    assertThat(first.bronze().inputRows()).isEqualTo(7);

    String bronze = f.root + "/bronze/events";
    List<String> rows =
        spark
            .read()
            .format("delta")
            .load(bronze)
            .selectExpr(
                "concat_ws(' ', source, kafka_partition, kafka_offset, timestamp_type, "
                    + "coalesce(event_id, '-'), coalesce(error, 'OK'))")
            .as(Encoders.STRING())
            .collectAsList()
            .stream()
            .sorted()
            .toList();
    assertThat(rows)
        .containsExactly(
            "legacy 0 0 0 k4 OK",
            "web 0 0 1 k1 OK",
            "web 0 1 1 k2 OK",
            "web 0 2 1 - MALFORMED",
            "web 0 3 1 k1 OK",
            "web 1 0 1 k3 OK",
            "web 1 1 1 - MISSING_EVENT_ID");
    Row payload =
        spark
            .read()
            .format("delta")
            .load(bronze)
            .filter("error = 'MALFORMED'")
            .select("payload", "enqueued_time")
            .first();
    assertThat(payload.getString(0)).isEqualTo("not json at all");
    assertThat(payload.get(1)).isNotNull();
    assertThat(ids(spark, f.root + "/silver/events")).containsExactly("k1", "k2", "k3", "k4");
    assertThat(goldRows(spark, f.root + "/gold/page_5m"))
        .containsExactly(
            "/home 2024-05-14T10:00:00Z 2 3",
            "/home 2024-05-14T10:05:00Z 1 8",
            "/pricing 2024-05-14T10:00:00Z 1 4");

    // After a stop, only new records are read; none twice.
    broker.produce("web", 1, List.of(event("k5", "2024-05-14T10:04:00Z", "", "/pricing", 16)));
    FastPath.Step second = fast.step();
    assertThat(second.bronze().inputRows()).isEqualTo(1);
    assertThat(spark.read().format("delta").load(bronze).count()).isEqualTo(8);
    assertThat(
            spark
                .read()
                .format("delta")
                .load(bronze)
                .dropDuplicates("source", "kafka_partition", "kafka_offset")
                .count())
        .isEqualTo(8);
    assertThat(goldRows(spark, f.root + "/gold/page_5m"))
        .containsExactly(
            "/home 2024-05-14T10:00:00Z 2 3",
            "/home 2024-05-14T10:05:00Z 1 8",
            "/pricing 2024-05-14T10:00:00Z 2 20");
  }

  /**
   * The two-topic timeline (after {@code QuietSourceTest}'s): per step, {topic, id, HH:mm}; the
   * records carry their producer's timestamp (CreateTime topics), an event's time + 1 s: the
   * arrival clock. Topic "B" is quiet from step 3 and returns in step 5 with a backlog (10:08,
   * 10:25, 10:44, enqueued 10:45:01).
   */
  private static final String[][][] STEPS = {
    {{"A", "a1", "10:00"}, {"B", "b1", "10:00"}},
    {{"A", "a2", "10:05"}, {"B", "b2", "10:05"}},
    {{"A", "a3", "10:30"}},
    {{"A", "a4", "10:40"}},
    {{"A", "a5", "10:45"}}
  };

  /**
   * silver's and gold's watermark after each step: B idle after 20 minutes of the arrival clock
   * holds the query at clock − 20 min − 10 min (10:00:01, 10:10:01); back, its newest event (10:44)
   * holds it below A's 10:35.
   */
  private static final List<String> WATERMARKS =
      List.of(
          "2024-05-14T09:50:00Z 2024-05-14T09:50:00Z",
          "2024-05-14T09:55:00Z 2024-05-14T09:55:00Z",
          "2024-05-14T10:00:01Z 2024-05-14T10:00:01Z",
          "2024-05-14T10:10:01Z 2024-05-14T10:10:01Z",
          "2024-05-14T10:34:00Z 2024-05-14T10:34:00Z");

  private static LakeFixture twoTopicLake(Path root, String a, String b, String... more) {
    List<String> sets =
        new ArrayList<>(
            List.of(
                "lake.bronze.source=kafka",
                "lake.bronze.kafka.bootstrap-servers=\"" + broker.bootstrapServers() + "\"",
                "lake.bronze.kafka.topics=[" + a + ", " + b + "]",
                "lake.sources=[" + a + ", " + b + "]",
                "lake.sources-idle-after=\"20 minutes\"",
                // the run child registers no tables: its Derby metastore costs a start-up of
                // about 9 s (JobCatalogTest and RunCommandIT's available-now runs cover it)
                "lake.catalog.jobs-register=false"));
    sets.addAll(List.of(more));
    return new LakeFixture(root, sets.toArray(String[]::new));
  }

  private static void produceStep(int step, String a, String b) {
    for (String[] r : STEPS[step]) {
      String topic = r[0].equals("A") ? a : b;
      broker.produceAt(
          topic,
          Instant.parse("2024-05-14T" + r[2] + ":01Z"),
          List.of(event(r[1], "2024-05-14T" + r[2] + ":00Z", "", "/" + topic, 1)));
    }
    if (step == STEPS.length - 1) {
      List<String> backlog = new ArrayList<>();
      for (String[] r : new String[][] {{"b3", "10:08"}, {"b4", "10:25"}, {"b5", "10:44"}}) {
        backlog.add(event(r[0], "2024-05-14T" + r[1] + ":00Z", "", "/" + b, 1));
      }
      broker.produceAt(b, Instant.parse("2024-05-14T10:45:01Z"), backlog);
    }
  }

  private String watermarks(LakeFixture f) {
    return LakeFixture.lastWatermark(spark, f.root, "silver_events")
        + " "
        + LakeFixture.lastWatermark(spark, f.root, "gold_page_5m");
  }

  /**
   * After the timeline: each topic's 5 records in bronze once; silver without b3, the one row
   * dropped behind the watermark; {@code correct} restates its window, and gold then equals the
   * recompute from bronze in every window.
   */
  private void checkTheReturningBacklogIsRestated(LakeFixture f, String a, String b) {
    String bronze = f.root + "/bronze/events";
    assertThat(
            spark
                .read()
                .format("delta")
                .load(bronze)
                .groupBy("source")
                .count()
                .orderBy("source")
                .selectExpr("concat(source, ' ', count)")
                .as(Encoders.STRING())
                .collectAsList())
        .containsExactly(a + " 5", b + " 5");
    assertThat(LakeFixture.ids(spark, f.root + "/silver/events"))
        .containsExactly("a1", "a2", "a3", "a4", "a5", "b1", "b2", "b4", "b5");
    assertThat(
            spark
                .read()
                .format("delta")
                .load(f.root + "/monitoring/stream_progress")
                .filter("query_name = 'silver_events'")
                .selectExpr("coalesce(sum(rows_dropped_by_watermark), 0)")
                .first()
                .getLong(0))
        .isEqualTo(1L);
    assertThat(LakeFixture.goldRows(spark, f.root + "/gold/page_5m"))
        .contains("/" + b + " 2024-05-14T10:05:00Z 1 1");
    CorrectionConfig cc = CorrectionConfig.fromConfig(f.config);
    CorrectResult corrected =
        new CorrectJob(
                JobContext.start(spark, TableRegistry.fromConfig(f.config)),
                new CorrectJob.Options(cc, cc.metrics(), Optional.of(Instant.EPOCH)))
            .run();
    assertThat(corrected.rowsChanged()).isEqualTo(1);
    List<String> recomputed = new ArrayList<>();
    for (Row r :
        Recompute.gold(spark.read().format("delta").load(bronze), cc.metrics().get(0))
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
    assertThat(LakeFixture.goldRows(spark, f.root + "/gold/page_5m"))
        .contains("/" + b + " 2024-05-14T10:05:00Z 2 2")
        .isEqualTo(recomputed);
  }

  /**
   * Two listed topics ({@code lake.sources = [gw-a, gw-b]}, idle after 20 minutes) end to end, in
   * lock step (each step: bronze, silver, gold, to the end of their input): the watermark keeps
   * moving while gw-b is quiet, its 10:08 is dropped behind 10:10:01, and {@code correct} restates
   * it.
   */
  @Test
  void twoTopicsOneQuietKeepSettlingAndTheReturningBacklogIsRestated() {
    LakeFixture f = twoTopicLake(tmp.resolve("two-topics"), "gw-a", "gw-b");
    List<String> watermarks = new ArrayList<>();
    try (FastPath fast = new FastPath(spark, f.config)) {
      for (int i = 0; i < STEPS.length; i++) {
        produceStep(i, "gw-a", "gw-b");
        fast.step();
        watermarks.add(watermarks(f));
      }
    }
    assertThat(watermarks).isEqualTo(WATERMARKS);
    checkTheReturningBacklogIsRestated(f, "gw-a", "gw-b");
  }

  /**
   * The same timeline through {@code latelake run} (one process, processing-time micro-batches
   * every second, its own JVM): each step is produced once the streams reached the previous step's
   * watermarks. While run-b is quiet the windows up to 10:10 close (4 gold rows); when it returns,
   * its 10:08 is dropped and {@code correct} restates it.
   */
  @Test
  void runWithTwoTopicsKeepsSettlingWhileOneIsQuiet() throws Exception {
    LakeFixture f =
        twoTopicLake(
            tmp.resolve("run-two-topics"),
            "run-a",
            "run-b",
            "lake.bronze.trigger-interval=\"1 second\"",
            "lake.silver.trigger-interval=\"1 second\"",
            "lake.gold.trigger-interval=\"1 second\"");
    long closedWhileQuiet = -1;
    try (StreamProcess run =
        StreamProcess.run(StreamProcess.logFile("KafkaPipelineIT-run-two-topics"), f.sets)) {
      for (int i = 0; i < STEPS.length; i++) {
        produceStep(i, "run-a", "run-b");
        String expected = WATERMARKS.get(i);
        run.waitForTables(
            "silver's and gold's watermarks " + expected,
            java.time.Duration.ofMinutes(5),
            () -> {
              try {
                return watermarks(f).equals(expected);
              } catch (Exception e) {
                return false;
              }
            });
        if (i == 3) {
          closedWhileQuiet =
              spark
                  .read()
                  .format("delta")
                  .load(f.root + "/gold/page_5m")
                  .filter("window_end <= timestamp'2024-05-14 10:10:01'")
                  .count();
        }
      }
      assertThat(run.terminate()).isEqualTo(143);
    }
    // /run-a and /run-b at 10:00 and 10:05, closed while run-b sent nothing
    assertThat(closedWhileQuiet).isEqualTo(4);
    checkTheReturningBacklogIsRestated(f, "run-a", "run-b");
  }
}

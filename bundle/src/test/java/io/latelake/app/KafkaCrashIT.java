package io.latelake.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.bronze.BronzeMain;
import io.latelake.core.streaming.Checkpoints;
import io.latelake.core.testing.KafkaBroker;
import io.latelake.core.testing.SparkTestBase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Streams from a real Kafka broker, killed with {@code kill -9} and restarted on the same
 * checkpoints, once per kill; then stopped with SIGTERM while idle. Each way users start a Kafka
 * stream: {@code latelake run} (three queries) and {@code BronzeMain} alone (one query, the
 * spark-submit entry of {@code latelake bronze}). Each kill comes at a random (seeded) moment, then
 * as soon as bronze's checkpoint holds a planned micro-batch that is not committed, so that the
 * restart replays it and meets the Kafka connector's failure after the replay (apache/spark issue
 * 55236), which the process must survive by itself: no restart may need a second try. Bronze must
 * hold every record exactly once, silver and gold must equal a recomputation from bronze, and
 * {@code monitoring.stream_progress} one row per (query, micro-batch), a replayed micro-batch's row
 * marked {@code recovery = 'kafka-metrics-npe'}. The {@code run} test has the streams' metrics on
 * ({@code lake.metrics.streams}), so their observations go through every kill and replay too, and
 * lists its topic in {@code lake.sources} with a spare slot ({@code lake.sources-slots = 2}), so
 * silver and gold run their per-source inputs (idle markers, drop observations) through them.
 *
 * <p>{@code scripts/chaos.sh} runs the same scenario bigger through the system properties {@code
 * latelake.chaos.records}, {@code latelake.chaos.kills} and {@code latelake.chaos.seed}; the
 * figures are printed and written to {@code target/chaos-figures.txt}.
 */
class KafkaCrashIT extends SparkTestBase {
  private static final int RECORDS = Integer.getInteger("latelake.chaos.records", 1000);
  private static final int KILLS = Integer.getInteger("latelake.chaos.kills", 2);
  private static final int BRONZE_RECORDS = 2000;
  private static final int BRONZE_KILLS = 2;
  private static final long SEED = Long.getLong("latelake.chaos.seed", 20261130L);
  private static final Duration BOUND = Duration.ofMinutes(10);
  private static final int PRODUCE_CHUNK = 5000;
  private static final Instant T0 = Instant.parse("2024-05-14T10:00:00Z");

  @TempDir static Path tmp;

  private static KafkaBroker broker;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = KafkaBroker.start(tmp.resolve("kafka"));
    broker.createTopic("events", 2, true);
    broker.createTopic("bars", 3, true);
  }

  @AfterAll
  static void stopBroker() {
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void killedAndRestartedRunKeepsEveryRecordOnceAndEveryMicroBatchOnce() throws Exception {
    Path root = tmp.resolve("lake");
    // Every 10th record repeats the id of the record 5 before it: silver removes these copies.
    List<String> p0 = new ArrayList<>();
    List<String> p1 = new ArrayList<>();
    for (int i = 0; i < RECORDS; i++) {
      int id = i % 10 == 9 ? i - 5 : i;
      String e =
          LakeFixture.event(
              "e" + id, T0.plusSeconds(id % 600).toString(), "", "/p" + (id % 3), id % 7);
      (i % 2 == 0 ? p0 : p1).add(e);
    }
    // In chunks: the test producer's delivery timeout (30 s) runs from send(), and 100,000
    // records queued at once expire behind each other on a loaded machine (chaos.sh).
    for (int from = 0; from < p0.size(); from += PRODUCE_CHUNK) {
      broker.produce("events", 0, p0.subList(from, Math.min(p0.size(), from + PRODUCE_CHUNK)));
    }
    for (int from = 0; from < p1.size(); from += PRODUCE_CHUNK) {
      broker.produce("events", 1, p1.subList(from, Math.min(p1.size(), from + PRODUCE_CHUNK)));
    }
    long distinctIds = RECORDS - RECORDS / 10;
    List<String> sets =
        List.of(
            "lake.root=\"" + root + "\"",
            "lake.spark.shuffle-partitions=2",
            // no Derby metastore in every restarted child (about 9 s of each start): the catalog
            // is covered by JobCatalogTest and RunCommandIT's available-now runs
            "lake.catalog.jobs-register=false",
            "lake.bronze.source=kafka",
            "lake.bronze.kafka.bootstrap-servers=\"" + broker.bootstrapServers() + "\"",
            "lake.bronze.kafka.topics=[events]",
            // at least 4 bronze micro-batches per kill: a restart that finds every record read
            // has no micro-batch to be killed in (chaos.sh's 200,000 records and 20 kills ran
            // out of records at the 13th restart with 8,000 a micro-batch)
            "lake.bronze.kafka.max-offsets-per-trigger="
                + Math.max(100, RECORDS / (4 * Math.max(1, KILLS))),
            "lake.bronze.trigger-interval=\"1 second\"",
            "lake.silver.trigger-interval=\"1 second\"",
            "lake.gold.trigger-interval=\"1 second\"",
            "lake.event.source-name=web",
            "lake.event.fields=[{name=page, type=string}, {name=value, type=long}]",
            "lake.silver.watermark-delay=\"10 minutes\"",
            "lake.gold.watermark-delay=\"10 minutes\"",
            // the streams' metrics on: their observations ride through every kill and replay
            "lake.metrics.streams=true",
            // the topic watermarked on its own beside a spare slot: silver's and gold's per-source
            // inputs, idle markers and drop observations ride through every kill too
            "lake.sources=[events]",
            "lake.sources-slots=2",
            "lake.gold.metrics.page_5m={window=\"5 minutes\", group-by=[page], measures=["
                + "{name=events, function=count}, {name=value_sum, function=sum, column=value}]}");

    Kills k =
        killAndRestart(
            RunMain.class, "KafkaCrashIT-run", root, "bronze_web", sets, KILLS, new Random(SEED));
    List<Path> logs = new ArrayList<>(k.logs());
    Path last = StreamProcess.logFile("KafkaCrashIT-run-" + logs.size());
    logs.add(last);
    String bronze = root + "/bronze/events";
    String gold = root + "/gold/page_5m";
    int exit;
    try (StreamProcess run = StreamProcess.run(last, sets)) {
      run.waitForTables(
          "all records in gold",
          BOUND,
          () ->
              DeltaTablesProbe.count(spark, bronze) == RECORDS
                  && DeltaTablesProbe.sum(spark, gold, "events") == distinctIds);
      Thread.sleep(3000);
      exit = run.terminate();
    }

    Row b = rowsAndOffsets(bronze);
    long lost = RECORDS - b.getLong(1);
    long doubled = b.getLong(0) - b.getLong(1);
    List<String> recovered =
        spark
            .read()
            .format("delta")
            .load(root + "/monitoring/stream_progress")
            .filter("recovery IS NOT NULL")
            .selectExpr("concat(query_name, ' ', recovery)")
            .as(Encoders.STRING())
            .collectAsList();
    String figures =
        String.format(
            "records %d, kills %d, lost %d, doubled %d, restarts that "
                + "needed a second try %d, recovered progress rows %d %s, exit on SIGTERM %d%n",
            RECORDS, k.kills(), lost, doubled, k.secondTries(), recovered.size(), recovered, exit);
    System.out.print(figures);
    Files.writeString(Path.of("target", "chaos-figures.txt"), figures, StandardCharsets.UTF_8);

    assertThat(k.secondTries()).isZero();
    assertThat(k.midBatch()).isPositive();
    assertThat(recovered.stream().filter(r -> r.endsWith(" kafka-metrics-npe")).count())
        .isEqualTo(k.midBatch());
    assertThat(exit).isEqualTo(143);
    assertThat(b.getLong(0)).isEqualTo(RECORDS);
    assertThat(b.getLong(1)).isEqualTo(RECORDS);
    for (Path log : logs) {
      assertThat(Files.readString(log)).as(log.toString()).doesNotContain(" ERROR ");
    }
    assertThat(Files.readString(last))
        .contains("Stopped [bronze_web, silver_events, gold_page_5m]");

    // silver and gold = recomputation from bronze (exact dedup on event_id)
    spark
        .read()
        .format("delta")
        .load(bronze)
        .filter("error IS NULL")
        .createOrReplaceTempView("crash_bronze");
    assertThat(LakeFixture.ids(spark, root + "/silver/events"))
        .isEqualTo(
            spark
                .sql("SELECT DISTINCT event_id FROM crash_bronze ORDER BY event_id")
                .as(Encoders.STRING())
                .collectAsList());
    assertThat(LakeFixture.ids(spark, root + "/silver/events")).hasSize((int) distinctIds);
    List<String> recomputed = new ArrayList<>();
    for (Row r :
        spark
            .sql(
                "SELECT page, window(event_time, '5 minutes').start AS ws, count(*), "
                    + "sum(value) FROM (SELECT DISTINCT event_id, event_time, page, value FROM crash_bronze) "
                    + "GROUP BY page, ws")
            .collectAsList()) {
      recomputed.add(
          r.getString(0) + " " + r.getTimestamp(1).toInstant() + " " + r.get(2) + " " + r.get(3));
    }
    recomputed.sort(null);
    assertThat(LakeFixture.goldRows(spark, gold)).isEqualTo(recomputed).hasSize(6);

    ProgressAssert.exactlyOncePerBatch(
        spark, root, List.of("bronze_web", "silver_events", "gold_page_5m"));
  }

  @Test
  void bronzeAloneSurvivesTheConnectorFailureAfterEveryKill() throws Exception {
    Path root = tmp.resolve("bronze-lake");
    for (int p = 0; p < 3; p++) {
      List<String> records = new ArrayList<>();
      for (int i = p; i < BRONZE_RECORDS; i += 3) {
        records.add(
            LakeFixture.event("b" + i, T0.plusSeconds(i % 600).toString(), "", "/p" + p, i % 7));
      }
      broker.produce("bars", p, records);
    }
    List<String> sets =
        List.of(
            "lake.root=\"" + root + "\"",
            "lake.spark.shuffle-partitions=2",
            // no Derby metastore in every restarted child (about 9 s of each start): the catalog
            // is covered by JobCatalogTest and RunCommandIT's available-now runs
            "lake.catalog.jobs-register=false",
            "lake.bronze.source=kafka",
            "lake.bronze.kafka.bootstrap-servers=\"" + broker.bootstrapServers() + "\"",
            "lake.bronze.kafka.topics=[bars]",
            "lake.bronze.kafka.max-offsets-per-trigger=100",
            "lake.bronze.trigger=processing-time",
            "lake.bronze.trigger-interval=\"500 milliseconds\"",
            "lake.event.source-name=bars",
            "lake.event.fields=[{name=page, type=string}, {name=value, type=long}]");
    Kills k =
        killAndRestart(
            BronzeMain.class,
            "KafkaCrashIT-bronze",
            root,
            "bronze_bars",
            sets,
            BRONZE_KILLS,
            new Random(SEED));
    String bronze = root + "/bronze/events";
    Path last = StreamProcess.logFile("KafkaCrashIT-bronze-" + k.logs().size());
    int exit;
    try (StreamProcess run = StreamProcess.start(BronzeMain.class, last, sets)) {
      run.waitForTables(
          "all records in bronze",
          BOUND,
          () -> DeltaTablesProbe.count(spark, bronze) == BRONZE_RECORDS);
      exit = run.terminate();
    }

    Row b = rowsAndOffsets(bronze);
    List<String> recovered =
        spark
            .read()
            .format("delta")
            .load(root + "/monitoring/stream_progress")
            .filter("recovery IS NOT NULL")
            .selectExpr("recovery")
            .as(Encoders.STRING())
            .collectAsList();
    System.out.printf(
        "bronze alone: records %d, kills %d (%d during a micro-batch), rows %d, distinct "
            + "offsets %d, restarts that needed a second try %d, recovered progress rows %s, "
            + "exit on SIGTERM %d%n",
        BRONZE_RECORDS,
        k.kills(),
        k.midBatch(),
        b.getLong(0),
        b.getLong(1),
        k.secondTries(),
        recovered,
        exit);

    assertThat(k.secondTries()).isZero();
    assertThat(k.kills()).isEqualTo(BRONZE_KILLS);
    assertThat(k.midBatch()).isPositive();
    assertThat(recovered.stream().filter("kafka-metrics-npe"::equals).count())
        .isEqualTo(k.midBatch());
    assertThat(exit).isEqualTo(143);
    assertThat(b.getLong(0)).isEqualTo(BRONZE_RECORDS);
    assertThat(b.getLong(1)).isEqualTo(BRONZE_RECORDS);
    for (Path log : k.logs()) {
      assertThat(Files.readString(log)).as(log.toString()).doesNotContain(" ERROR ");
    }
    assertThat(Files.readString(last)).doesNotContain(" ERROR ").contains("Stopped [bronze_bars]");
    ProgressAssert.exactlyOncePerBatch(spark, root, List.of("bronze_bars"));
  }

  /**
   * What a kill loop did.
   *
   * @param kills processes killed
   * @param midBatch kills that found the watched checkpoint with a planned, uncommitted micro-batch
   *     (each restart replays it)
   * @param secondTries processes that exited by themselves before they could be killed
   * @param logs the processes' logs, in order
   */
  private record Kills(int kills, int midBatch, int secondTries, List<Path> logs) {}

  /**
   * Starts {@code main} on the same lake until it was killed {@code kills} times. Each process is
   * killed after {@code query}'s first micro-batch, a random pause of up to 2 s, and then as soon
   * as {@code query}'s checkpoint holds a planned micro-batch that is not committed (or after 30
   * s).
   */
  private Kills killAndRestart(
      Class<?> main, String name, Path root, String query, List<String> sets, int kills, Random r)
      throws Exception {
    Checkpoints checkpoint = new Checkpoints(spark, root + "/_checkpoints/" + query);
    List<Path> logs = new ArrayList<>();
    int killed = 0;
    int midBatch = 0;
    int secondTries = 0;
    while (killed < kills && secondTries <= kills) {
      Path log = StreamProcess.logFile(name + "-" + logs.size());
      logs.add(log);
      try (StreamProcess run = StreamProcess.start(main, log, sets)) {
        long deadline = System.nanoTime() + BOUND.toNanos();
        // The watched query's own first micro-batch: in `run`, silver or gold may report one while
        // bronze still replays the micro-batch the last kill interrupted, and a kill then would
        // interrupt that same micro-batch twice.
        while (run.isAlive() && !run.logText().contains("[" + query + "] micro-batch ")) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException("no micro-batch within " + BOUND + ":\n" + run.tail());
          }
          Thread.sleep(100);
        }
        Thread.sleep(r.nextInt(2000));
        long planDeadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (run.isAlive() && !planned(checkpoint) && System.nanoTime() < planDeadline) {
          Thread.sleep(5);
        }
        if (!run.isAlive()) {
          // It stopped by itself: a restart that needed a second try.
          secondTries++;
          continue;
        }
        run.kill();
        killed++;
        if (planned(checkpoint)) {
          midBatch++;
        }
      }
    }
    return new Kills(killed, midBatch, secondTries, logs);
  }

  /**
   * @return bronze's row count and its count of distinct (source, Kafka partition, offset)
   */
  private Row rowsAndOffsets(String bronze) {
    return spark
        .read()
        .format("delta")
        .load(bronze)
        .selectExpr("count(*)", "count(DISTINCT source, kafka_partition, kafka_offset)")
        .first();
  }

  private static boolean planned(Checkpoints checkpoint) {
    var planned = checkpoint.lastPlanned();
    var committed = checkpoint.lastCommitted();
    return planned.isPresent()
        && (committed.isEmpty() || committed.getAsLong() < planned.getAsLong());
  }
}

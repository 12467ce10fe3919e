package io.latelake.bench;

import com.typesafe.config.Config;
import io.latelake.bronze.BronzeConfig;
import io.latelake.bronze.BronzeJob;
import io.latelake.core.job.JobContext;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.TableRegistry;
import io.latelake.gold.GoldConfig;
import io.latelake.gold.GoldJob;
import io.latelake.silver.SilverConfig;
import io.latelake.silver.SilverJob;
import java.nio.file.Path;
import java.util.Set;
import org.apache.spark.sql.SparkSession;

/**
 * One repeat of the {@link Bench} in a fresh lake: the data replayed in lock step, slice by slice,
 * latelake's bronze, silver and gold each followed by the hand-written references reading the same
 * input; then, on the same lake, the publish runs over larger gold tables ({@link PublishBench}),
 * the correction group ({@link CorrectionBench}) and the profile group ({@link ProfileBench}). Each
 * pair is added to the run's {@link Recorded}, times in wall-clock seconds.
 */
final class BenchRepeat {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(BenchRepeat.class);

  private final SparkSession spark;
  private final Config base;
  private final SyntheticEvents data;
  private final Set<String> only;
  private final Recorded recorded;
  private final boolean warmUp;
  private final int historyDays;

  /**
   * @param base effective config with the phone data's schema and metric
   * @param only groups to run (empty: all)
   * @param warmUp true in the untimed warm-up, which leaves out the 4x-table runs and the history
   * @param historyDays the correction group's history days; 0 leaves them out
   */
  BenchRepeat(
      SparkSession spark,
      Config base,
      SyntheticEvents data,
      Set<String> only,
      Recorded recorded,
      boolean warmUp,
      int historyDays) {
    this.spark = spark;
    this.base = base;
    this.data = data;
    this.only = only;
    this.recorded = recorded;
    this.warmUp = warmUp;
    this.historyDays = historyDays;
  }

  private boolean on(String group) {
    return only.isEmpty() || only.contains(group);
  }

  /**
   * @param root the repeat's folder (created): the lock-step lake, its landing folder, the
   *     references' tables and the group lakes
   * @param r the repeat's index, from 0
   */
  void run(Path root, int r) {
    Path landing = root.resolve("landing");
    String ref = root.resolve("reference").toString();
    Config cfg = Bench.lakeConfig(base, root.resolve("lake"), landing);
    BronzeConfig bc = BronzeConfig.fromConfig(cfg);
    SilverConfig sc = SilverConfig.fromConfig(cfg);
    GoldConfig gc = GoldConfig.fromConfig(cfg);
    MetricSpec metric = gc.metrics().get(0);
    TableRegistry t = TableRegistry.fromConfig(cfg);
    // silver again on the RocksDB state store: its own lake, reading the same bronze table
    TableRegistry rocks = on("dedup") ? DedupState.rocksDbLake(root, t) : null;
    DedupState state = new DedupState(spark, data);
    double bronze = 0;
    double silver = 0;
    double silverRocksDb = 0;
    double gold = 0;
    double json = 0;
    double bare = 0;
    double wmOnly = 0;
    double dedupOnly = 0;
    double append = 0;
    double mergeOnly = 0;
    double oneQuery = 0;
    for (int i = 0; i < data.sliceCount(); i++) {
      int slice = i;
      data.writeSlice(i, landing);
      bronze +=
          Bench.time("bronze", slice, () -> new BronzeJob(JobContext.start(spark, t), bc).run());
      if (on("ingest")) {
        json +=
            Bench.time(
                "from_json",
                slice,
                () ->
                    Baselines.ingestFromJson(
                        spark, landing.toString(), ref + "/json", ref + "/_checkpoints/json"));
        bare +=
            Bench.time(
                "bare-copy",
                slice,
                () ->
                    Baselines.ingestBareCopy(
                        spark, landing.toString(), ref + "/bare", ref + "/_checkpoints/bare"));
      }
      silver +=
          Bench.time("silver", slice, () -> new SilverJob(JobContext.start(spark, t), sc).run());
      if (on("dedup")) {
        silverRocksDb +=
            state.withStateStore(
                DedupState.ROCKSDB_STATE_STORE,
                () ->
                    Bench.time(
                        "silver-rocksdb",
                        slice,
                        () -> new SilverJob(JobContext.start(spark, rocks), sc).run()));
        wmOnly +=
            Bench.time(
                "watermark-only",
                slice,
                () ->
                    Baselines.watermarkOnly(
                        spark,
                        t.bronzeEvents(),
                        ref + "/silver",
                        ref + "/_checkpoints/silver",
                        sc.watermarkDelay()));
        dedupOnly +=
            Bench.time(
                "dedup-only",
                slice,
                () ->
                    Baselines.dedupOnly(
                        spark,
                        t.bronzeEvents(),
                        ref + "/dedup-only",
                        ref + "/_checkpoints/dedup-only",
                        sc.watermarkDelay()));
      }
      gold += Bench.time("gold", slice, () -> new GoldJob(JobContext.start(spark, t), gc).run());
      if (on("publish")) {
        append +=
            Bench.time(
                "append",
                slice,
                () ->
                    Baselines.aggregateSilver(
                        spark,
                        t.silverEvents(),
                        ref + "/gold-append",
                        ref + "/_checkpoints/gold-append",
                        gc.watermarkDelay(),
                        metric.window(),
                        Baselines.Publish.APPEND));
        mergeOnly +=
            Bench.time(
                "merge-only",
                slice,
                () ->
                    Baselines.aggregateSilver(
                        spark,
                        t.silverEvents(),
                        ref + "/gold-merge",
                        ref + "/_checkpoints/gold-merge",
                        gc.watermarkDelay(),
                        metric.window(),
                        Baselines.Publish.MERGE));
      }
      if (on("fast-path")) {
        oneQuery +=
            Bench.time(
                "one-query",
                slice,
                () ->
                    Baselines.oneQuery(
                        spark,
                        landing.toString(),
                        ref + "/one-query",
                        ref + "/_checkpoints/one-query",
                        gc.watermarkDelay(),
                        metric.window()));
      }
    }
    if (on("ingest")) {
      record("ingest-vs-from-json", bronze, json);
      record("ingest-vs-bare-copy", bronze, bare);
    }
    if (on("dedup")) {
      // The bound's output and silver on RocksDB checked, not only timed: the same rows as silver
      long differences =
          HistoryBench.differences(dedupRows(t.silverEvents()), dedupRows(ref + "/dedup-only"))
              + HistoryBench.differences(
                  dedupRows(t.silverEvents()), dedupRows(rocks.silverEvents()));
      if (differences > 0) {
        recorded.fail("dedup");
        LOG.warn(
            "silver, silver on RocksDB and the hand-written dedup differ in {} rows", differences);
      }
      record("dedup", silver, wmOnly);
      record("dedup-bound", dedupOnly, wmOnly);
      record("dedup-state-rows", state.silverStateRows(t), state.stateBound(sc.watermarkDelay()));
      record("dedup-rocksdb", silverRocksDb, wmOnly);
      record(
          "dedup-rocksdb-state-rows",
          state.silverStateRows(rocks),
          state.stateBound(sc.watermarkDelay()));
    }
    if (on("publish")) {
      record("publish", gold, append);
      // The least MERGE's output checked, not only timed: gold's rows, without gold's own columns
      String[] cols = {"window_start", "window_end", "device_id", "events", "bytes"};
      long mergeDifferences =
          HistoryBench.differences(
              spark.read().format("delta").load(t.gold(metric.name())).selectExpr(cols),
              spark.read().format("delta").load(ref + "/gold-merge").selectExpr(cols));
      if (mergeDifferences > 0) {
        recorded.fail("publish-bound");
        LOG.warn("gold and the hand-written MERGE differ in {} rows", mergeDifferences);
      }
      record("publish-bound", mergeOnly, append);
      // The warm-up leaves out the 4x table: it runs gold's code once more on other data.
      PublishBench large = new PublishBench(spark, base, data, recorded);
      record("publish-4x-table", warmUp ? 0 : large.largeGold(root, gc, t, r, false), gold);
      record("publish-4x-in-range", warmUp ? 0 : large.largeGold(root, gc, t, r, true), gold);
    }
    if (on("fast-path")) {
      record("fast-path", bronze + silver + gold, oneQuery);
      if (on("ingest") && on("dedup") && on("publish")) {
        // three minimal hand-written stages through two Delta tables, as the design requires
        record("fast-path-bound", json + dedupOnly + append, oneQuery);
        // the same with gold's least MERGE, as the design publishes, in place of the append
        record("fast-path-merge-bound", json + dedupOnly + mergeOnly, oneQuery);
      }
    }
    ProfileBench profiles = on("profile") ? new ProfileBench(spark, data, recorded) : null;
    if (on("correction")) {
      new CorrectionBench(spark, data, recorded, warmUp ? 0 : historyDays, profiles)
          .run(cfg, landing, t, bc, sc, gc, metric, ref);
    }
    if (profiles != null) {
      profiles.run(cfg, t);
    }
  }

  /**
   * The columns silver and the hand-written dedup streams share that every copy of an event has, of
   * the table at {@code path} (not the enqueued time: which copy a micro-batch keeps is the dedup's
   * choice).
   */
  private org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> dedupRows(String path) {
    return spark
        .read()
        .format("delta")
        .load(path)
        .select("event_id", "event_time", "device_id", "http_content_length");
  }

  private void record(String figure, double o, double r) {
    recorded.record(figure, o, r);
  }
}

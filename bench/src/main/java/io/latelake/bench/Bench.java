package io.latelake.bench;

import static org.apache.spark.sql.functions.col;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import io.latelake.bronze.BronzeConfig;
import io.latelake.bronze.BronzeJob;
import io.latelake.core.job.JobContext;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.time.DayRange;
import io.latelake.gold.GoldConfig;
import io.latelake.gold.GoldJob;
import io.latelake.profiler.LatenessStats;
import io.latelake.profiler.ProfileJob;
import io.latelake.profiler.ProfilerConfig;
import io.latelake.silver.SilverConfig;
import io.latelake.silver.SilverJob;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the bench's pairs on one set of synthetic events, each repeat in a fresh lake, and returns
 * one {@link Figure} per row of the table. Times are wall-clock seconds of the run (stream start to
 * stop, or batch job), data generation and preparation excluded.
 *
 * <p>Each repeat replays the data in lock step, slice by slice (one micro-batch each, as the demo
 * does): per slice, latelake's bronze, silver and gold run, and right after each of them the
 * hand-written reference reading the same input. Then, on the same lake: gold over a 4× larger gold
 * table, {@code correct} after a 1% late batch against a full recompute, and {@code profile}
 * against one plain scan. Scale-out runs the lock-step fast path in a child JVM per master ({@code
 * local[2]}, then {@code local[1]}).
 */
public final class Bench {
  private static final Logger LOG = LoggerFactory.getLogger(Bench.class);

  /** The groups {@code --only} accepts. */
  public static final List<String> GROUPS =
      List.of("ingest", "dedup", "publish", "fast-path", "correction", "profile", "scale-out");

  /** Spark's default state store (Spark 4.1): versioned maps in memory, snapshots and deltas. */
  static final String HDFS_STATE_STORE =
      "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider";

  /** Spark's RocksDB state store: state in RocksDB on local disk, changelog checkpoints. */
  static final String ROCKSDB_STATE_STORE =
      "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider";

  private static final String STATE_STORE_KEY = "spark.sql.streaming.stateStore.providerClass";

  /**
   * Starts one child JVM for the scale-out figure on a Spark master; it runs the untimed warm-up
   * once, then the timed lock step once per repeat, each in a fresh lake.
   */
  public interface ChildRunner {
    /**
     * @return each repeat's run, in order ({@code repeats} values)
     */
    List<ChildRun> run(String master, int repeats);
  }

  /**
   * One timed lock step of a scale-out child.
   *
   * @param seconds its wall-clock seconds
   * @param taskSeconds the summed durations of the Spark tasks it ran (executor side); the rest of
   *     the wall-clock time is driver-side work (planning, Delta log and commits, scheduling),
   *     which a second core does not split
   */
  public record ChildRun(double seconds, double taskSeconds) {}

  private final SparkSession spark;
  private final Config base;
  private final SyntheticEvents data;
  private final int repeats;
  private final Set<String> only;
  private final Path work;
  private final ChildRunner child;
  private boolean warmUp;
  private final Recorded recorded = new Recorded();
  private int historyDays;

  /**
   * @param base effective config with the phone data's schema and metric
   * @param only groups to run (empty: all)
   * @param work folder for the lakes (created)
   */
  public Bench(
      SparkSession spark,
      Config base,
      SyntheticEvents data,
      int repeats,
      Set<String> only,
      Path work,
      ChildRunner child) {
    this.spark = spark;
    this.base = base;
    this.data = data;
    this.repeats = repeats;
    this.only = only;
    this.work = work;
    this.child = child;
  }

  /**
   * Adds the figures of {@link HistoryBench} to the correction group: {@code correct} over {@code
   * days} and {@code 4 × days} days of bronze history after a contiguous late batch.
   *
   * @param days days of history; 0 leaves the figures out
   * @return this bench
   */
  public Bench historyDays(int days) {
    this.historyDays = days;
    return this;
  }

  /** Lock-step configuration for a lake under {@code root} reading {@code landing}. */
  static Config lakeConfig(Config base, Path root, Path landing) {
    return base.withValue("lake.root", ConfigValueFactory.fromAnyRef(root.toString()))
        .withValue("lake.bronze.source", ConfigValueFactory.fromAnyRef("files"))
        .withValue("lake.bronze.files.path", ConfigValueFactory.fromAnyRef(landing.toString()))
        .withValue("lake.bronze.trigger", ConfigValueFactory.fromAnyRef("available-now"))
        .withValue("lake.silver.trigger", ConfigValueFactory.fromAnyRef("available-now"))
        .withValue("lake.gold.trigger", ConfigValueFactory.fromAnyRef("available-now"));
  }

  private boolean on(String group) {
    return only.isEmpty() || only.contains(group);
  }

  /**
   * Runs every selected pair once on a small data set in its own lake, untimed, so that what any
   * first run in a fresh JVM pays (class loading, JIT compilation, Spark's and Delta's first jobs)
   * is not charged to whichever run comes first in the measured repeats. The scale-out children are
   * separate JVMs, so that group is left out.
   *
   * @param small the warm-up data
   * @param only groups to run (empty: all)
   * @param work folder for the warm-up lake (created)
   * @return the warm-up's wall-clock seconds
   */
  public static double warmUp(
      SparkSession spark, Config base, SyntheticEvents small, Set<String> only, Path work) {
    Set<String> groups = new HashSet<>(only.isEmpty() ? GROUPS : only);
    groups.remove("scale-out");
    if (groups.isEmpty()) {
      return 0;
    }
    LOG.info("bench warm-up: {} events, not timed", small.records());
    Bench b =
        new Bench(
            spark,
            base,
            small,
            1,
            groups,
            work,
            (master, r) -> {
              throw new IllegalStateException("no scale-out in the warm-up");
            });
    b.warmUp = true;
    return time(() -> b.repeat(0));
  }

  /**
   * @return the figures, in table order
   */
  public List<Figure> run() {
    for (int r = 0; r < repeats; r++) {
      LOG.info("bench repeat {}/{}", r + 1, repeats);
      repeat(r);
    }
    if (on("scale-out")) {
      // One JVM per master for all repeats: a JVM's start and warm-up (about 25 s each) are
      // paid twice, not twice per repeat. Repeat r of one is paired with repeat r of the other.
      List<ChildRun> two = child.run("local[2]", repeats);
      List<ChildRun> one = child.run("local[1]", repeats);
      for (int r = 0; r < repeats; r++) {
        record("scale-out", two.get(r).seconds(), one.get(r).seconds());
        // Amdahl: on local[1], the tasks' share p of the time is what two cores can split; the
        // best local[2] time is (1 - p) + p / 2 of it.
        ChildRun single = one.get(r);
        double serial = Math.max(0, single.seconds() - single.taskSeconds());
        record(
            "scale-out-bound",
            serial + Math.min(single.taskSeconds(), single.seconds()) / 2,
            single.seconds());
      }
    }
    return recorded.figures(historyDays);
  }

  private void repeat(int r) {
    Path root = work.resolve("repeat-" + (r + 1));
    Path landing = root.resolve("landing");
    String ref = root.resolve("reference").toString();
    Config cfg = lakeConfig(base, root.resolve("lake"), landing);
    BronzeConfig bc = BronzeConfig.fromConfig(cfg);
    SilverConfig sc = SilverConfig.fromConfig(cfg);
    GoldConfig gc = GoldConfig.fromConfig(cfg);
    MetricSpec metric = gc.metrics().get(0);
    TableRegistry t = TableRegistry.fromConfig(cfg);
    // silver again on the RocksDB state store: its own lake, reading the same bronze table
    TableRegistry rocks = on("dedup") ? rocksDbLake(root, t) : null;
    double bronze = 0;
    double silver = 0;
    double silverRocksDb = 0;
    double gold = 0;
    double json = 0;
    double bare = 0;
    double wmOnly = 0;
    double dedupOnly = 0;
    double append = 0;
    double oneQuery = 0;
    for (int i = 0; i < data.sliceCount(); i++) {
      int slice = i;
      data.writeSlice(i, landing);
      bronze += time("bronze", slice, () -> new BronzeJob(JobContext.start(spark, t), bc).run());
      if (on("ingest")) {
        json +=
            time(
                "from_json",
                slice,
                () ->
                    Baselines.ingestFromJson(
                        spark, landing.toString(), ref + "/json", ref + "/_checkpoints/json"));
        bare +=
            time(
                "bare-copy",
                slice,
                () ->
                    Baselines.ingestBareCopy(
                        spark, landing.toString(), ref + "/bare", ref + "/_checkpoints/bare"));
      }
      silver += time("silver", slice, () -> new SilverJob(JobContext.start(spark, t), sc).run());
      if (on("dedup")) {
        silverRocksDb +=
            withStateStore(
                ROCKSDB_STATE_STORE,
                () ->
                    time(
                        "silver-rocksdb",
                        slice,
                        () -> new SilverJob(JobContext.start(spark, rocks), sc).run()));
        wmOnly +=
            time(
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
            time(
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
      gold += time("gold", slice, () -> new GoldJob(JobContext.start(spark, t), gc).run());
      if (on("publish")) {
        append +=
            time(
                "append",
                slice,
                () ->
                    Baselines.appendAggregate(
                        spark,
                        t.silverEvents(),
                        ref + "/gold-append",
                        ref + "/_checkpoints/gold-append",
                        gc.watermarkDelay(),
                        metric.window()));
      }
      if (on("fast-path")) {
        oneQuery +=
            time(
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
      record("dedup", silver, wmOnly);
      record("dedup-bound", dedupOnly, wmOnly);
      record("dedup-state-rows", silverStateRows(t), stateBound(sc.watermarkDelay()));
      record("dedup-rocksdb", silverRocksDb, wmOnly);
      record("dedup-rocksdb-state-rows", silverStateRows(rocks), stateBound(sc.watermarkDelay()));
    }
    if (on("publish")) {
      record("publish", gold, append);
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
      }
    }
    if (on("correction")) {
      new CorrectionBench(spark, data, recorded, warmUp ? 0 : historyDays)
          .run(cfg, landing, t, bc, sc, gc, metric, ref);
    }
    if (on("profile")) {
      ProfilerConfig pc = ProfilerConfig.fromConfig(cfg);
      DayRange days =
          DayRange.parse(
              SyntheticEvents.START.atZone(ZoneOffset.UTC).toLocalDate()
                  + ".."
                  + data.sliceEnd(data.sliceCount() - 1)
                      .plusSeconds(120)
                      .atZone(ZoneOffset.UTC)
                      .toLocalDate());
      double profile =
          time(
              () ->
                  new ProfileJob(
                          io.latelake.core.job.JobContext.start(spark, t, Clock.systemUTC()),
                          new io.latelake.profiler.ProfilerJob.Options(pc, days))
                      .run());
      double scan = time(() -> Baselines.latenessScan(spark, t.bronzeEvents()));
      double least =
          time(
              () ->
                  Baselines.minimalProfile(
                      spark, t.bronzeEvents(), LatenessStats.LEVELS, pc.accuracy()));
      record("profile", profile, scan);
      record("profile-bound", least, scan);
    }
  }

  /**
   * A lake for silver on the RocksDB state store: its {@code bronze/events} is a symbolic link to
   * the lock-step lake's bronze table (the bench is local only), everything else its own.
   */
  private static TableRegistry rocksDbLake(Path root, TableRegistry t) {
    Path lake = root.resolve("rocksdb-lake");
    TableRegistry rocks = new TableRegistry(lake.toString());
    try {
      Path link = Path.of(rocks.bronzeEvents());
      java.nio.file.Files.createDirectories(link.getParent());
      java.nio.file.Files.createDirectories(Path.of(t.bronzeEvents()));
      java.nio.file.Files.createSymbolicLink(link, Path.of(t.bronzeEvents()));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("Cannot link the RocksDB lake's bronze table", e);
    }
    return rocks;
  }

  /**
   * Runs {@code work} with {@code spark.sql.streaming.stateStore.providerClass} set to {@code
   * provider}, then restores the session's setting. The provider is recorded in a query's
   * checkpoint at its first start and kept on restarts, so each provider needs its own checkpoint.
   */
  private double withStateStore(String provider, java.util.function.DoubleSupplier work) {
    String before = spark.conf().get(STATE_STORE_KEY, HDFS_STATE_STORE);
    spark.conf().set(STATE_STORE_KEY, provider);
    try {
      return work.getAsDouble();
    } finally {
      spark.conf().set(STATE_STORE_KEY, before);
    }
  }

  /** State rows of silver's dedup after its last micro-batch. */
  private double silverStateRows(TableRegistry t) {
    Row last =
        spark
            .read()
            .format("delta")
            .load(t.streamProgress())
            .filter(col("query_name").equalTo(SilverConfig.QUERY_NAME))
            .orderBy(col("recorded_at").desc(), col("batch_id").desc())
            .first();
    return last.isNullAt(last.fieldIndex("state_rows"))
        ? 0
        : last.getLong(last.fieldIndex("state_rows"));
  }

  /** 1.3 × rate × (2·delay + trigger), trigger = event time per micro-batch, in rows. */
  private double stateBound(Duration delay) {
    double spanS = data.eventTimeSpan().toMillis() / 1000.0;
    double rate = data.records() / spanS;
    double trigger = spanS / data.sliceCount();
    return 1.3 * rate * (2 * delay.toMillis() / 1000.0 + trigger);
  }

  /**
   * Gold's MERGE into a table that already holds three times the windows (silver's rows shifted
   * one, two and three days back, published first), fed the same micro-batches as the lock step.
   *
   * @return seconds spent in gold over the slices
   */
  private void record(String figure, double o, double r) {
    recorded.record(figure, o, r);
  }

  /** Wall-clock seconds of {@code work}. */
  static double time(Runnable work) {
    long t0 = System.nanoTime();
    work.run();
    return (System.nanoTime() - t0) / 1e9;
  }

  /** {@link #time(Runnable)}, logged at DEBUG with the run's name and slice (1-based). */
  private static double time(String name, int slice, Runnable work) {
    double seconds = time(work);
    LOG.debug("slice {}: {} {} s", slice + 1, name, String.format(Locale.ROOT, "%.2f", seconds));
    return seconds;
  }

  /**
   * The lock-step fast path over all slices in a fresh lake: what a scale-out child measures.
   *
   * @return seconds spent in bronze, silver and gold
   */
  public static double lockStep(SparkSession spark, Config base, SyntheticEvents data, Path root) {
    Path landing = root.resolve("landing");
    Config cfg = lakeConfig(base, root.resolve("lake"), landing);
    BronzeConfig bc = BronzeConfig.fromConfig(cfg);
    SilverConfig sc = SilverConfig.fromConfig(cfg);
    GoldConfig gc = GoldConfig.fromConfig(cfg);
    TableRegistry t = TableRegistry.fromConfig(cfg);
    double seconds = 0;
    for (int i = 0; i < data.sliceCount(); i++) {
      data.writeSlice(i, landing);
      seconds +=
          time(
              () -> {
                new BronzeJob(JobContext.start(spark, t), bc).run();
                new SilverJob(JobContext.start(spark, t), sc).run();
                new GoldJob(JobContext.start(spark, t), gc).run();
              });
    }
    return seconds;
  }
}

package io.latelake.bench;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import io.latelake.bronze.BronzeConfig;
import io.latelake.bronze.BronzeJob;
import io.latelake.core.job.JobContext;
import io.latelake.core.table.TableRegistry;
import io.latelake.gold.GoldConfig;
import io.latelake.gold.GoldJob;
import io.latelake.silver.SilverConfig;
import io.latelake.silver.SilverJob;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the bench's pairs on one set of synthetic events, each repeat in a fresh lake, and returns
 * one {@link Figure} per row of the table. Times are wall-clock seconds of the run (stream start to
 * stop, or batch job), data generation and preparation excluded.
 *
 * <p>Each repeat ({@link BenchRepeat}) replays the data in lock step, slice by slice (one
 * micro-batch each, as the demo does): per slice, latelake's bronze, silver and gold run, and right
 * after each of them the hand-written reference reading the same input. Then, on the same lake:
 * gold over a 4× larger gold table, {@code correct} after a 1% late batch against a full recompute,
 * and {@code profile} against one plain scan. Scale-out runs the lock-step fast path in a child JVM
 * per master ({@code local[2]}, then {@code local[1]}).
 */
public final class Bench {
  private static final Logger LOG = LoggerFactory.getLogger(Bench.class);

  /** The groups {@code --only} accepts. */
  public static final List<String> GROUPS =
      List.of("ingest", "dedup", "publish", "fast-path", "correction", "profile", "scale-out");

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
    new BenchRepeat(spark, base, data, only, recorded, warmUp, historyDays)
        .run(work.resolve("repeat-" + (r + 1)), r);
  }

  /** Adds one repeat's pair of {@code figure}: ours {@code o}, the reference's {@code r}. */
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
  static double time(String name, int slice, Runnable work) {
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

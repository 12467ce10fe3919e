package io.latelake.bench;

import com.typesafe.config.Config;
import io.latelake.core.ExitCode;
import io.latelake.core.cli.Launcher;
import io.latelake.core.config.ConfigLoader;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.spark.SparkSessions;
import io.latelake.gold.GoldConfig;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code latelake bench}: measures what latelake's layers cost against hand-written Spark jobs
 * doing the same work, on synthetic events with the phone data's schema, and prints one table
 * (figure, ours, reference, ratio, target, pass/fail); the same table is written as JSON under
 * {@code bench/results/}. Times are wall-clock seconds; ratios are medians over the repeats
 * (throughput ratios = reference time / our time, time ratios = our time / reference time). Exit
 * codes: 0 the bench ran (whatever the figures), 1 a run failed, 2 bad usage or config. Local only:
 * the master comes from {@code -Dspark.master} (the launcher's {@code local[2]}).
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = "Benchmark latelake's layers against hand-written Spark jobs; print ratios.")
public final class BenchMain implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(BenchMain.class);

  @Spec CommandSpec spec;

  @Option(
      names = "--events",
      paramLabel = "N",
      defaultValue = "200000",
      description = "Synthetic records, ~1%% duplicates included (default: ${DEFAULT-VALUE}).")
  long events;

  @Option(
      names = "--only",
      paramLabel = "NAME",
      description =
          "Run only these figure groups (repeatable): ingest, dedup, publish, "
              + "fast-path, correction, profile, scale-out.")
  List<String> only = new ArrayList<>();

  @Option(
      names = "--history-days",
      paramLabel = "D",
      defaultValue = "0",
      description =
          "Adds correct over D and 4 x D days of bronze history after a contiguous late batch, "
              + "and over D days after a spread one (figures correction-history, "
              + "correction-history-spread, correction-history-bound and correction-growth, in "
              + "the correction group), and, with the profile group, the profile of the bench's "
              + "days over D and 4 x D days (profile-history, profile-growth; the profile "
              + "group's own rows then run over the 4 x D days); 0 leaves them out (default: "
              + "${DEFAULT-VALUE}).")
  int historyDays;

  @Option(
      names = "--repeats",
      paramLabel = "K",
      defaultValue = "3",
      description = "Runs of each pair; the median ratio is reported (default: ${DEFAULT-VALUE}).")
  int repeats;

  @Option(
      names = "--slices",
      paramLabel = "S",
      defaultValue = "4",
      description = "Micro-batches the data is replayed in (default: ${DEFAULT-VALUE}).")
  int slices;

  @Option(
      names = "--warm-up",
      paramLabel = "N",
      defaultValue = "4000",
      description =
          "Synthetic records run once, in one micro-batch, through every selected pair "
              + "before the measured repeats, untimed, so no figure pays the JVM's first-run "
              + "cost; 0 skips it "
              + "(default: ${DEFAULT-VALUE}).")
  long warmUp;

  @Option(
      names = "--seed",
      defaultValue = "13",
      description = "Random seed (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description =
          "HOCON config with the phone data's schema and metric (default: conf/local.conf).")
  Path configFile;

  @Option(
      names = "--lateness",
      paramLabel = "FILE",
      description =
          "Real lateness values to resample (default: data/ooo-iot-umts/ooo_umts_events.csv.gz).")
  Path latenessFile;

  @Option(
      names = "--results",
      paramLabel = "DIR",
      description = "Where the JSON result goes (default: bench/results).")
  Path results;

  @Option(
      names = "--work",
      paramLabel = "DIR",
      description =
          "Scratch folder for the lakes (default: bench/target/work-<time>; removed after).")
  Path work;

  @Option(
      names = "--scale-out-child",
      hidden = true,
      description =
          "Internal: run the warm-up once, then the lock-step fast path --repeats times, each "
              + "in a fresh lake under --work, and write their seconds there (seconds.txt, one "
              + "line per repeat: wall-clock seconds, then the seconds of its Spark tasks).")
  boolean scaleOutChild;

  public static void main(String[] args) {
    System.exit(Launcher.execute(new BenchMain(), args));
  }

  @Override
  public Integer call() {
    if (events < 100 || repeats < 1 || slices < 1 || warmUp != 0 && warmUp < 100) {
      throw new LakeConfigException(
          "Invalid bench options: --events "
              + events
              + " (at least 100), --warm-up "
              + warmUp
              + " (0 or at least 100), --repeats "
              + repeats
              + " (at least 1), --slices "
              + slices
              + " (at least 1)");
    }
    if (historyDays < 0 || historyDays > 3_650) {
      throw LakeConfigException.invalid(
          "--history-days", Integer.toString(historyDays), "expected 0 to 3650 days");
    }
    if (historyDays > 0 && !only.isEmpty() && !only.contains("correction")) {
      throw LakeConfigException.invalid(
          "--history-days",
          Integer.toString(historyDays),
          "its figures belong to the correction group, which --only leaves out");
    }
    for (String g : only) {
      if (!Bench.GROUPS.contains(g)) {
        throw new LakeConfigException(
            "Invalid value '" + g + "' for option '--only', expected " + "one of " + Bench.GROUPS);
      }
    }
    Path home = home();
    Config config =
        ConfigLoader.load(
            Optional.of(configFile != null ? configFile : home.resolve("conf/local.conf")),
            List.of());
    MetricSpec metric = requirePhoneMetric(config);
    long[] lateness =
        SyntheticEvents.readLatenessMs(
            latenessFile != null
                ? latenessFile
                : home.resolve("data/ooo-iot-umts/ooo_umts_events.csv.gz"));
    SyntheticEvents data =
        SyntheticEvents.generate(events, slices, seed, lateness, metric.window());
    String stamp =
        DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
            .withZone(ZoneOffset.UTC)
            .format(Instant.now());
    Path dir = work != null ? work : home.resolve("bench/target/work-" + stamp);
    org.apache.logging.log4j.core.config.Configurator.setLevel(
        "io.latelake.core.streaming", org.apache.logging.log4j.Level.WARN);
    // The untimed warm-up's data: one micro-batch, its own seed (null: no warm-up).
    SyntheticEvents small =
        warmUp > 0
            ? SyntheticEvents.generate(warmUp, 1, seed + 1, lateness, metric.window())
            : null;
    // Spark's warehouse folder under the work folder, not a spark-warehouse/ in the current one
    String warehouse = "lake.spark.conf.\"spark.sql.warehouse.dir\"";
    SparkSession spark =
        SparkSessions.create(
            "latelake-bench",
            config.hasPath(warehouse)
                ? config
                : config.withValue(
                    warehouse,
                    com.typesafe.config.ConfigValueFactory.fromAnyRef(
                        dir.resolve("warehouse").toAbsolutePath().toUri().toString())));
    try {
      if (scaleOutChild) {
        ScaleOutChild.measure(spark, config, small, data, repeats, dir);
        return ExitCode.OK.code();
      }
      if (small != null) {
        double s =
            Bench.warmUp(spark, config, small, new LinkedHashSet<>(only), dir.resolve("warm-up"));
        LOG.info("bench warm-up took {} s", String.format(Locale.ROOT, "%.1f", s));
      }
      List<Figure> figures =
          new Bench(
                  spark,
                  config,
                  data,
                  repeats,
                  new LinkedHashSet<>(only),
                  dir,
                  (master, n) -> child(master, n, dir))
              .historyDays(historyDays)
              .run();
      PrintWriter out = spec.commandLine().getOut();
      String master = spark.sparkContext().master();
      out.print(BenchReport.table(figures, data, master, warmUp));
      Path file =
          (results != null ? results : home.resolve("bench/results"))
              .resolve("bench-" + stamp + ".json");
      BenchReport.write(file, BenchReport.json(figures, data, master, stamp, warmUp));
      out.printf("written to %s%n", file);
      out.flush();
      if (work == null) {
        BenchReport.delete(dir);
      }
      return ExitCode.OK.code();
    } finally {
      spark.stop();
    }
  }

  private static MetricSpec requirePhoneMetric(Config config) {
    List<MetricSpec> metrics = GoldConfig.fromConfig(config).metrics();
    if (metrics.size() != 1
        || !metrics.get(0).groupBy().equals(List.of("device_id"))
        || !metrics.get(0).measureNames().equals(List.of("events", "bytes"))) {
      throw new LakeConfigException(
          "Cannot run the bench: it measures the phone data's metric "
              + "(one metric, group-by [device_id], measures [events, bytes], conf/ooo-umts.conf); "
              + "the config has "
              + metrics.stream().map(MetricSpec::name).toList());
    }
    return metrics.get(0);
  }

  /** The repository: LATELAKE_HOME, else the first folder up from here with conf/local.conf. */
  private static Path home() {
    String env = System.getenv("LATELAKE_HOME");
    if (env != null && !env.isBlank()) {
      return Path.of(env);
    }
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.exists(p.resolve("conf/local.conf"))) {
        return p;
      }
    }
    throw new LakeConfigException(
        "Cannot find the latelake folder (conf/local.conf) from "
            + Path.of("").toAbsolutePath()
            + "; set LATELAKE_HOME");
  }

  /**
   * Runs the lock-step fast path {@code repeats} times in one child JVM on {@code master}; returns
   * each run's wall-clock and task seconds.
   */
  private List<Bench.ChildRun> child(String master, int repeats, Path dir) {
    Path childDir = dir.resolve("scale-out-" + master.replaceAll("[^0-9a-z]", ""));
    return ScaleOutChild.run(
        master, repeats, childDir, ScaleOutChild.args(this, repeats, childDir), home());
  }
}

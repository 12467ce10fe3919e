package io.latelake.bench;

import com.typesafe.config.Config;
import io.latelake.core.ExitCode;
import io.latelake.core.cli.Launcher;
import io.latelake.core.config.ConfigLoader;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.spark.SparkSessions;
import io.latelake.gold.GoldConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
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
              + "the correction group); 0 leaves them out (default: ${DEFAULT-VALUE}).")
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
    SparkSession spark = SparkSessions.create("latelake-bench", config);
    try {
      if (scaleOutChild) {
        if (small != null) {
          // The same untimed warm-up as the parent's, so that neither master's figure carries
          // the JVM's first-run cost.
          Bench.lockStep(spark, config, small, dir.resolve("warm-up"));
        }
        StringBuilder seconds = new StringBuilder();
        TaskTime tasks = new TaskTime();
        spark.sparkContext().addSparkListener(tasks);
        for (int r = 0; r < repeats; r++) {
          tasks.reset(spark);
          double s = Bench.lockStep(spark, config, data, dir.resolve("repeat-" + (r + 1)));
          double t = tasks.seconds(spark);
          LOG.info("scale-out repeat {}/{}: {} s, of which {} s in tasks", r + 1, repeats, s, t);
          seconds.append(s).append(' ').append(t).append('\n');
        }
        write(dir.resolve("seconds.txt"), seconds.toString());
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
      out.print(table(figures, data, master, warmUp));
      Path file =
          (results != null ? results : home.resolve("bench/results"))
              .resolve("bench-" + stamp + ".json");
      write(file, json(figures, data, master, stamp, warmUp));
      out.printf("written to %s%n", file);
      out.flush();
      if (work == null) {
        delete(dir);
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
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (a.startsWith("--add-")
          || a.startsWith("-XX:")
          || a.startsWith("-Xmx")
          || a.startsWith("-Djdk.")
          || a.startsWith("-Dio.netty")
          || a.startsWith("-Dlog4j")) {
        cmd.add(a);
      }
    }
    cmd.addAll(
        List.of(
            "-Dspark.master=" + master,
            "-Dspark.ui.enabled=false",
            "-cp",
            System.getProperty("java.class.path"),
            BenchMain.class.getName(),
            "--scale-out-child",
            "--events",
            Long.toString(events),
            "--repeats",
            Integer.toString(repeats),
            "--slices",
            Integer.toString(slices),
            "--seed",
            Long.toString(seed),
            "--warm-up",
            Long.toString(warmUp),
            "--work",
            childDir.toString()));
    if (configFile != null) {
      cmd.addAll(List.of("--config", configFile.toString()));
    }
    if (latenessFile != null) {
      cmd.addAll(List.of("--lateness", latenessFile.toString()));
    }
    try {
      Files.createDirectories(childDir);
      Path log = childDir.resolve("child.log");
      ProcessBuilder pb =
          new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
      pb.environment().put("LATELAKE_HOME", home().toString());
      LOG.info("scale-out: child JVM on {} (log {})", master, log);
      int rc = pb.start().waitFor();
      Path seconds = childDir.resolve("seconds.txt");
      if (rc != 0 || !Files.exists(seconds)) {
        throw new BenchException(
            "The scale-out run on " + master + " failed with exit code " + rc + "; see " + log);
      }
      List<Bench.ChildRun> runs =
          Files.readAllLines(seconds).stream()
              .filter(l -> !l.isBlank())
              .map(l -> l.trim().split(" "))
              .map(v -> new Bench.ChildRun(Double.parseDouble(v[0]), Double.parseDouble(v[1])))
              .toList();
      if (runs.size() != repeats) {
        throw new BenchException(
            "The scale-out run on "
                + master
                + " wrote "
                + runs.size()
                + " times for "
                + repeats
                + " repeats; see "
                + log);
      }
      return runs;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start the scale-out JVM on " + master, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchException("Interrupted while the scale-out JVM on " + master + " ran", e);
    }
  }

  /** Sums the durations of the Spark tasks that end (a listener on the driver's event bus). */
  static final class TaskTime extends SparkListener {
    private final AtomicLong millis = new AtomicLong();

    @Override
    public void onTaskEnd(SparkListenerTaskEnd end) {
      millis.addAndGet(end.taskInfo().duration());
    }

    void reset(SparkSession spark) {
      drain(spark);
      millis.set(0);
    }

    /**
     * @return the seconds of the tasks that ended since {@link #reset}, once the events posted so
     *     far have reached this listener
     */
    double seconds(SparkSession spark) {
      drain(spark);
      return millis.get() / 1000.0;
    }

    private static void drain(SparkSession spark) {
      try {
        spark.sparkContext().listenerBus().waitUntilEmpty(60_000);
      } catch (TimeoutException e) {
        throw new BenchException("Spark's listener bus did not drain within 60 s", e);
      }
    }
  }

  static String table(List<Figure> figures, SyntheticEvents data, String master, long warmUp) {
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            Locale.ROOT,
            "%nlatelake bench: %,d events (%d micro-batches), %s, median of the repeats%s%n",
            data.records(),
            data.sliceCount(),
            master,
            warmUp > 0
                ? String.format(Locale.ROOT, ", after an untimed warm-up of %,d events", warmUp)
                : ", no warm-up"));
    int width = Math.max(24, figures.stream().mapToInt(f -> f.name().length()).max().orElse(0));
    String fmt = "%-" + width + "s %10s %10s %8s %8s  %s%n";
    sb.append(
        String.format(
            Locale.ROOT, fmt, "figure", "ours", "reference", "ratio", "target", "result"));
    for (Figure f : figures) {
      String unit = f.unit().equals("s") ? " s" : "";
      sb.append(
          String.format(
              Locale.ROOT,
              fmt,
              f.name(),
              String.format(
                  Locale.ROOT, f.unit().equals("s") ? "%.2f%s" : "%.0f%s", f.ours(), unit),
              String.format(
                  Locale.ROOT, f.unit().equals("s") ? "%.2f%s" : "%.0f%s", f.reference(), unit),
              String.format(Locale.ROOT, "%.2f×", f.ratio()),
              f.targetText(),
              f.resultText()));
    }
    for (Figure f : figures) {
      sb.append(String.format(Locale.ROOT, "  %-" + width + "s %s%n", f.name(), f.note()));
    }
    return sb.toString();
  }

  static String json(
      List<Figure> figures, SyntheticEvents data, String master, String stamp, long warmUp) {
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            Locale.ROOT,
            "{\"run\":\"%s\",\"events\":%d,\"micro_batches\":%d,\"warm_up_events\":%d,"
                + "\"master\":\"%s\",\"figures\":[%n",
            stamp,
            data.records(),
            data.sliceCount(),
            warmUp,
            master));
    for (int i = 0; i < figures.size(); i++) {
      sb.append("  ").append(figures.get(i).json()).append(i + 1 < figures.size() ? ",\n" : "\n");
    }
    return sb.append("]}\n").toString();
  }

  private static void write(Path file, String text) {
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + file, e);
    }
  }

  private static void delete(Path dir) {
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      LOG.warn("Cannot remove the bench's scratch folder {}: {}", dir, e.getMessage());
    }
  }
}

package io.latelake.bench;

import com.typesafe.config.Config;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scale-out figure's child JVM: the bench's lock-step fast path on another Spark master, run as
 * {@code BenchMain --scale-out-child}, with this JVM's module, memory and JIT options and its
 * {@code spark.*} system properties (Spark reads them as settings). The parent starts it and reads
 * its times ({@link #run}); the child measures and writes them ({@link #measure}).
 */
final class ScaleOutChild {
  private static final Logger LOG = LoggerFactory.getLogger(ScaleOutChild.class);

  /** Prefixes of the {@code spark.*} system properties a child does not get. */
  private static final List<String> NOT_FORWARDED =
      List.of(
          "spark.app.",
          "spark.driver.",
          "spark.executor.id",
          "spark.submit.",
          "spark.jars",
          "spark.yarn.",
          "spark.kubernetes.");

  private ScaleOutChild() {}

  /**
   * The bench's options for a child: the parent's data options ({@code --events}, {@code --slices},
   * {@code --seed}, {@code --warm-up}, {@code --config}, {@code --lateness}), {@code repeats} runs
   * and {@code --work childDir}, with {@code --scale-out-child}.
   */
  static List<String> args(BenchMain options, int repeats, Path childDir) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--scale-out-child",
                "--events",
                Long.toString(options.events),
                "--repeats",
                Integer.toString(repeats),
                "--slices",
                Integer.toString(options.slices),
                "--seed",
                Long.toString(options.seed),
                "--warm-up",
                Long.toString(options.warmUp),
                "--work",
                childDir.toString()));
    if (options.configFile != null) {
      args.addAll(List.of("--config", options.configFile.toString()));
    }
    if (options.latenessFile != null) {
      args.addAll(List.of("--lateness", options.latenessFile.toString()));
    }
    return args;
  }

  /**
   * @param master the child's Spark master
   * @param repeats the runs it makes
   * @param childDir its work folder ({@code child.log}, {@code seconds.txt})
   * @param args the bench's options for the child
   * @param home the repository ({@code LATELAKE_HOME})
   * @return each run's wall-clock and task seconds
   * @throws BenchException when the child fails or writes another number of runs
   */
  static List<Bench.ChildRun> run(
      String master, int repeats, Path childDir, List<String> args, Path home) {
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
    // Spark settings given to this JVM as system properties (-Dspark.*, or a test's), but not its
    // master and UI, which the child gets below, nor what names this JVM's own application (its
    // driver, ports, jars, cluster manager: spark-submit passes them as system properties too)
    for (String name : System.getProperties().stringPropertyNames().stream().sorted().toList()) {
      if (name.startsWith("spark.")
          && !name.equals("spark.master")
          && !name.startsWith("spark.ui.")
          && NOT_FORWARDED.stream().noneMatch(name::startsWith)) {
        cmd.add("-D" + name + "=" + System.getProperty(name));
      }
    }
    cmd.addAll(
        List.of(
            "-Dspark.master=" + master,
            "-Dspark.ui.enabled=false",
            "-cp",
            System.getProperty("java.class.path"),
            BenchMain.class.getName()));
    cmd.addAll(args);
    try {
      Files.createDirectories(childDir);
      Path log = childDir.resolve("child.log");
      ProcessBuilder pb =
          new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
      pb.environment().put("LATELAKE_HOME", home.toString());
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

  /**
   * The child's side: the untimed warm-up once, then the lock-step fast path ({@link
   * Bench#lockStep}) once per repeat, each in a fresh lake under {@code dir}; writes {@code
   * seconds.txt} there, one line per repeat: wall-clock seconds, then the seconds of its Spark
   * tasks ({@link TaskTime}).
   *
   * @param config effective config with the phone data's schema and metric
   * @param small the warm-up data, the parent's; null: no warm-up
   * @param dir the child's work folder
   */
  static void measure(
      SparkSession spark,
      Config config,
      SyntheticEvents small,
      SyntheticEvents data,
      int repeats,
      Path dir) {
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
    BenchReport.write(dir.resolve("seconds.txt"), seconds.toString());
  }
}

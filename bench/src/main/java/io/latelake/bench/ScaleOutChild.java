package io.latelake.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scale-out figure's child JVM: the bench's lock-step fast path on another Spark master, run as
 * {@code BenchMain --scale-out-child}, with this JVM's module and memory options.
 */
final class ScaleOutChild {
  private static final Logger LOG = LoggerFactory.getLogger(ScaleOutChild.class);

  private ScaleOutChild() {}

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
}

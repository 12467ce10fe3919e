package io.latelake.app;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * {@code latelake run} (or another stream command's main class) in a child JVM (local[2], the
 * test's classpath and JVM flags), its output in a log file: the way a scheduler runs it, so tests
 * can {@code kill -9} it or send SIGTERM.
 */
final class StreamProcess implements AutoCloseable {
  /** {@link #waitForTables}: a check at least this often while the child's log stands still. */
  private static final long IDLE_RECHECK_MS = 5000;

  /**
   * {@link #waitForTables}: a check that followed the log's growth and failed is repeated this much
   * later even if the log stands still (the progress row a log line announces may come after it).
   */
  private static final long FOLLOW_UP_MS = 1000;

  private final Process process;
  final Path log;

  private StreamProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /**
   * Starts {@code RunMain} with these {@code --set} overrides (and then {@code args}), logging to
   * {@code log}.
   */
  static StreamProcess run(Path log, List<String> sets, String... args) throws IOException {
    return start(RunMain.class, log, sets, args);
  }

  /**
   * Starts {@code main} (a spark-submit entry class such as {@code BronzeMain}) with these {@code
   * --set} overrides (and then {@code args}), logging to {@code log}.
   */
  static StreamProcess start(Class<?> main, Path log, List<String> sets, String... args)
      throws IOException {
    Files.createDirectories(log.toAbsolutePath().getParent());
    Files.deleteIfExists(log);
    // Spark's module flags and the test JVM's Delta and codegen settings
    List<String> cmd = new ArrayList<>(io.latelake.core.testing.ChildJvm.java());
    // A child lives for seconds to a few minutes: the client compiler alone starts it sooner
    // and leaves the two cores to Spark instead of to C2 compiler threads.
    cmd.addAll(
        List.of("-XX:TieredStopAtLevel=1", "-XX:ReservedCodeCacheSize=240m", "-XX:+UseSerialGC"));
    cmd.addAll(
        List.of(
            "-Xmx1g",
            "-Dspark.master=local[2]",
            "-Dspark.ui.enabled=false",
            "-Dlog4j.configurationFile=" + repoRoot().resolve("conf/log4j2-local.properties"),
            "-cp",
            System.getProperty("java.class.path"),
            main.getName()));
    for (String s : sets) {
      cmd.add("--set");
      cmd.add(s);
    }
    cmd.addAll(List.of(args));
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    return new StreamProcess(pb.start(), log);
  }

  /**
   * @return where a test keeps a child's log: {@code target/it-logs/<name>.log}, kept for reading
   */
  static Path logFile(String name) {
    return Path.of("target", "it-logs", name + ".log");
  }

  static Path repoRoot() {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isDirectory(d.resolve("conf"))
          && Files.exists(d.resolve("pom.xml"))
          && Files.isDirectory(d.resolve("bundle"))) {
        return d;
      }
    }
    throw new IllegalStateException(
        "repository root not found from " + Path.of("").toAbsolutePath());
  }

  String logText() {
    try {
      return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      return "(cannot read " + log + ": " + e + ")";
    }
  }

  boolean isAlive() {
    return process.isAlive();
  }

  long pid() {
    return process.pid();
  }

  /** {@code kill -9}. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(60, TimeUnit.SECONDS);
  }

  /** Sends SIGTERM and waits for the exit code. */
  int terminate() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(3, TimeUnit.MINUTES)) {
      throw new IllegalStateException("run did not stop within 3 minutes of SIGTERM:\n" + tail());
    }
    return process.exitValue();
  }

  /** Waits for the process to exit by itself. */
  int await(Duration bound) throws InterruptedException {
    if (!process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException("run did not exit within " + bound + ":\n" + tail());
    }
    return process.exitValue();
  }

  /**
   * Waits until {@code condition} holds, checking it every 250 ms; fails (with the log tail) if the
   * process dies first. For a condition that reads the lake's tables, see {@link #waitForTables}.
   */
  void waitFor(String what, Duration bound, BooleanSupplier condition) throws InterruptedException {
    waitFor(what, bound, condition, false);
  }

  /**
   * Waits until {@code condition}, which reads the lake's Delta tables (Spark jobs in this JVM),
   * holds. The tables change only when the child commits a micro-batch, and it logs every
   * micro-batch: the condition is checked again when the child's log has grown since the last check
   * (at most as often as one check takes, leaving at least half of the time to the child), once
   * more {@value #FOLLOW_UP_MS} ms after a check the log's growth started (a progress row may be
   * written after its log line), and otherwise every {@value #IDLE_RECHECK_MS} ms. Fails (with the
   * log tail) if the process dies first.
   */
  void waitForTables(String what, Duration bound, BooleanSupplier condition)
      throws InterruptedException {
    waitFor(what, bound, condition, true);
  }

  private void waitFor(String what, Duration bound, BooleanSupplier condition, boolean onLogGrowth)
      throws InterruptedException {
    long deadline = System.nanoTime() + bound.toNanos();
    boolean afterGrowth = false;
    while (true) {
      long logSize = logSize();
      long started = System.nanoTime();
      if (condition.getAsBoolean()) {
        return;
      }
      long checked = System.nanoTime();
      long earliest = checked + (onLogGrowth ? checked - started : 0);
      while (true) {
        if (!process.isAlive()) {
          throw new IllegalStateException(
              "run exited (" + process.exitValue() + ") before " + what + ":\n" + tail());
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("no " + what + " within " + bound + ":\n" + tail());
        }
        Thread.sleep(250);
        long now = System.nanoTime();
        if (!onLogGrowth) {
          break;
        }
        if (now >= earliest && logSize() != logSize) {
          afterGrowth = true;
          break;
        }
        long idle = now - checked;
        if (idle >= TimeUnit.MILLISECONDS.toNanos(afterGrowth ? FOLLOW_UP_MS : IDLE_RECHECK_MS)
            && now >= earliest) {
          afterGrowth = false;
          break;
        }
      }
    }
  }

  private long logSize() {
    try {
      return Files.exists(log) ? Files.size(log) : 0;
    } catch (IOException e) {
      return -1;
    }
  }

  /**
   * @return the log's last 60 lines, without the effective-configuration dump (its {@code lake.*}
   *     and {@code spark.*} lines); while the process runs, first a thread dump (SIGQUIT: the JVM
   *     prints it to the log and runs on), so a wait that timed out shows where the child stood
   */
  String tail() {
    if (process.isAlive()) {
      try {
        new ProcessBuilder("kill", "-3", Long.toString(process.pid())).start().waitFor();
        Thread.sleep(2000);
      } catch (java.io.IOException e) {
        // no thread dump: the log as it is
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    List<String> lines =
        logText()
            .lines()
            .filter(l -> !l.startsWith("  lake.") && !l.startsWith("  spark."))
            .toList();
    return "(log "
        + log.toAbsolutePath()
        + ")\n"
        + String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }
}

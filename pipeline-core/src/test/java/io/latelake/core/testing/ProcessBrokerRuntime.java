package io.latelake.core.testing;

import static io.latelake.core.testing.BrokerSupport.HOST;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Uuid;

/**
 * The broker as a separate JVM running {@code kafka.Kafka} from the classpath that the {@code
 * scripts/kafka-broker} module resolves into {@value KafkaBroker#CLASSPATH_FILE}. That classpath is
 * never mixed with the test's own (where Spark's connector brings kafka-clients 3.9). Its settings
 * come from {@code scripts/lib/kafka-node.sh}. Configuration, data and {@code broker.log} live
 * under the work directory. A JVM shutdown hook stops the process should a test run end without
 * closing it.
 */
final class ProcessBrokerRuntime extends AbstractBrokerRuntime {

  private static final Duration FORMAT_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
  private static final String NODE_CONFIG_SCRIPT = "scripts/lib/kafka-node.sh";

  private final Process process;
  private final Path workDir;

  private ProcessBrokerRuntime(
      Process process, int port, Path workDir, Path logFile, Admin admin, Thread shutdownHook) {
    super(port, logFile, admin, shutdownHook);
    this.process = process;
    this.workDir = workDir;
  }

  /**
   * Formats a KRaft log directory under {@code dir} and starts the broker on free ports.
   *
   * @throws IOException if files cannot be written or the process cannot be launched
   * @throws IllegalStateException if the classpath file is missing or stale, formatting fails, or
   *     the broker is not ready in time (the message carries the tail of its log)
   */
  static ProcessBrokerRuntime start(Path dir) throws IOException {
    String classpath = readClasspath(findClasspathFile());
    Path config = dir.resolve("server.properties");
    Path log4jConfig = dir.resolve("log4j2.properties");
    Path logFile = dir.resolve("broker.log");

    return BrokerSupport.startOnFreePorts(
        (port, controllerPort, attempt) -> {
          writeNodeConfig(dir, port, controllerPort);
          if (attempt == 1) {
            // With a static controller.quorum.voters the data directory does not record
            // listener ports, so retries on new ports keep the formatted directory.
            format(classpath, dir, config);
          }
          long logStart = BrokerSupport.size(logFile);
          Process process = launch(classpath, dir, config, log4jConfig, logFile);
          Thread hook = addHook(() -> stop(process), "kafka-broker-shutdown-" + process.pid());
          boolean ready = false;
          try {
            Admin admin =
                BrokerSupport.awaitReady(port, process::isAlive, "pid " + process.pid(), logFile);
            ready = true;
            return new ProcessBrokerRuntime(process, port, dir, logFile, admin, hook);
          } catch (BrokerSupport.BrokerExitedException e) {
            throw BrokerSupport.startFailed(
                "Kafka broker exited with code "
                    + process.exitValue()
                    + " during start-up. Tail of "
                    + logFile
                    + ":\n"
                    + BrokerSupport.tail(logFile),
                null,
                logFile,
                logStart);
          } finally {
            if (!ready) {
              stop(process);
              removeHook(hook);
            }
          }
        });
  }

  @Override
  public KafkaBroker.Implementation implementation() {
    return KafkaBroker.Implementation.PROCESS;
  }

  @Override
  public boolean isRunning() {
    return process.isAlive();
  }

  @Override
  public void stop() {
    stop(process);
    removeShutdownHook();
  }

  @Override
  public String describe() {
    return HOST + ":" + port() + ", pid " + process.pid() + ", " + workDir;
  }

  // ----------------------------------------------------------------------------------------

  private static Path findClasspathFile() {
    String configured = System.getProperty(KafkaBroker.CLASSPATH_PROPERTY);
    if (configured != null && !configured.isBlank()) {
      Path file = Paths.get(configured.trim()).toAbsolutePath();
      if (!Files.isRegularFile(file)) {
        throw new IllegalStateException(
            "Kafka broker classpath file "
                + file
                + " (system property "
                + KafkaBroker.CLASSPATH_PROPERTY
                + ") does not exist. "
                + buildHint());
      }
      return file;
    }
    Path start = Paths.get("").toAbsolutePath();
    for (Path dir = start; dir != null; dir = dir.getParent()) {
      Path file = dir.resolve(KafkaBroker.CLASSPATH_FILE);
      if (Files.isRegularFile(file)) {
        return file;
      }
    }
    throw new IllegalStateException(
        "Kafka broker classpath file "
            + KafkaBroker.CLASSPATH_FILE
            + " not found in "
            + start
            + " or any parent directory, and system property "
            + KafkaBroker.CLASSPATH_PROPERTY
            + " is not set. "
            + buildHint());
  }

  private static String buildHint() {
    return "Build it from the repository root with `mvn -pl scripts/kafka-broker generate-resources` "
        + "(or run the full build, e.g. `mvn verify`).";
  }

  private static String readClasspath(Path file) throws IOException {
    String classpath = Files.readString(file, StandardCharsets.UTF_8).trim();
    if (classpath.isEmpty()) {
      throw new IllegalStateException(
          "Kafka broker classpath file " + file + " is empty. " + buildHint());
    }
    for (String entry : classpath.split(java.io.File.pathSeparator)) {
      if (!entry.isBlank() && !Files.exists(Paths.get(entry))) {
        throw new IllegalStateException(
            "Kafka broker classpath file "
                + file
                + " names missing "
                + entry
                + " (local Maven repository changed?). "
                + buildHint());
      }
    }
    return classpath;
  }

  /**
   * Writes {@code server.properties} and {@code log4j2.properties} into {@code dir} with {@code
   * scripts/lib/kafka-node.sh}, the node configuration {@code scripts/kafka-broker.sh} and the
   * broker image use too.
   */
  private static void writeNodeConfig(Path dir, int port, int controllerPort) throws IOException {
    Path script = findRepositoryFile(NODE_CONFIG_SCRIPT);
    Path out = dir.resolve("node-config.log");
    Process p =
        new ProcessBuilder(
                "bash",
                "-c",
                "source \"$0\" && kafka_node_config \"$1\" \"$2\" \"$3\" \"$4\"",
                script.toString(),
                dir.toString(),
                HOST,
                String.valueOf(port),
                String.valueOf(controllerPort))
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    if (!waitFor(p, FORMAT_TIMEOUT) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IllegalStateException(
          "Writing the Kafka node configuration with "
              + script
              + " failed:\n"
              + BrokerSupport.tail(out));
    }
  }

  /** The first {@code relative} file found in the working directory or a parent. */
  private static Path findRepositoryFile(String relative) {
    Path start = Paths.get("").toAbsolutePath();
    for (Path dir = start; dir != null; dir = dir.getParent()) {
      Path file = dir.resolve(relative);
      if (Files.isRegularFile(file)) {
        return file;
      }
    }
    throw new IllegalStateException(
        relative + " not found in " + start + " or any parent directory");
  }

  private static String javaBinary() {
    Path bin = Paths.get(System.getProperty("java.home"), "bin");
    Path java = bin.resolve("java");
    if (Files.isExecutable(java)) {
      return java.toString();
    }
    Path javaExe = bin.resolve("java.exe");
    if (Files.isExecutable(javaExe)) {
      return javaExe.toString();
    }
    return ProcessHandle.current().info().command().orElse("java");
  }

  private static void format(String classpath, Path dir, Path config) throws IOException {
    Path formatLog = dir.resolve("format.log");
    String clusterId = Uuid.randomUuid().toString();
    Process format =
        new ProcessBuilder(
                javaBinary(),
                "-Xmx256m",
                "-cp",
                classpath,
                "kafka.tools.StorageTool",
                "format",
                "--ignore-formatted",
                "--cluster-id",
                clusterId,
                "--config",
                config.toString())
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(formatLog.toFile())
            .start();
    boolean exited = waitFor(format, FORMAT_TIMEOUT);
    if (!exited) {
      format.destroyForcibly();
      throw new IllegalStateException(
          "Formatting Kafka storage did not finish within "
              + FORMAT_TIMEOUT.toSeconds()
              + " s:\n"
              + BrokerSupport.tail(formatLog));
    }
    if (format.exitValue() != 0) {
      throw new IllegalStateException(
          "Formatting Kafka storage failed (exit "
              + format.exitValue()
              + "):\n"
              + BrokerSupport.tail(formatLog));
    }
  }

  private static Process launch(
      String classpath, Path dir, Path config, Path log4jConfig, Path logFile) throws IOException {
    List<String> command =
        List.of(
            javaBinary(),
            "-Xmx512m",
            "-Xms64m",
            "-XX:+UseG1GC",
            "-XX:MaxGCPauseMillis=20",
            "-Djava.awt.headless=true",
            "-Dlog4j2.configurationFile=" + log4jConfig.toUri(),
            "-cp",
            classpath,
            "kafka.Kafka",
            config.toString());
    return new ProcessBuilder(command)
        .directory(dir.toFile())
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
        .start();
  }

  private static void stop(Process process) {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    if (!waitFor(process, STOP_TIMEOUT)) {
      process.destroyForcibly();
      waitFor(process, STOP_TIMEOUT);
    }
  }

  private static boolean waitFor(Process process, Duration timeout) {
    try {
      return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return !process.isAlive();
    }
  }
}

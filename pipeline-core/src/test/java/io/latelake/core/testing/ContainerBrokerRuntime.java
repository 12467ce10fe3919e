package io.latelake.core.testing;

import static io.latelake.core.testing.BrokerSupport.HOST;

import com.github.dockerjava.api.DockerClient;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.ContainerLaunchException;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.output.OutputFrame;
import org.testcontainers.containers.wait.strategy.AbstractWaitStrategy;
import org.testcontainers.utility.DockerImageName;

/**
 * The broker in a container of the image built by {@code scripts/docker-images.sh} ({@code
 * latelake/kafka:<version>}: Debian bookworm, OpenJDK 17, the Kafka jars, a start script that
 * formats a fresh KRaft directory). The container uses the host's network, so its listeners bind
 * {@code 127.0.0.1} on ports chosen here and all traffic stays on the loopback interface. Its
 * console output is copied to {@code broker.log} in the work directory; its data stays inside the
 * container and goes with it.
 *
 * <p>Containers are stopped and removed by {@link #stop()} (or a JVM shutdown hook), not by
 * Testcontainers' reaper (Ryuk), whose image cannot be pulled here: run with {@code
 * TESTCONTAINERS_RYUK_DISABLED=true}.
 */
final class ContainerBrokerRuntime extends AbstractBrokerRuntime {

  /** Label put on every broker container; its value identifies one broker. */
  static final String LABEL = "io.latelake.kafka-broker";

  private final GenericContainer<?> container;
  private final String id;
  private final LogCopy logCopy;
  private boolean stopped;

  private ContainerBrokerRuntime(
      GenericContainer<?> container,
      String id,
      int port,
      Path logFile,
      LogCopy logCopy,
      Admin admin,
      Thread shutdownHook) {
    super(port, logFile, admin, shutdownHook);
    this.container = container;
    this.id = id;
    this.logCopy = logCopy;
  }

  /**
   * Starts a broker container from {@code image} on free ports of {@code 127.0.0.1}.
   *
   * @throws IOException if {@code dir/broker.log} cannot be written
   * @throws IllegalStateException if the container does not start or the broker is not ready in
   *     time (the message carries the tail of its log); the container is removed
   */
  static ContainerBrokerRuntime start(Path dir, String image) throws IOException {
    Path logFile = dir.resolve("broker.log");
    return BrokerSupport.startOnFreePorts(
        (port, controllerPort, attempt) -> {
          String id = UUID.randomUUID().toString();
          long logStart = BrokerSupport.size(logFile);
          LogCopy logCopy = LogCopy.open(logFile);
          GenericContainer<?> container =
              new GenericContainer<>(DockerImageName.parse(image))
                  .withNetworkMode("host")
                  .withEnv("KAFKA_HOST", HOST)
                  .withEnv("KAFKA_PORT", String.valueOf(port))
                  .withEnv("KAFKA_CONTROLLER_PORT", String.valueOf(controllerPort))
                  .withEnv("KAFKA_HEAP", "512m")
                  .withLabel(LABEL, id)
                  .withLogConsumer(logCopy)
                  // Readiness is a client describing the cluster, checked below.
                  .waitingFor(new NoWait());
          // Without Ryuk nothing else removes the container should a test run end without close().
          Thread hook = addHook(container::stop, "kafka-broker-container-shutdown-" + id);
          boolean ready = false;
          try {
            container.start();
            Admin admin =
                BrokerSupport.awaitReady(
                    port, container::isRunning, "container " + shortId(container), logFile);
            ready = true;
            return new ContainerBrokerRuntime(container, id, port, logFile, logCopy, admin, hook);
          } catch (BrokerSupport.BrokerExitedException | ContainerLaunchException e) {
            throw BrokerSupport.startFailed(
                "Kafka broker container from "
                    + image
                    + " stopped during start-up ("
                    + e.getMessage()
                    + "). Tail of "
                    + logFile
                    + ":\n"
                    + BrokerSupport.tail(logFile),
                e,
                logFile,
                logStart);
          } finally {
            if (!ready) {
              container.stop();
              logCopy.close();
              removeHook(hook);
            }
          }
        });
  }

  @Override
  public KafkaBroker.Implementation implementation() {
    return KafkaBroker.Implementation.CONTAINER;
  }

  @Override
  public boolean isRunning() {
    DockerClient docker = DockerClientFactory.instance().client();
    return !docker
        .listContainersCmd()
        .withShowAll(true)
        .withLabelFilter(Map.of(LABEL, id))
        .exec()
        .isEmpty();
  }

  @Override
  public synchronized void stop() {
    if (stopped) {
      return;
    }
    stopped = true;
    try {
      container.stop();
    } finally {
      logCopy.close();
      removeShutdownHook();
    }
  }

  @Override
  public String describe() {
    return HOST
        + ":"
        + port()
        + ", container "
        + shortId(container)
        + " of "
        + container.getDockerImageName()
        + ", log "
        + logFile();
  }

  private static String shortId(GenericContainer<?> container) {
    String containerId = container.getContainerId();
    return containerId == null
        ? "(not created)"
        : containerId.substring(0, Math.min(12, containerId.length()));
  }

  /** Starting returns once the container runs; {@link BrokerSupport#awaitReady} does the rest. */
  private static final class NoWait extends AbstractWaitStrategy {
    @Override
    protected void waitUntilReady() {
      // nothing to wait for here
    }
  }

  /** Appends the container's stdout and stderr to the broker log file until closed. */
  private static final class LogCopy implements Consumer<OutputFrame> {
    private final OutputStream out;
    private boolean closed;

    private LogCopy(OutputStream out) {
      this.out = out;
    }

    static LogCopy open(Path file) throws IOException {
      return new LogCopy(
          Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND));
    }

    @Override
    public synchronized void accept(OutputFrame frame) {
      byte[] bytes = frame.getBytes();
      if (closed || bytes == null) {
        return;
      }
      try {
        out.write(bytes);
        out.flush();
      } catch (IOException e) {
        closed = true; // the test still runs; only the copy of the broker log is cut short
      }
    }

    synchronized void close() {
      closed = true;
      try {
        out.close();
      } catch (IOException ignored) {
        // nothing more to write
      }
    }
  }
}

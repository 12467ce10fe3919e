package io.latelake.core.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/** What both broker implementations share: ports, readiness, log tails. */
final class BrokerSupport {

  static final String HOST = "127.0.0.1";
  static final Duration START_TIMEOUT = Duration.ofMinutes(3);
  static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(30);
  static final int START_ATTEMPTS = 3;
  private static final int LOG_TAIL_LINES = 60;

  private BrokerSupport() {}

  /** The broker stopped before it was ready. */
  static final class BrokerExitedException extends Exception {
    private static final long serialVersionUID = 1L;

    BrokerExitedException() {
      super("the broker stopped before it was ready");
    }
  }

  /** One try at starting a broker whose listeners use the given ports. */
  interface StartAttempt<R> {
    /**
     * @return the broker, ready
     * @throws PortTakenException when another process took one of the ports first
     * @throws IllegalStateException for any other failure to start (no retry)
     */
    R start(int port, int controllerPort, int attempt) throws IOException, PortTakenException;
  }

  /** The broker could not bind a chosen port: worth another try on new ports. */
  static final class PortTakenException extends Exception {
    private static final long serialVersionUID = 1L;

    PortTakenException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * Runs {@code attempt} on free ports, again on new ones when a port was taken between choosing
   * and binding it, at most {@link #START_ATTEMPTS} times.
   *
   * @throws IllegalStateException with the last attempt's message when every attempt failed
   */
  static <R> R startOnFreePorts(StartAttempt<R> attempt) throws IOException {
    PortTakenException last = null;
    for (int n = 1; n <= START_ATTEMPTS; n++) {
      int[] ports = freePorts(2);
      try {
        return attempt.start(ports[0], ports[1], n);
      } catch (PortTakenException e) {
        last = e;
      }
    }
    throw new IllegalStateException(last.getMessage(), last.getCause());
  }

  /**
   * The failure of a start-up whose broker stopped before it was ready: a {@link
   * PortTakenException} when its output since {@code logStart} says a port was taken.
   *
   * @throws IllegalStateException otherwise, with {@code message}
   */
  static PortTakenException startFailed(
      String message, Throwable cause, Path logFile, long logStart) {
    if (!portTaken(logFile, logStart)) {
      throw new IllegalStateException(message, cause);
    }
    return new PortTakenException(message, cause);
  }

  /**
   * Picks {@code count} distinct free TCP ports on {@code 127.0.0.1}. Another process may take one
   * before the broker binds it; the callers start again on new ports when that happens.
   */
  static int[] freePorts(int count) throws IOException {
    // Hold all sockets until every port is chosen so the ports differ.
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      int[] ports = new int[count];
      for (int i = 0; i < count; i++) {
        ServerSocket socket = new ServerSocket();
        sockets.add(socket);
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress(InetAddress.getByName(HOST), 0));
        ports[i] = socket.getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket socket : sockets) {
        socket.close();
      }
    }
  }

  /**
   * Waits until a client can describe the cluster on {@code 127.0.0.1:port} and returns that
   * client.
   *
   * @param alive whether the broker is still running; polled between attempts
   * @return a connected admin client, which the caller closes
   * @throws BrokerExitedException if {@code alive} turned false first
   * @throws IllegalStateException if the broker is not ready within {@link #START_TIMEOUT}
   */
  static Admin awaitReady(int port, BooleanSupplier alive, String what, Path logFile)
      throws BrokerExitedException {
    String bootstrap = HOST + ":" + port;
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    Admin admin = null;
    boolean ready = false;
    try {
      while (true) {
        if (!alive.getAsBoolean()) {
          throw new BrokerExitedException();
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "Kafka broker "
                  + what
                  + " on "
                  + bootstrap
                  + " was not ready within "
                  + START_TIMEOUT.toSeconds()
                  + " s; stopped it. Tail of "
                  + logFile
                  + ":\n"
                  + tail(logFile));
        }
        if (accepts(port)) {
          if (admin == null) {
            admin = Admin.create(adminProps(bootstrap));
          }
          try {
            if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
              ready = true;
              return admin;
            }
          } catch (ExecutionException | TimeoutException notYet) {
            // not ready yet
          }
        }
        sleep(200);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while waiting for the Kafka broker to start", e);
    } finally {
      if (!ready && admin != null) {
        admin.close(Duration.ofSeconds(1));
      }
    }
  }

  static Properties adminProps(String bootstrap) {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    props.put(
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, String.valueOf(CLIENT_TIMEOUT.toMillis()));
    props.put(AdminClientConfig.RECONNECT_BACKOFF_MS_CONFIG, "100");
    props.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "1000");
    return props;
  }

  /** Whether the broker's output since {@code offset} says a listener port was taken. */
  static boolean portTaken(Path logFile, long offset) {
    String output = since(logFile, offset);
    return output.contains("address already in use") || output.contains("bindexception");
  }

  static long size(Path file) {
    try {
      return Files.exists(file) ? Files.size(file) : 0;
    } catch (IOException e) {
      return 0;
    }
  }

  static boolean accepts(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(HOST, port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted", e);
    }
  }

  /** The last lines of a file, for error messages. */
  static String tail(Path file) {
    if (!Files.exists(file)) {
      return "(" + file + " does not exist)";
    }
    try {
      Deque<String> lines = new ArrayDeque<>();
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        lines.addLast(line);
        if (lines.size() > LOG_TAIL_LINES) {
          lines.removeFirst();
        }
      }
      return String.join("\n", lines);
    } catch (IOException | UncheckedIOException e) {
      return "(cannot read " + file + ": " + e + ")";
    }
  }

  private static String since(Path file, long offset) {
    try (InputStream in = Files.newInputStream(file)) {
      in.skipNBytes(Math.min(offset, Files.size(file)));
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).toLowerCase(Locale.ROOT);
    } catch (IOException e) {
      return "";
    }
  }
}

package io.latelake.core.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A server binary installed on this machine (Debian's {@code prometheus}, {@code
 * prometheus-pushgateway}) run for a test on a port of {@code 127.0.0.1}, its output in a log file;
 * {@link #close()} stops it.
 */
public abstract class LocalServer implements AutoCloseable {
  private final Process process;
  private final int port;
  private final Path log;

  /**
   * Starts {@code command} (output to {@code log}) and waits up to {@code ready} until the server
   * answers {@code GET /-/ready} with 200 on {@code port}.
   *
   * @throws IllegalStateException when it exits or does not become ready in time
   */
  protected LocalServer(List<String> command, int port, Path log, Duration ready)
      throws IOException, InterruptedException {
    Files.createDirectories(log.toAbsolutePath().getParent());
    this.process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    this.port = port;
    this.log = log;
    long deadline = System.nanoTime() + ready.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            command.get(0) + " exited with " + process.exitValue() + ": " + Files.readString(log));
      }
      try {
        if (get("/-/ready").statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(100);
    }
    close();
    throw new IllegalStateException(
        command.get(0) + " did not become ready in " + ready + ": " + log);
  }

  /**
   * @return the executable {@code name} on the PATH, empty when it is not installed
   */
  public static Optional<Path> onPath(String name) {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      Path p = Path.of(dir, name);
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /**
   * @return its base URL, {@code http://127.0.0.1:<port>}
   */
  public String url() {
    return "http://127.0.0.1:" + port;
  }

  /** {@code GET path} on the server (5 s timeout). */
  protected HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create(url() + path)).timeout(Duration.ofSeconds(5)).build(),
            HttpResponse.BodyHandlers.ofString());
  }

  public Path log() {
    return log;
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}

package io.latelake.core.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real Prometheus Pushgateway for tests: Debian's {@code prometheus-pushgateway} binary (on the
 * PATH; {@code .ci/run} installs it) listening on a free port of {@code 127.0.0.1}, without a
 * persistence file. Close it (try-with-resources or {@code @AfterAll}); its output goes to a log
 * file in the given folder.
 */
public final class Pushgateways implements AutoCloseable {
  /** The binary's name, as Debian's package installs it. */
  public static final String BINARY = "prometheus-pushgateway";

  private final Process process;
  private final int port;
  private final Path log;

  private Pushgateways(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /**
   * @return the binary's path, empty when it is not installed
   */
  public static Optional<Path> binary() {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      Path p = Path.of(dir, BINARY);
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /**
   * Starts a Pushgateway and waits (up to 30 s) until it answers {@code /-/ready}.
   *
   * @param workDir where its log goes
   * @throws IllegalStateException when it is not installed or does not become ready
   */
  public static Pushgateways start(Path workDir) throws IOException, InterruptedException {
    Path bin =
        binary()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        BINARY + " is not installed (Debian: apt-get install " + BINARY + ")"));
    int port = freePort();
    Files.createDirectories(workDir);
    Path log = workDir.resolve("pushgateway.log");
    Process p =
        new ProcessBuilder(
                bin.toString(), "--web.listen-address=127.0.0.1:" + port, "--persistence.file=")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    Pushgateways g = new Pushgateways(p, port, log);
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() < deadline) {
      if (!p.isAlive()) {
        throw new IllegalStateException(
            BINARY + " exited with " + p.exitValue() + ": " + Files.readString(log));
      }
      try {
        if (g.get("/-/ready").statusCode() == 200) {
          return g;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(100);
    }
    g.close();
    throw new IllegalStateException(BINARY + " did not become ready in 30 s: " + log);
  }

  /**
   * @return its base URL, {@code http://127.0.0.1:<port>}
   */
  public String url() {
    return "http://127.0.0.1:" + port;
  }

  /**
   * The values of one metric in the Pushgateway's {@code /metrics}, for the series whose labels
   * include every given {@code name="value"} pair.
   *
   * @param labels label pairs, e.g. {@code "job", "latelake-correct"}
   * @return each matching series' value, in the order listed
   */
  public List<Double> values(String metric, String... labels)
      throws IOException, InterruptedException {
    String body = get("/metrics").body();
    Pattern line =
        Pattern.compile("^" + Pattern.quote(metric) + "\\{([^}]*)\\} (\\S+)$", Pattern.MULTILINE);
    List<Double> out = new ArrayList<>();
    Matcher m = line.matcher(body);
    while (m.find()) {
      boolean all = true;
      for (int i = 0; i < labels.length; i += 2) {
        all &= m.group(1).contains(labels[i] + "=\"" + labels[i + 1] + "\"");
      }
      if (all) {
        out.add(Double.parseDouble(m.group(2)));
      }
    }
    return out;
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create(url() + path)).timeout(Duration.ofSeconds(5)).build(),
            HttpResponse.BodyHandlers.ofString());
  }

  /**
   * @return a port nothing listens on now
   */
  public static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  public Path log() {
    return log;
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}

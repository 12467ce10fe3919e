package io.latelake.core.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * A real Prometheus server for tests: Debian's {@code prometheus} binary on a free port of {@code
 * 127.0.0.1} with a given configuration, its data in a temporary folder. Close it.
 */
public final class PrometheusServer implements AutoCloseable {
  private final Process process;
  private final int port;
  private final Path log;

  private PrometheusServer(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /**
   * @return the binary's path, empty when it is not installed
   */
  public static Optional<Path> binary() {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      Path p = Path.of(dir, "prometheus");
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /**
   * Starts Prometheus with the configuration {@code configText} (rule files it names are copied
   * from {@code ruleDir}), and waits (up to 60 s) until it answers {@code /-/ready}.
   */
  public static PrometheusServer start(Path workDir, String configText, Path ruleDir)
      throws IOException, InterruptedException {
    Path bin = binary().orElseThrow(() -> new IllegalStateException("prometheus is not installed"));
    Files.createDirectories(workDir);
    Path config = workDir.resolve("prometheus.yml");
    Files.writeString(config, configText);
    try (var rules = Files.list(ruleDir)) {
      for (Path r : rules.filter(f -> f.toString().endsWith(".rules.yml")).toList()) {
        Files.copy(r, workDir.resolve(r.getFileName()));
      }
    }
    int port = Pushgateways.freePort();
    Path log = workDir.resolve("prometheus.log");
    Process p =
        new ProcessBuilder(
                bin.toString(),
                "--config.file=" + config,
                "--storage.tsdb.path=" + workDir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    PrometheusServer s = new PrometheusServer(p, port, log);
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      if (!p.isAlive()) {
        throw new IllegalStateException(
            "prometheus exited with " + p.exitValue() + ": " + Files.readString(log));
      }
      try {
        if (s.get("/-/ready").statusCode() == 200) {
          return s;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(200);
    }
    s.close();
    throw new IllegalStateException("prometheus did not become ready in 60 s: " + log);
  }

  /**
   * @return how many series an instant query returns
   * @throws IllegalStateException when the query fails
   */
  public int seriesCount(String promql) throws IOException, InterruptedException {
    return result(promql).size();
  }

  private JsonNode result(String promql) throws IOException, InterruptedException {
    HttpResponse<String> r =
        get("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
    JsonNode json = new ObjectMapper().readTree(r.body());
    if (!"success".equals(json.path("status").asText())) {
      throw new IllegalStateException(promql + ": " + r.body());
    }
    return json.path("data").path("result");
  }

  /**
   * Runs an instant query through the HTTP API.
   *
   * @return the value of its single series, empty when the result has no series
   * @throws IllegalStateException when the query fails or returns several series
   */
  public Optional<Double> value(String promql) throws IOException, InterruptedException {
    JsonNode result = result(promql);
    if (result.size() > 1) {
      throw new IllegalStateException(promql + " returned " + result.size() + " series");
    }
    return result.isEmpty()
        ? Optional.empty()
        : Optional.of(Double.parseDouble(result.get(0).path("value").get(1).asText()));
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
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

package io.latelake.core.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A real Prometheus server for tests: Debian's {@code prometheus} binary on a free port of {@code
 * 127.0.0.1} with a given configuration, its data in a temporary folder. Close it.
 */
public final class PrometheusServer extends LocalServer {
  private PrometheusServer(Path bin, int port, Path workDir)
      throws IOException, InterruptedException {
    super(
        List.of(
            bin.toString(),
            "--config.file=" + workDir.resolve("prometheus.yml"),
            "--storage.tsdb.path=" + workDir.resolve("data"),
            "--web.listen-address=127.0.0.1:" + port),
        port,
        workDir.resolve("prometheus.log"),
        Duration.ofSeconds(60));
  }

  /**
   * @return the binary's path, empty when it is not installed
   */
  public static Optional<Path> binary() {
    return onPath("prometheus");
  }

  /**
   * Starts Prometheus with the configuration {@code configText} (rule files it names are copied
   * from {@code ruleDir}), and waits (up to 60 s) until it answers {@code /-/ready}.
   */
  public static PrometheusServer start(Path workDir, String configText, Path ruleDir)
      throws IOException, InterruptedException {
    Path bin = binary().orElseThrow(() -> new IllegalStateException("prometheus is not installed"));
    Files.createDirectories(workDir);
    Files.writeString(workDir.resolve("prometheus.yml"), configText);
    try (var rules = Files.list(ruleDir)) {
      for (Path r : rules.filter(f -> f.toString().endsWith(".rules.yml")).toList()) {
        Files.copy(r, workDir.resolve(r.getFileName()));
      }
    }
    return new PrometheusServer(bin, Pushgateways.freePort(), workDir);
  }

  /**
   * @return how many series an instant query returns
   * @throws IllegalStateException when the query fails
   */
  public int seriesCount(String promql) throws IOException, InterruptedException {
    return result(promql).size();
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

  private JsonNode result(String promql) throws IOException, InterruptedException {
    HttpResponse<String> r =
        get("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
    JsonNode json = new ObjectMapper().readTree(r.body());
    if (!"success".equals(json.path("status").asText())) {
      throw new IllegalStateException(promql + ": " + r.body());
    }
    return json.path("data").path("result");
  }
}

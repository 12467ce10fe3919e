package io.latelake.core.metrics;

import com.typesafe.config.Config;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.config.Settings;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pushes a batch command's run figures to a Prometheus Pushgateway, the convention for jobs run by
 * cron or Airflow, whose process is gone before Prometheus could scrape it. Off unless {@code
 * lake.metrics.pushgateway} is set.
 *
 * <p>Grouping key: {@code job} = the command's Spark application name ({@code latelake-correct},
 * ...). A run that ended (exit 0 or 3: it did its work, 3 says it found differences or raised
 * alerts) replaces its group (HTTP PUT) with the command's figures plus {@code
 * latelake_job_duration_seconds}, {@code latelake_job_exit_code} and {@code
 * latelake_job_last_success_timestamp_seconds}; a run that failed (exit 1 or 2) adds {@code
 * latelake_job_duration_seconds}, {@code latelake_job_exit_code} and {@code
 * latelake_job_last_failure_timestamp_seconds} to the group (HTTP POST), so the last success time
 * and figures stay for the alert on a job that has not succeeded for too long. The text exposition
 * format is written by the Prometheus Java client library.
 *
 * <p>A push that fails (unreachable, refused, timeout) logs one WARN line and never changes the
 * command's exit code.
 */
public final class Pushgateway {
  private static final Logger LOG = LoggerFactory.getLogger(Pushgateway.class);

  /** Config key of the Pushgateway's base URL ({@code http://host:9091}); empty: off. */
  public static final String KEY = "lake.metrics.pushgateway";

  private final URI base;
  private final Duration timeout;

  private Pushgateway(URI base, Duration timeout) {
    this.base = base;
    this.timeout = timeout;
  }

  /**
   * @return the Pushgateway of {@code lake.metrics}, empty when {@code pushgateway} is not set
   * @throws LakeConfigException (exit 2) when the URL is not an http(s) URL with a host
   */
  public static Optional<Pushgateway> fromConfig(Config root) {
    Settings s = Settings.of(root).sub("lake.metrics");
    String url = s.optionalString("pushgateway");
    io.latelake.core.config.ConfigChecks.describe(
        s.key("pushgateway"), "empty (off), or an http(s) URL with a host");
    if (url.isEmpty()) {
      return Optional.empty();
    }
    URI uri;
    try {
      uri = URI.create(url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
    } catch (IllegalArgumentException e) {
      throw LakeConfigException.invalid(
          s.key("pushgateway"), url, "expected a URL such as http://127.0.0.1:9091");
    }
    if (uri.getHost() == null
        || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
      throw LakeConfigException.invalid(
          s.key("pushgateway"), url, "expected a URL such as http://127.0.0.1:9091");
    }
    return Optional.of(new Pushgateway(uri, s.positiveDuration("push-timeout")));
  }

  /**
   * Pushes one run's figures under {@code job}; logs a WARN line when the push fails.
   *
   * @param job the grouping key's job, e.g. {@code latelake-correct}
   * @param exitCode the command's exit code
   * @param duration its wall time
   * @param at when it ended
   * @param figures what the command reported (ignored when the run failed)
   * @return true when the Pushgateway accepted the push
   */
  public boolean push(String job, int exitCode, Duration duration, Instant at, RunFigures figures) {
    boolean success = exitCode == 0 || exitCode == 3;
    RunFigures all = new RunFigures();
    all.gauge(
        "latelake_job_duration_seconds",
        "Wall time of the command's last run, in seconds.",
        duration.toNanos() / 1e9);
    all.gauge(
        "latelake_job_exit_code",
        "Exit code of the command's last run (0 ok, 1 failed, 2 usage or config, 3 differences "
            + "or alerts).",
        exitCode);
    if (success) {
      all.gauge(
          "latelake_job_last_success_timestamp_seconds",
          "When the command last ended with exit 0 or 3 (Unix time, seconds).",
          at.toEpochMilli() / 1000.0);
      figures.figures().forEach(f -> add(all, f));
    } else {
      all.gauge(
          "latelake_job_last_failure_timestamp_seconds",
          "When the command last failed with exit 1 or 2 (Unix time, seconds).",
          at.toEpochMilli() / 1000.0);
    }
    String body = text(all);
    URI uri = URI.create(base + "/metrics/job/" + URLEncoder.encode(job, StandardCharsets.UTF_8));
    try {
      HttpClient client = HttpClient.newBuilder().connectTimeout(timeout).build();
      HttpRequest request =
          HttpRequest.newBuilder(uri)
              .timeout(timeout)
              .header("Content-Type", PrometheusTextFormatWriter.CONTENT_TYPE)
              .method(success ? "PUT" : "POST", HttpRequest.BodyPublishers.ofString(body))
              .build();
      HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() / 100 != 2) {
        LOG.warn(
            "Pushgateway {} refused the figures of {} (HTTP {}): {}",
            uri,
            job,
            response.statusCode(),
            response.body().strip());
        return false;
      }
      LOG.info("pushed {} figures of {} to {}", all.figures().size(), job, uri);
      return true;
    } catch (IOException | RuntimeException e) {
      LOG.warn("Could not push the figures of {} to {}: {}", job, uri, e.toString());
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      LOG.warn("Push of the figures of {} to {} interrupted", job, uri);
      return false;
    }
  }

  private static void add(RunFigures to, RunFigures.Figure f) {
    List<String> pairs = new ArrayList<>();
    f.labels()
        .forEach(
            (k, v) -> {
              pairs.add(k);
              pairs.add(v);
            });
    to.gauge(f.name(), f.help(), f.value(), pairs.toArray(String[]::new));
  }

  /**
   * @return the figures in Prometheus's text exposition format (one gauge family per name)
   */
  static String text(RunFigures figures) {
    PrometheusRegistry registry = new PrometheusRegistry();
    Map<String, Gauge> gauges = new LinkedHashMap<>();
    for (RunFigures.Figure f : figures.figures()) {
      Gauge g =
          gauges.computeIfAbsent(
              f.name(),
              n ->
                  Gauge.builder()
                      .name(n)
                      .help(f.help())
                      .labelNames(f.labels().keySet().stream().sorted().toArray(String[]::new))
                      .register(registry));
      String[] values =
          f.labels().keySet().stream().sorted().map(f.labels()::get).toArray(String[]::new);
      if (values.length == 0) {
        g.set(f.value());
      } else {
        g.labelValues(values).set(f.value());
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      PrometheusTextFormatWriter.create().write(out, registry.scrape());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return out.toString(StandardCharsets.UTF_8);
  }
}

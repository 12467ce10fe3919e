package io.latelake.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The Prometheus rules in {@code conf/prometheus} against Prometheus's own checker: {@code promtool
 * check rules} and {@code promtool test rules} (the series that must and must not fire each alert
 * are in {@code latelake-batch.rules.test.yml} and {@code latelake-streams.rules.test.yml}) and
 * {@code promtool check config} over the example {@code prometheus.yml}. Needs Debian's {@code
 * prometheus} package, which {@code .ci/run} installs.
 */
class PrometheusRulesTest {
  static final Path DIR = Path.of("..", "conf", "prometheus").toAbsolutePath().normalize();

  static String promtool(String... args) throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of("promtool"));
    command.addAll(List.of(args));
    Process p =
        new ProcessBuilder(command).directory(DIR.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }

  static boolean installed() {
    return io.latelake.core.testing.LocalServer.onPath("promtool").isPresent();
  }

  @Test
  void theRulesAreValidAndFireExactlyWhenTheirTestSeriesSay() throws Exception {
    assumeTrue(
        installed(),
        "promtool is not installed (.ci/run installs it; Debian: apt-get install prometheus)");
    assertThat(promtool("check", "rules", "latelake-batch.rules.yml"))
        .contains("SUCCESS: 5 rules found");
    assertThat(promtool("test", "rules", "latelake-batch.rules.test.yml")).contains("SUCCESS");
    assertThat(promtool("check", "rules", "latelake-streams.rules.yml"))
        .contains("SUCCESS: 6 rules found");
    assertThat(promtool("test", "rules", "latelake-streams.rules.test.yml")).contains("SUCCESS");
    // the example configuration, with both rule files
    assertThat(promtool("check", "config", "prometheus.yml"))
        .contains("SUCCESS: 2 rule files found");
  }
}

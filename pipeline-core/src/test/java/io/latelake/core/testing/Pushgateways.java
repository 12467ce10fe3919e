package io.latelake.core.testing;

import java.io.IOException;
import java.net.ServerSocket;
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
public final class Pushgateways extends LocalServer {
  /** The binary's name, as Debian's package installs it. */
  public static final String BINARY = "prometheus-pushgateway";

  private Pushgateways(Path bin, int port, Path workDir) throws IOException, InterruptedException {
    super(
        List.of(bin.toString(), "--web.listen-address=127.0.0.1:" + port, "--persistence.file="),
        port,
        workDir.resolve("pushgateway.log"),
        Duration.ofSeconds(30));
  }

  /**
   * @return the binary's path, empty when it is not installed
   */
  public static Optional<Path> binary() {
    return onPath(BINARY);
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
    return new Pushgateways(bin, freePort(), workDir);
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

  /**
   * @return a port nothing listens on now
   */
  public static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}

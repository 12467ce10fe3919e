package io.latelake.correction;

import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.core.cli.Launcher;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input fails before Spark starts, with exit code 2, a message naming the option and value, and
 * nothing written under lake.root.
 */
class MainsExitCodeTest {
  @TempDir Path tmp;

  private String[] args(Path root, String... extra) {
    List<String> a =
        new ArrayList<>(
            List.of(
                "--set", "lake.root=\"" + root + "\"",
                "--set", "lake.event.fields=[{name=page, type=string}, {name=value, type=long}]",
                "--set",
                    "lake.gold.metrics.page_5m={window=\"5 minutes\", group-by=[page], "
                        + "measures=[{name=events, function=count}]}"));
    a.addAll(List.of(extra));
    return a.toArray(String[]::new);
  }

  private int run(Object command, StringWriter err, String... args) {
    // Launcher.execute builds its own CommandLine: capture stderr through System.err.
    java.io.PrintStream old = System.err;
    java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(buf, true));
    try {
      return Launcher.execute(command, args);
    } finally {
      System.setErr(old);
      err.write(buf.toString());
    }
  }

  @Test
  void rebuildRefusesAnInjectedDateWithExit2AndWritesNothing() {
    Path root = tmp.resolve("lake");
    StringWriter err = new StringWriter();
    int code =
        run(
            new RebuildMain(),
            err,
            args(root, "--from", "2024-01-01' OR '1'='1", "--to", "2024-01-02"));
    assertThat(code).isEqualTo(2);
    assertThat(err.toString())
        .contains(
            "latelake: Invalid value '2024-01-01' OR '1'='1' for option "
                + "'--from': expected a date yyyy-MM-dd (UTC)");
    assertThat(Files.exists(root)).isFalse();
  }

  @Test
  void auditCascadeCorrectAndAsofRefuseBadArgumentsWithExit2() {
    Path root = tmp.resolve("lake");
    StringWriter err = new StringWriter();
    assertThat(run(new AuditMain(), err, args(root, "--from", "2024-13-01", "--to", "2024-12-31")))
        .isEqualTo(2);
    assertThat(run(new CascadeMain(), err, args(root, "--metric", "nope"))).isEqualTo(2);
    assertThat(run(new CorrectMain(), err, args(root, "--since", "1' OR '1'='1"))).isEqualTo(2);
    assertThat(
            run(
                new AsOfMain(),
                err,
                args(root, "--metric", "page_5m", "--table-version", "1; DROP")))
        .isEqualTo(2);
    assertThat(run(new ApplyCorrectionsMain(), err, args(root, "--metric", "page_5m", "--all")))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains(
            "Invalid value '2024-13-01' for option '--from': is not a calendar date",
            "Invalid value 'nope' for option '--metric': no such metric in lake.gold.metrics; "
                + "configured: [page_5m]",
            "Invalid value '1' OR '1'='1' for option '--since'",
            "Invalid value '1; DROP' for option '--table-version'",
            "Invalid value 'page_5m' for option '--metric': its late-policy is restate, not reconcile");
    assertThat(Files.exists(root)).isFalse();
  }
}

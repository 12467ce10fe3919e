package io.latelake.correction;

import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.core.cli.Launcher;
import io.latelake.core.testing.SparkTestBase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults that are the user's input or the storage's, not latelake's: one line on standard error
 * with a documented exit code, no stack trace there.
 */
class FaultLinesTest extends SparkTestBase {
  @TempDir Path tmp;

  private record Outcome(int code, String err) {}

  private Outcome asof(Path root, String... extra) {
    List<String> a =
        new ArrayList<>(
            List.of(
                "--set",
                "lake.root=\"" + root + "\"",
                "--set",
                "lake.event.fields=[{name=page, type=string}]",
                "--set",
                "lake.gold.metrics.page_5m={window=\"5 minutes\", group-by=[page], "
                    + "measures=[{name=events, function=count}]}",
                "--metric",
                "page_5m"));
    a.addAll(List.of(extra));
    PrintStream old = System.err;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
    try {
      int code = Launcher.execute(new AsOfMain(), a.toArray(String[]::new));
      return new Outcome(code, buf.toString(StandardCharsets.UTF_8));
    } finally {
      System.setErr(old);
    }
  }

  private String gold(Path root) {
    String gold = root.resolve("gold/page_5m").toString();
    spark.sql(
        "CREATE TABLE delta.`"
            + gold
            + "` (window_start TIMESTAMP, window_end TIMESTAMP, page STRING, events BIGINT, "
            + "updated_at TIMESTAMP, corrected_at TIMESTAMP) USING delta");
    spark.sql(
        "INSERT INTO delta.`"
            + gold
            + "` VALUES (TIMESTAMP'2024-05-14 10:00:00', TIMESTAMP'2024-05-14 10:05:00', '/a', "
            + "1, TIMESTAMP'2024-05-14 10:06:00', NULL)");
    return gold;
  }

  /** The lines of standard error that are not log lines (the console log has a time first). */
  private static List<String> messages(String err) {
    return err.lines().filter(l -> !l.matches("^\\d\\d:\\d\\d:\\d\\d.*")).toList();
  }

  /**
   * One test: {@code asof} ends the session it runs in (as every command does), so both lakes are
   * made before the first command runs.
   */
  @Test
  void retentionAndDamagedCommitAreOneLineEach() throws Exception {
    Path retention = tmp.resolve("retention");
    String retained = gold(retention);
    spark.sql(
        "ALTER TABLE delta.`"
            + retained
            + "` SET TBLPROPERTIES ('delta.deletedFileRetentionDuration' = 'interval 1 seconds')");
    Path damaged = tmp.resolve("damaged");
    String gold = gold(damaged);
    Path commit = Path.of(gold, "_delta_log", "00000000000000000001.json");
    byte[] bytes = Files.readAllBytes(commit);
    Files.write(commit, Arrays.copyOf(bytes, bytes.length / 2));
    Thread.sleep(2000);

    // Time travel beyond the retention: the user's input, exit 2.
    Outcome o = asof(retention, "--table-version", "0");
    assertThat(o.code()).isEqualTo(2);
    assertThat(messages(o.err()))
        .containsExactly(
            "latelake: Invalid value '0' for option '--table-version': gold.page_5m keeps older "
                + "versions' files only for its delta.deletedFileRetentionDuration, so time travel "
                + "cannot reach this version (Cannot time travel beyond "
                + "delta.deletedFileRetentionDuration (0 HOURS) set on the table.)");

    // A damaged commit: one line naming the table, the file and the remedy, exit 1.
    o = asof(damaged, "--table-version", "0");
    assertThat(o.code()).isEqualTo(1);
    assertThat(messages(o.err()))
        .containsExactly(
            "latelake: asof failed: Cannot read Delta table file:"
                + gold
                + ": its log file _delta_log/00000000000000000001.json is damaged "
                + "(ChecksumException). Restore that file from a backup or the storage's "
                + "versioning; a table latelake derives (silver, gold, rollups, monitoring) can "
                + "instead be moved aside and rebuilt from bronze (README, \"Running in "
                + "production\").");
    assertThat(o.err()).doesNotContain("\tat ");
  }
}

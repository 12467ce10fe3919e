package io.latelake.bronze;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.latelake.core.cli.Launcher;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The storage under lake.root refuses writes: a full device and a read-only file system, made real
 * with a small tmpfs mounted for the test (needs root and {@code mount}; skipped with the reason
 * otherwise, as on a developer's machine without root). {@code latelake bronze} must exit 1 with
 * one line saying what the storage refused, and after the storage is fixed the same command must
 * leave bronze with every record exactly once: nothing already written lost, nothing doubled.
 */
class StorageFaultsTest {
  private static final int RECORDS = 3000;

  @TempDir Path tmp;
  private Path mounted;

  private record Outcome(int code, List<String> lines) {}

  private static boolean sh(String... cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    return p.waitFor() == 0;
  }

  /**
   * Unmounts the tmpfs; when a file on it is still open (a thread of the test's Spark session that
   * has not closed its stream yet, on a slow machine), detaches it instead ({@code umount -l}: the
   * kernel frees it once the file is closed), so the temporary folder can be deleted.
   */
  @AfterEach
  void unmount() throws Exception {
    if (mounted != null && !sh("umount", mounted.toString())) {
      assertThat(sh("umount", "-l", mounted.toString())).as("umount -l " + mounted).isTrue();
    }
  }

  /** Lands {@code n} records of about 130 bytes that do not compress (random pages). */
  private static void land(Path landing, String file, int from, int n) throws IOException {
    Random random = new Random(from);
    StringBuilder b = new StringBuilder();
    for (int i = from; i < from + n; i++) {
      StringBuilder page = new StringBuilder();
      for (int c = 0; c < 100; c++) {
        page.append((char) ('a' + random.nextInt(26)));
      }
      b.append("{\"event_id\":\"e")
          .append(i)
          .append("\",\"event_time\":\"2024-05-14T10:00:00Z\",\"page\":\"")
          .append(page)
          .append("\",\"value\":1}\n");
    }
    Files.createDirectories(landing);
    Files.writeString(landing.resolve(file), b.toString());
  }

  private Outcome bronze(Path root, Path landing) {
    PrintStream old = System.err;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
    int code;
    try {
      System.setProperty("spark.master", "local[2]");
      System.setProperty("spark.ui.enabled", "false");
      code =
          Launcher.execute(
              new BronzeMain(),
              "--set",
              "lake.root=\"" + root + "\"",
              "--set",
              "lake.bronze.files.path=\"" + landing + "\"",
              "--set",
              "lake.event.fields=[{name=page, type=string}, {name=value, type=long}]",
              "--set",
              "lake.catalog.enabled=false");
    } finally {
      System.setErr(old);
    }
    List<String> lines =
        buf.toString(StandardCharsets.UTF_8)
            .lines()
            .filter(l -> l.startsWith("latelake: "))
            .toList();
    return new Outcome(code, lines);
  }

  private static long[] bronzeCounts(Path root) {
    SparkSession spark =
        io.latelake.core.spark.SparkSessions.create(
            "StorageFaultsTest",
            io.latelake.core.config.ConfigLoader.load(java.util.Optional.empty(), List.of()));
    try {
      var r =
          spark
              .read()
              .format("delta")
              .load(root + "/bronze/events")
              .selectExpr("count(*)", "count(DISTINCT event_id)")
              .first();
      return new long[] {r.getLong(0), r.getLong(1)};
    } finally {
      spark.stop();
    }
  }

  @Test
  void aFullDeviceAndAReadOnlyFileSystemAreOneLineAndLoseNothing() throws Exception {
    mounted = Files.createDirectories(tmp.resolve("lake-volume"));
    assumeTrue(
        sh("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", mounted.toString()),
        "needs root and mount (a tmpfs for lake.root)");
    Path root = mounted.resolve("lake");
    Path landing = tmp.resolve("landing");

    // A first file fits: bronze holds it.
    land(landing, "a.jsonl", 0, RECORDS);
    assertThat(bronze(root, landing).code()).isZero();

    // The file system turns read-only; a second file cannot be written.
    land(landing, "b.jsonl", RECORDS, RECORDS);
    assertThat(sh("mount", "-o", "remount,ro", mounted.toString())).isTrue();
    Outcome ro = bronze(root, landing);
    assertThat(ro.code()).isEqualTo(1);
    assertThat(ro.lines()).hasSize(1);
    assertThat(ro.lines().get(0))
        .startsWith("latelake: bronze failed: The storage refused a write")
        .endsWith(
            ": the file system is read-only. Nothing committed is lost: fix the storage and start"
                + " the same command again (a stream replays the micro-batch from its"
                + " checkpoint).");

    // Writable again but nearly full: the device runs out of space.
    assertThat(sh("mount", "-o", "remount,rw,size=" + sizeFor(mounted), mounted.toString()))
        .isTrue();
    Outcome full = bronze(root, landing);
    assertThat(full.code()).isEqualTo(1);
    assertThat(full.lines()).hasSize(1);
    assertThat(full.lines().get(0))
        .startsWith("latelake: bronze failed: The storage refused a write")
        .contains(": no space is left on the device. Nothing committed is lost");

    // Room again: the same command finishes, every record exactly once.
    assertThat(sh("mount", "-o", "remount,size=64m", mounted.toString())).isTrue();
    assertThat(bronze(root, landing).code()).isZero();
    assertThat(bronzeCounts(root)).containsExactly(2L * RECORDS, 2L * RECORDS);
  }

  /** A tmpfs size (in KiB, as mount takes it) leaving about 40 KiB free: less than a file. */
  private static String sizeFor(Path volume) throws IOException {
    long used =
        Files.getFileStore(volume).getTotalSpace() - Files.getFileStore(volume).getUsableSpace();
    return (used / 1024 + 40) + "k";
  }
}

package io.latelake.core.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latelake.core.config.LakeConfigException;
import io.latelake.core.testing.SparkTestBase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bronze's change read on a table with bronze's two columns it reads: the windows of the valid rows
 * committed after a version, a version whose log is gone, and the folders of killed reads.
 */
class BronzeChangeReadTest extends SparkTestBase {
  static final StructType SCHEMA =
      new StructType()
          .add("event_time", DataTypes.TimestampType)
          .add("error", DataTypes.StringType);
  static final Duration WINDOW = Duration.ofSeconds(10);

  @TempDir static Path tables;

  static String bronze;

  @BeforeAll
  void bronzeWithThreeVersions() {
    bronze = tables.resolve("bronze").toString();
    append(bronze, "2014-11-10T12:00:05Z", null); // version 0
    append(bronze, "2014-11-10T12:00:15Z", null, "2014-11-10T12:00:45Z", "bad payload"); // 1
    append(bronze, "2014-11-10T12:00:31Z", null, "2014-11-10T12:00:39Z", null); // 2
  }

  void append(String path, Object... timeAndError) {
    List<Row> rows = new java.util.ArrayList<>();
    for (int i = 0; i < timeAndError.length; i += 2) {
      rows.add(
          RowFactory.create(
              Timestamp.from(Instant.parse((String) timeAndError[i])), timeAndError[i + 1]));
    }
    spark.createDataFrame(rows, SCHEMA).write().format("delta").mode("append").save(path);
  }

  @Test
  void theWindowsOfTheValidRowsCommittedAfterTheVersion(@TempDir Path folders) throws IOException {
    assertThat(
            BronzeChangeRead.windowsAfter(
                spark, bronze, "m", "change_read_m", 0, 2, WINDOW, folders))
        .containsExactly(
            Instant.parse("2014-11-10T12:00:10Z"), Instant.parse("2014-11-10T12:00:30Z"));
    assertThat(BronzeChangeRead.windowsAfter(spark, bronze, "m", null, 1, 2, WINDOW, folders))
        .containsExactly(Instant.parse("2014-11-10T12:00:30Z"));
    assertThat(BronzeChangeRead.windowsAfter(spark, bronze, "m", null, 2, 2, WINDOW, folders))
        .isEmpty();
    try (Stream<Path> left = Files.list(folders)) {
      assertThat(left).isEmpty();
    }
  }

  @Test
  void aVersionWhoseLogIsGoneIsAUsageErrorThatSaysToRescan(@TempDir Path tmp) throws IOException {
    String cleaned = tmp.resolve("bronze").toString();
    for (int i = 0; i < 12; i++) {
      append(cleaned, "2014-11-10T12:00:0" + (i % 10) + "Z", null);
    }
    // What Delta's log cleanup does to commits older than delta.logRetentionDuration once a
    // checkpoint (here version 10) covers them; the cleanup itself keeps whole days, so the test
    // removes the first six commit files as it would.
    for (int v = 0; v < 6; v++) {
      Files.delete(tmp.resolve("bronze/_delta_log/" + String.format("%020d.json", v)));
    }
    Path folders = Files.createDirectory(tmp.resolve("folders"));
    assertThatThrownBy(
            () ->
                BronzeChangeRead.windowsAfter(
                    spark, cleaned, "events_per_device_10s", null, 2, 11, WINDOW, folders))
        .isExactlyInstanceOf(LakeConfigException.class)
        .hasMessageStartingWith(
            "bronze_events no longer keeps version 3, where the change read of"
                + " events_per_device_10s starts ([DELTA_VERSION_NOT_FOUND]")
        .hasMessageContaining("Run `correct --since <instant>` once");
    try (Stream<Path> left = Files.list(folders)) {
      assertThat(left).isEmpty();
    }
    assertThat(BronzeChangeRead.windowsAfter(spark, cleaned, "m", null, 9, 11, WINDOW, folders))
        .containsExactly(Instant.parse("2014-11-10T12:00:00Z"));
  }

  /**
   * Folders of reads in a temporary directory: one killed (its lock file old and unlocked), one of
   * a read running in another process (its lock held by a child JVM), one whose read is starting (a
   * lock file younger than ten minutes), one killed before it made its lock file (no lock file, two
   * hours old), one just created. Only the two killed ones go.
   */
  @Test
  void theFoldersOfKilledReadsAreRemovedAndThoseInUseKept(@TempDir Path tmp) throws Exception {
    FileTime twentyMinutesAgo = FileTime.from(Instant.now().minus(Duration.ofMinutes(20)));
    Path killed = folder(tmp, "1");
    Files.createDirectories(killed.resolve("checkpoint/offsets"));
    Files.setLastModifiedTime(
        Files.writeString(killed.resolve("owner.lock"), ""), twentyMinutesAgo);
    Path running = folder(tmp, "2");
    Path starting = folder(tmp, "3");
    Files.writeString(starting.resolve("owner.lock"), "");
    Path killedAsItStarted = folder(tmp, "4");
    Files.setLastModifiedTime(
        killedAsItStarted, FileTime.from(Instant.now().minus(Duration.ofHours(2))));
    Path created = folder(tmp, "5");
    Path other = Files.createDirectory(tmp.resolve("other-folder"));

    Path lockFile = running.resolve("owner.lock");
    Path holder = tmp.resolve("LockHolder.java");
    Files.writeString(
        holder,
        "import java.nio.channels.FileChannel; import java.nio.file.*;\n"
            + "public class LockHolder { public static void main(String[] a) throws Exception {\n"
            + "  try (FileChannel c = FileChannel.open(Path.of(a[0]), StandardOpenOption.CREATE,"
            + " StandardOpenOption.WRITE); var l = c.lock()) {\n"
            + "    System.out.println(\"locked\"); System.out.flush(); System.in.read(); } } }\n");
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                holder.toString(),
                lockFile.toString())
            .redirectErrorStream(true)
            .start();
    try (var out = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream()))) {
      assertThat(out.readLine()).isEqualTo("locked");
      Files.setLastModifiedTime(lockFile, twentyMinutesAgo);
      assertThat(BronzeChangeRead.removeLeftOvers(tmp)).isEqualTo(2);
    } finally {
      p.getOutputStream().close();
      p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
      p.destroyForcibly();
    }
    try (Stream<Path> left = Files.list(tmp)) {
      assertThat(left.map(f -> f.getFileName().toString()))
          .containsExactlyInAnyOrder(
              running.getFileName().toString(),
              starting.getFileName().toString(),
              created.getFileName().toString(),
              other.getFileName().toString(),
              holder.getFileName().toString());
    }
    // the holder has ended: its folder is a left-over now
    assertThat(BronzeChangeRead.removeLeftOvers(tmp)).isEqualTo(1);
    assertThat(running).doesNotExist();
  }

  private static Path folder(Path tmp, String suffix) throws IOException {
    return Files.createDirectory(tmp.resolve(BronzeChangeRead.PREFIX + suffix));
  }
}

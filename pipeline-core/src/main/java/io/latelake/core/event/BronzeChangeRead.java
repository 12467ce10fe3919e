package io.latelake.core.event;

import static org.apache.spark.sql.functions.col;

import io.latelake.core.config.LakeConfigException;
import io.latelake.core.metric.MetricAggregation;
import io.latelake.core.streaming.StreamFailedException;
import io.latelake.core.table.StorageException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.TimeoutException;
import org.apache.spark.SparkThrowable;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.DataStreamWriter;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The event-time windows touched by the valid bronze rows committed after a given bronze version:
 * Delta's own change read (bronze as a Delta streaming source from {@code startingVersion}, {@code
 * Trigger.AvailableNow}, {@code skipChangeCommits}: bronze is append-only, and commits that only
 * rewrite files bring no rows). The query's checkpoint is a throw-away folder in the driver's
 * temporary directory, removed when the read ends: where a read starts is the caller's record (the
 * bronze version in {@code monitoring.correction_state}), so a crash before the caller records the
 * new version leaves the next read to start at the same place and find the same windows.
 *
 * <p>A read holds an OS file lock on {@code owner.lock} in its folder while it runs. The folder of
 * a process killed with {@code kill -9} cannot be removed by that process: the next read removes
 * every {@code latelake-bronze-changes-*} folder whose lock no process holds.
 */
public final class BronzeChangeRead {
  private static final Logger LOG = LoggerFactory.getLogger(BronzeChangeRead.class);

  /** The prefix of the throw-away folders, in {@code java.io.tmpdir}. */
  static final String PREFIX = "latelake-bronze-changes-";

  private static final String LOCK = "owner.lock";

  /** A folder without a lock file this old is a left-over of a read killed as it started. */
  private static final Duration UNLOCKED_AGE = Duration.ofHours(1);

  /**
   * A lock file younger than this is never taken: its read may be between creating and locking it.
   */
  private static final Duration LOCKED_AGE = Duration.ofMinutes(10);

  /** The folders of this JVM's running reads. */
  private static final java.util.Set<Path> OWN = java.util.concurrent.ConcurrentHashMap.newKeySet();

  private static final String VERSION_NOT_FOUND = "DELTA_VERSION_NOT_FOUND";

  private BronzeChangeRead() {}

  /**
   * @param spark the session the read runs on
   * @param bronze bronze_events' path
   * @param what what the read is for, named in errors (e.g. the metric {@code
   *     events_per_device_10s})
   * @param queryName the streaming query's name (shown in Spark's UI and logs; null: none, for a
   *     read that may run beside another of the same kind)
   * @param after the last bronze version already taken: the read starts at {@code after + 1}
   * @param latest bronze's latest version now: nothing is read when {@code after >= latest}
   * @param window the metric's window length
   * @return the window starts (UTC, ascending) of the valid rows ({@code error} null, {@code
   *     event_time} set) committed after {@code after}, up to the latest version when the read
   *     started (at least {@code latest})
   * @throws LakeConfigException (exit 2) when bronze's log no longer keeps version {@code after +
   *     1} (cleaned up after {@code delta.logRetentionDuration}): the message says to run {@code
   *     correct --since}
   * @throws StreamFailedException (exit 1) when the read fails
   * @throws StorageException (exit 1) when the temporary folder cannot be created
   */
  public static SortedSet<Instant> windowsAfter(
      SparkSession spark,
      String bronze,
      String what,
      String queryName,
      long after,
      long latest,
      Duration window) {
    return windowsAfter(spark, bronze, what, queryName, after, latest, window, tempDir());
  }

  /** As the public one, with its throw-away folder in {@code tmp}. */
  static SortedSet<Instant> windowsAfter(
      SparkSession spark,
      String bronze,
      String what,
      String queryName,
      long after,
      long latest,
      Duration window,
      Path tmp) {
    SortedSet<Instant> out = new ConcurrentSkipListSet<>();
    if (after >= latest) {
      return new TreeSet<>();
    }
    removeLeftOvers(tmp);
    Path dir;
    try {
      dir = Files.createTempDirectory(tmp, PREFIX);
    } catch (IOException e) {
      throw new StorageException(
          "Cannot create a temporary checkpoint for the bronze change read of "
              + what
              + " in "
              + tmp
              + ": "
              + e.getMessage(),
          e);
    }
    OWN.add(dir.toAbsolutePath());
    try (FileChannel lock =
            FileChannel.open(
                dir.resolve(LOCK), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock held = lock.lock()) {
      try {
        read(spark, bronze, queryName, after, window, dir.resolve("checkpoint"), out);
      } finally {
        // removed while the lock is held: no other process's sweep takes the folder meanwhile
        deleteQuietly(dir);
      }
    } catch (StreamingQueryException | TimeoutException e) {
      Optional<Throwable> gone = condition(e, VERSION_NOT_FOUND);
      if (gone.isPresent()) {
        throw new LakeConfigException(
            "bronze_events no longer keeps version "
                + (after + 1)
                + ", where the change read of "
                + what
                + " starts ("
                + gone.get().getMessage()
                + "): its log was removed after delta.logRetentionDuration. Run `correct --since"
                + " <instant>` once, with an ingest time (UTC) no later than the last correct run's,"
                + " to find the windows by rescanning bronze; later runs read changes again.",
            e);
      }
      throw new StreamFailedException(
          "Cannot read bronze changes of "
              + what
              + " after version "
              + after
              + ": "
              + e.getMessage(),
          e);
    } catch (IOException e) {
      throw new StorageException(
          "Cannot lock the temporary checkpoint " + dir + " of the bronze change read of " + what,
          e);
    } finally {
      deleteQuietly(dir);
      OWN.remove(dir.toAbsolutePath());
    }
    return new TreeSet<>(out);
  }

  /**
   * Runs the change read with its checkpoint in {@code checkpoint}, adding window starts to out.
   */
  private static void read(
      SparkSession spark,
      String bronze,
      String queryName,
      long after,
      Duration window,
      Path checkpoint,
      SortedSet<Instant> out)
      throws StreamingQueryException, TimeoutException {
    DataStreamWriter<Row> writer =
        spark
            .readStream()
            .format("delta")
            .option("startingVersion", Long.toString(after + 1))
            .option("skipChangeCommits", "true")
            .load(bronze)
            .select("event_time", "error")
            .writeStream()
            .option("checkpointLocation", checkpoint.toUri().toString())
            .trigger(Trigger.AvailableNow())
            .foreachBatch(
                (VoidFunction2<Dataset<Row>, Long>)
                    (batch, batchId) -> {
                      for (Row r :
                          batch
                              .filter(col("error").isNull().and(col("event_time").isNotNull()))
                              .select(MetricAggregation.windowStart(col("event_time"), window))
                              .distinct()
                              .collectAsList()) {
                        out.add(r.getTimestamp(0).toInstant());
                      }
                    });
    if (queryName != null) {
      writer = writer.queryName(queryName);
    }
    StreamingQuery query = writer.start();
    try {
      query.awaitTermination();
    } finally {
      // An interrupt or an error of the caller's thread leaves the query running: stop it
      // before its checkpoint is removed.
      if (query.isActive()) {
        try {
          query.stop();
        } catch (TimeoutException e) {
          LOG.warn("The bronze change read's query did not stop in time: {}", e.getMessage());
        }
      }
    }
  }

  /** The first throwable in {@code t}'s cause chain with Spark's error condition {@code name}. */
  private static Optional<Throwable> condition(Throwable t, String name) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof SparkThrowable st && name.equals(st.getCondition())) {
        return Optional.of(c);
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return Optional.empty();
  }

  private static Path tempDir() {
    return Path.of(System.getProperty("java.io.tmpdir"));
  }

  /**
   * Removes the folders of reads that ended without removing their own (a process killed with
   * {@code kill -9}): those whose lock file is older than ten minutes and locked by no process, and
   * those without a lock file older than an hour. A folder of a read of this JVM is never touched
   * (closing any channel of a locked file would release this JVM's lock on it: POSIX locks belong
   * to the process); one of another process is kept while that process holds its lock, which it
   * takes right after creating the file.
   *
   * @param tmp where the folders are
   * @return the number of folders removed
   */
  static int removeLeftOvers(Path tmp) {
    int removed = 0;
    List<Path> dirs;
    try (DirectoryStream<Path> found = Files.newDirectoryStream(tmp, PREFIX + "*")) {
      dirs = new ArrayList<>();
      found.forEach(dirs::add);
    } catch (IOException | java.nio.file.DirectoryIteratorException e) {
      LOG.debug("Cannot list {}: {}", tmp, e.getMessage());
      return 0;
    }
    for (Path dir : dirs) {
      if (OWN.contains(dir.toAbsolutePath()) || !Files.isDirectory(dir)) {
        continue;
      }
      try {
        if (removeIfLeftOver(dir)) {
          removed++;
        }
      } catch (IOException | RuntimeException e) {
        // gone meanwhile (another sweep), or not ours to open: the next folder
        LOG.debug("Cannot check or remove {}: {}", dir, e.toString());
      }
    }
    if (removed > 0) {
      LOG.info(
          "Removed {} temporary folder(s) {}* left by killed runs in {}", removed, PREFIX, tmp);
    }
    return removed;
  }

  private static boolean removeIfLeftOver(Path dir) throws IOException {
    Path lockFile = dir.resolve(LOCK);
    if (!Files.exists(lockFile)) {
      if (olderThan(dir, UNLOCKED_AGE)) {
        deleteQuietly(dir);
        return true;
      }
      return false;
    }
    if (!olderThan(lockFile, LOCKED_AGE)) {
      return false;
    }
    try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE);
        FileLock lock = channel.tryLock()) {
      if (lock == null) {
        return false; // held by a running read of another process
      }
      deleteQuietly(dir); // under the lock: a second sweep waits or finds it gone
      return true;
    }
  }

  private static boolean olderThan(Path p, Duration age) throws IOException {
    return Files.getLastModifiedTime(p).toInstant().isBefore(Instant.now().minus(age));
  }

  private static void deleteQuietly(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      List<Path> all = new ArrayList<>(paths.toList());
      Collections.reverse(all);
      for (Path p : all) {
        Files.deleteIfExists(p);
      }
    } catch (IOException | java.io.UncheckedIOException e) {
      LOG.debug("Cannot remove {}: {}", dir, e.getMessage());
    }
  }
}

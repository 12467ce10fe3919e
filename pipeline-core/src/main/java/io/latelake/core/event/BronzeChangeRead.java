package io.latelake.core.event;

import static org.apache.spark.sql.functions.col;

import io.latelake.core.config.LakeConfigException;
import io.latelake.core.metric.MetricAggregation;
import io.latelake.core.streaming.StreamFailedException;
import io.latelake.core.table.StorageException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
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
    Path dir = null;
    StreamingQuery query = null;
    try {
      dir = Files.createTempDirectory(tmp, PREFIX);
      try (FileChannel lock =
              FileChannel.open(
                  dir.resolve(LOCK), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          FileLock held = lock.lock()) {
        DataStreamWriter<Row> writer =
            spark
                .readStream()
                .format("delta")
                .option("startingVersion", Long.toString(after + 1))
                .option("skipChangeCommits", "true")
                .load(bronze)
                .select("event_time", "error")
                .writeStream()
                .option("checkpointLocation", dir.resolve("checkpoint").toUri().toString())
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
        query = writer.start();
        query.awaitTermination();
      } finally {
        // An interrupt or an error of the caller's thread leaves the query running: stop it
        // before its checkpoint is removed.
        if (query != null && query.isActive()) {
          query.stop();
        }
      }
    } catch (IOException e) {
      throw new StorageException(
          "Cannot create a temporary checkpoint for the bronze change read of "
              + what
              + " in "
              + tmp
              + ": "
              + e.getMessage(),
          e);
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
    } finally {
      deleteQuietly(dir);
    }
    return new TreeSet<>(out);
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
   * {@code kill -9}): those whose lock no process holds, and those without a lock file older than
   * an hour. A folder in use by this process or another is kept.
   *
   * @param tmp where the folders are
   * @return the number of folders removed
   */
  static int removeLeftOvers(Path tmp) {
    int removed = 0;
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(tmp, PREFIX + "*")) {
      for (Path dir : dirs) {
        if (Files.isDirectory(dir) && leftOver(dir)) {
          deleteQuietly(dir);
          removed++;
        }
      }
    } catch (IOException e) {
      LOG.debug("Cannot list {}: {}", tmp, e.getMessage());
    }
    if (removed > 0) {
      LOG.info(
          "Removed {} temporary folder(s) {}* left by killed runs in {}", removed, PREFIX, tmp);
    }
    return removed;
  }

  private static boolean leftOver(Path dir) throws IOException {
    Path lockFile = dir.resolve(LOCK);
    if (!Files.exists(lockFile)) {
      return Files.getLastModifiedTime(dir).toInstant().isBefore(Instant.now().minus(UNLOCKED_AGE));
    }
    try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE);
        FileLock lock = channel.tryLock()) {
      return lock != null;
    } catch (OverlappingFileLockException e) {
      return false; // held by a read of this process
    } catch (IOException e) {
      return false; // not ours to open (another user's): keep it
    }
  }

  private static void deleteQuietly(Path dir) {
    if (dir == null) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      List<Path> all = new ArrayList<>(paths.toList());
      Collections.reverse(all);
      for (Path p : all) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      LOG.debug("Cannot remove {}: {}", dir, e.getMessage());
    }
  }
}

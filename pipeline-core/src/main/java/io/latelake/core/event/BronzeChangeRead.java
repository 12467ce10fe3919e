package io.latelake.core.event;

import static org.apache.spark.sql.functions.col;

import io.latelake.core.metric.MetricAggregation;
import io.latelake.core.streaming.StreamFailedException;
import io.latelake.core.table.StorageException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.TimeoutException;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.DataStreamWriter;
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
 */
public final class BronzeChangeRead {
  private static final Logger LOG = LoggerFactory.getLogger(BronzeChangeRead.class);

  private BronzeChangeRead() {}

  /**
   * @param bronze bronze_events' path
   * @param queryName the streaming query's name (shown in Spark's UI and logs; null: none, for a
   *     read that may run beside another of the same kind)
   * @param after the last bronze version already taken: the read starts at {@code after + 1}
   * @param latest bronze's latest version now: nothing is read when {@code after >= latest}
   * @param window the metric's window length
   * @return the window starts (UTC, ascending) of the valid rows ({@code error} null, {@code
   *     event_time} set) committed after {@code after}, up to the latest version when the read
   *     started (at least {@code latest})
   * @throws StreamFailedException (exit 1) when the read fails
   */
  public static SortedSet<Instant> windowsAfter(
      SparkSession spark,
      String bronze,
      String queryName,
      long after,
      long latest,
      Duration window) {
    SortedSet<Instant> out = new ConcurrentSkipListSet<>();
    if (after >= latest) {
      return new TreeSet<>();
    }
    Path checkpoint = null;
    try {
      checkpoint = Files.createTempDirectory("latelake-bronze-changes-");
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
      writer.start().awaitTermination();
    } catch (IOException e) {
      throw new StorageException(
          "Cannot create a temporary checkpoint for the bronze change read: " + e.getMessage(), e);
    } catch (StreamingQueryException | TimeoutException e) {
      throw new StreamFailedException(
          "Cannot read bronze changes after version " + after + ": " + e.getMessage(), e);
    } finally {
      deleteQuietly(checkpoint);
    }
    return new TreeSet<>(out);
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

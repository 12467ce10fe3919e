package io.latelake.core.metrics;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.pmod;
import static org.apache.spark.sql.functions.timestamp_micros;
import static org.apache.spark.sql.functions.unix_micros;

import io.delta.tables.DeltaTable;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.DeltaTables;
import io.latelake.core.table.TableRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gold figure {@code closed_windows_to_correct} ({@link GoldFigures}): what the next {@code
 * correct} recomputes, by its rule — the windows pending in {@code monitoring.correction_state} and
 * those of the valid bronze rows committed after the bronze version recorded there, that are closed
 * by the gold stream's last watermark.
 */
final class ClosedWindowsToCorrect {
  private static final Logger LOG = LoggerFactory.getLogger(ClosedWindowsToCorrect.class);

  private ClosedWindowsToCorrect() {}

  /**
   * @param watermark the gold stream's last watermark (empty: none yet)
   * @return the count, NaN until {@code correct} has run for the metric (no entry in {@code
   *     monitoring.correction_state}), 0 without a watermark
   */
  static double count(
      SparkSession spark, TableRegistry tables, MetricSpec metric, Optional<Instant> watermark) {
    String state = tables.monitoring("correction_state");
    if (!DeltaTables.exists(spark, state)) {
      return Double.NaN;
    }
    List<Row> entry =
        spark
            .read()
            .format("delta")
            .load(state)
            .filter(col("metric").equalTo(metric.name()))
            .select("bronze_version", "pending_window_starts")
            .collectAsList();
    if (entry.isEmpty()) {
      return Double.NaN;
    }
    if (watermark.isEmpty()) {
      return 0;
    }
    TreeSet<Instant> touched = new TreeSet<>();
    List<Timestamp> pending = entry.get(0).getList(1);
    if (pending != null) {
      pending.forEach(t -> touched.add(t.toInstant()));
    }
    touched.addAll(bronzeWindowsAfter(spark, tables, metric, entry.get(0).getLong(0)));
    Instant wm = watermark.get();
    return touched.stream().filter(s -> !s.plus(metric.window()).isAfter(wm)).count();
  }

  /**
   * The window starts of the valid bronze rows committed after {@code version}: Delta's change read
   * from {@code version + 1} (Trigger.AvailableNow, a throw-away checkpoint).
   */
  private static Set<Instant> bronzeWindowsAfter(
      SparkSession spark, TableRegistry tables, MetricSpec metric, long version) {
    String bronze = tables.bronzeEvents();
    long latest = DeltaTable.forPath(spark, bronze).history(1).select("version").first().getLong(0);
    Set<Instant> out = ConcurrentHashMap.newKeySet();
    if (latest <= version) {
      return out;
    }
    long w = metric.window().toNanos() / 1000;
    Path checkpoint = null;
    try {
      checkpoint = Files.createTempDirectory("latelake-gold-figures-");
      spark
          .readStream()
          .format("delta")
          .option("startingVersion", Long.toString(version + 1))
          .option("skipChangeCommits", "true")
          .load(bronze)
          .writeStream()
          .option("checkpointLocation", checkpoint.toUri().toString())
          .trigger(Trigger.AvailableNow())
          .foreachBatch(
              (VoidFunction2<Dataset<Row>, Long>)
                  (batch, id) -> {
                    Column micros = unix_micros(col("event_time"));
                    for (Row r :
                        batch
                            .filter(col("error").isNull().and(col("event_time").isNotNull()))
                            .select(timestamp_micros(micros.minus(pmod(micros, lit(w)))))
                            .distinct()
                            .collectAsList()) {
                      out.add(r.getTimestamp(0).toInstant());
                    }
                  })
          .start()
          .awaitTermination();
    } catch (IOException | StreamingQueryException | TimeoutException e) {
      throw new IllegalStateException("Cannot read bronze changes: " + e.getMessage(), e);
    } finally {
      deleteQuietly(checkpoint);
    }
    return out;
  }

  private static void deleteQuietly(Path dir) {
    if (dir == null) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      List<Path> all = new ArrayList<>(paths.toList());
      java.util.Collections.reverse(all);
      for (Path p : all) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      LOG.debug("Cannot remove {}: {}", dir, e.getMessage());
    }
  }
}

package io.latelake.core.metrics;

import static org.apache.spark.sql.functions.col;

import io.delta.tables.DeltaTable;
import io.latelake.core.event.BronzeChangeRead;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.DeltaTables;
import io.latelake.core.table.TableRegistry;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The gold figure {@code closed_windows_to_correct} ({@link GoldFigures}): what the next {@code
 * correct} recomputes, by its rule — the windows pending in {@code monitoring.correction_state} and
 * those of the valid bronze rows committed after the bronze version recorded there, that are closed
 * by the gold stream's last watermark.
 */
final class ClosedWindowsToCorrect {
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
   * The window starts of the valid bronze rows committed after {@code version} ({@link
   * BronzeChangeRead}).
   */
  private static Set<Instant> bronzeWindowsAfter(
      SparkSession spark, TableRegistry tables, MetricSpec metric, long version) {
    String bronze = tables.bronzeEvents();
    long latest = DeltaTable.forPath(spark, bronze).history(1).select("version").first().getLong(0);
    return BronzeChangeRead.windowsAfter(
        spark, bronze, metric.name(), null, version, latest, metric.window());
  }
}

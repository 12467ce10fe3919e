package io.latelake.analyst;

import com.typesafe.config.Config;
import io.latelake.core.config.ConfigLoader;
import io.latelake.core.table.TableRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;

/**
 * A small lake written directly (no streams), a replayed old dataset: gold.page_5m with a restated
 * row, a settled one (window end + the 1-hour horizon = the gold stream's last watermark, 11:05), a
 * closed but provisional one (ends 10:10) and a provisional one of 2100;
 * monitoring.stream_progress, corrections_log and lateness_cdf; and the local session with its
 * Derby metastore under the lake root.
 */
final class AnalystLake {
  private AnalystLake() {}

  static Config config(Path root) {
    return ConfigLoader.load(
        Optional.empty(),
        List.of(
            "lake.root=\"" + root + "\"",
            "lake.spark.shuffle-partitions=2",
            "lake.event.fields=[{name=page, type=string}, {name=duration_s, type=double}]",
            "lake.correction.horizon=\"1 hour\"",
            "lake.gold.metrics.page_5m={window=\"5 minutes\", group-by=[page], measures=["
                + "{name=views, function=count}, "
                + "{name=total_duration_s, function=sum, column=duration_s}]}"));
  }

  static SparkSession session(Config config) {
    System.setProperty("spark.master", "local[2]");
    System.setProperty("spark.ui.enabled", "false");
    SparkSession spark = AnalystSessions.create("analyst-test", config);
    spark.sparkContext().setLogLevel("WARN");
    return spark;
  }

  static void write(SparkSession spark, TableRegistry t) {
    save(
        spark,
        t.gold("page_5m"),
        "SELECT * FROM VALUES "
            + "(TIMESTAMP'2024-05-14 10:00:00', TIMESTAMP'2024-05-14 10:05:00', '/home', 2L, 12.0D, "
            + "TIMESTAMP'2024-05-14 10:31:00', TIMESTAMP'2024-05-14 11:00:00'), "
            + "(TIMESTAMP'2024-05-14 10:00:00', TIMESTAMP'2024-05-14 10:05:00', '/pricing', 2L, 10.0D,"
            + " TIMESTAMP'2024-05-14 10:04:00', CAST(NULL AS TIMESTAMP)), "
            + "(TIMESTAMP'2024-05-14 10:05:00', TIMESTAMP'2024-05-14 10:10:00', CAST(NULL AS STRING),"
            + " 1L, 5.0D, TIMESTAMP'2024-05-14 10:07:00', CAST(NULL AS TIMESTAMP)), "
            + "(TIMESTAMP'2100-01-01 00:00:00', TIMESTAMP'2100-01-01 00:05:00', '/home', 1L, 1.0D, "
            + "TIMESTAMP'2100-01-01 00:01:00', CAST(NULL AS TIMESTAMP)) "
            + "AS t(window_start, window_end, page, views, total_duration_s, updated_at, "
            + "corrected_at)");
    save(
        spark,
        t.streamProgress(),
        "SELECT * FROM VALUES "
            + "('gold_page_5m', 0L, 5L, TIMESTAMP'2024-05-14 10:10:00', 0L), "
            + "('gold_page_5m', 1L, 1L, TIMESTAMP'2024-05-14 10:20:00', 1L), "
            + "('gold_page_5m', 2L, 0L, TIMESTAMP'2024-05-14 11:05:00', 0L), "
            + "('silver', 1L, 1L, TIMESTAMP'2024-05-15 00:00:00', 0L) "
            + "AS t(query_name, batch_id, input_rows, watermark, rows_dropped_by_watermark)");
    save(
        spark,
        t.monitoring("corrections_log"),
        "SELECT * FROM VALUES "
            + "('r0', 'page_5m', TIMESTAMP'2024-05-14 10:00:00', TIMESTAMP'2024-05-14 10:05:00', "
            + "'{\"page\":\"/home\"}', CAST(NULL AS STRING), '{\"views\":1,\"total_duration_s\":7.0}', "
            + "'NEW_ROW', 'restate', TIMESTAMP'2024-05-14 10:59:00'), "
            + "('r1', 'page_5m', TIMESTAMP'2024-05-14 10:00:00', TIMESTAMP'2024-05-14 10:05:00', "
            + "'{\"page\":\"/home\"}', '{\"views\":1,\"total_duration_s\":7.0}', "
            + "'{\"views\":2,\"total_duration_s\":12.0}', 'LATE_ARRIVAL', 'restate', "
            + "TIMESTAMP'2024-05-14 11:00:00'), "
            + "('r1', 'other', TIMESTAMP'2024-05-14 10:00:00', TIMESTAMP'2024-05-14 10:05:00', "
            + "'{\"page\":\"/pricing\"}', '{\"views\":9}', '{\"views\":8}', 'LATE_ARRIVAL', "
            + "'restate', TIMESTAMP'2024-05-14 11:00:00') "
            + "AS t(run_id, metric, window_start, window_end, keys, old_values, new_values, reason, "
            + "policy, corrected_at)");
    // web: F rises linearly from 0.25 to 0.75 between -1e12 s and 1e12 s; slow: all below.
    save(
        spark,
        t.monitoring("lateness_cdf"),
        "SELECT * FROM VALUES "
            + "('web', 0.0D, -1.0E12D), ('web', 0.25D, -999999999999.0D), "
            + "('web', 0.75D, 999999999999.0D), ('web', 1.0D, 1.0E12D), "
            + "('slow', 0.0D, -5.0E12D), ('slow', 1.0D, -4.0E12D) AS t(source, level, lateness_s)");
  }

  /** The completeness of a 5-minute window ending {@code endEpochS} for web's distribution. */
  static double webCompleteness(long endEpochS, long nowEpochS) {
    double mean = nowEpochS - endEpochS + 150.0;
    return 0.25 + 0.5 * (mean + 999999999999.0) / 1999999999998.0;
  }

  static void save(SparkSession spark, String path, String select) {
    spark.sql(select).write().format("delta").mode("append").save(path);
  }

  static long version(SparkSession spark, String path) {
    return io.delta.tables.DeltaTable.forPath(spark, path).history(1).first().getLong(0);
  }
}

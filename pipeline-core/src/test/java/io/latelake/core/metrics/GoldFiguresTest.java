package io.latelake.core.metrics;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import io.latelake.core.config.ConfigLoader;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.metric.Metrics;
import io.latelake.core.streaming.StreamProgressTable;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.testing.SparkTestBase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructField;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A metric's gold figures read from a hand-made lake (5-minute windows by device, correction
 * horizon 5 minutes, the gold stream's last watermark 12:20): rows by status by the status views'
 * rule, the closed windows the next {@code correct} recomputes, and the completeness of the latest
 * closed window.
 */
class GoldFiguresTest extends SparkTestBase {
  @TempDir Path tmp;

  private void write(String path, String sql) {
    spark.sql(sql).write().format("delta").mode("append").save(path);
  }

  /** Appends one progress row of {@code query} with this watermark, other columns null. */
  private void progress(TableRegistry tables, String query, String watermark) {
    Dataset<Row> one =
        spark.sql(
            "SELECT '" + query + "' AS query_name, TIMESTAMP'" + watermark + "' AS watermark");
    List<Column> cols = new ArrayList<>();
    for (StructField f : StreamProgressTable.SCHEMA.fields()) {
      cols.add(
          (List.of(one.columns()).contains(f.name()) ? col(f.name()) : lit(null))
              .cast(f.dataType())
              .as(f.name()));
    }
    one.select(cols.toArray(Column[]::new))
        .write()
        .format("delta")
        .mode("append")
        .save(tables.streamProgress());
  }

  @Test
  void figuresFollowTheStatusRuleAndCorrectsPlan() {
    Path root = tmp.resolve("lake");
    Config config =
        ConfigLoader.load(
            Optional.empty(),
            List.of(
                "lake.root=\"" + root + "\"",
                "lake.gold.watermark-delay=\"1 minute\"",
                "lake.correction.horizon=\"5 minutes\"",
                "lake.event.fields=[{name=device, type=string}]",
                "lake.gold.metrics={m={window=\"5 minutes\", group-by=[device], "
                    + "measures=[{name=events, function=count}]}}"));
    TableRegistry tables = TableRegistry.fromConfig(config);
    MetricSpec metric = Metrics.fromConfig(config).get(0);
    GoldFigures figures =
        new GoldFigures(spark, tables, Duration.ofMinutes(5), Duration.ofHours(1));
    // no gold table yet: nothing known
    assertThat(figures.read(metric)).isEqualTo(GoldFigures.Figures.UNKNOWN);

    // 12:00 restated; 12:05 and 12:10 settled (end + 5 min <= 12:20); 12:15 closed but
    // provisional (12:25 > 12:20), two devices; 12:20 open
    write(
        tables.gold("m"),
        "SELECT TIMESTAMP'2024-05-14 12:00:00' AS window_start,"
            + " TIMESTAMP'2024-05-14 12:05:00' AS window_end, 'a' AS device, 1L AS events,"
            + " TIMESTAMP'2024-05-15 00:00:00' AS corrected_at UNION ALL SELECT"
            + " TIMESTAMP'2024-05-14 12:05:00', TIMESTAMP'2024-05-14 12:10:00', 'a', 1L, NULL"
            + " UNION ALL SELECT TIMESTAMP'2024-05-14 12:10:00', TIMESTAMP'2024-05-14 12:15:00',"
            + " 'a', 1L, NULL UNION ALL SELECT TIMESTAMP'2024-05-14 12:15:00',"
            + " TIMESTAMP'2024-05-14 12:20:00', 'a', 1L, NULL UNION ALL SELECT"
            + " TIMESTAMP'2024-05-14 12:15:00', TIMESTAMP'2024-05-14 12:20:00', 'b', 2L, NULL"
            + " UNION ALL SELECT TIMESTAMP'2024-05-14 12:20:00', TIMESTAMP'2024-05-14 12:25:00',"
            + " 'a', 1L, NULL");
    progress(tables, "gold_m", "2024-05-14 12:18:00");
    progress(tables, "gold_m", "2024-05-14 12:20:00");
    progress(tables, "silver_events", "2024-05-14 13:00:00");
    write(
        tables.bronzeEvents(),
        "SELECT 'e1' AS event_id, TIMESTAMP'2024-05-14 12:01:00' AS event_time,"
            + " CAST(NULL AS STRING) AS error");
    // correct has not run for the metric: its closed windows to correct are unknown
    assertThat(figures.read(metric))
        .isEqualTo(new GoldFigures.Figures(3, 2, 1, Double.NaN, Double.NaN));

    // correct ran up to bronze version 0 and left 12:10 (closed now) and 12:20 (open) pending
    write(
        tables.monitoring("correction_state"),
        "SELECT 'm' AS metric, 0L AS bronze_version, array(TIMESTAMP'2024-05-14 12:10:00',"
            + " TIMESTAMP'2024-05-14 12:20:00') AS pending_window_starts, 'r1' AS run_id,"
            + " TIMESTAMP'2024-05-14 12:30:00' AS updated_at");
    assertThat(figures.read(metric).closedWindowsToCorrect()).isEqualTo(1.0);
    // bronze gains 12:16 (closed window 12:15), 12:22 (open), 12:11 (pending already) and an
    // invalid row at 12:01: two closed windows to correct
    write(
        tables.bronzeEvents(),
        "SELECT 'e2' AS event_id, TIMESTAMP'2024-05-14 12:16:00' AS event_time,"
            + " CAST(NULL AS STRING) AS error UNION ALL SELECT 'e3',"
            + " TIMESTAMP'2024-05-14 12:22:00', NULL UNION ALL SELECT 'e4',"
            + " TIMESTAMP'2024-05-14 12:11:00', NULL UNION ALL SELECT 'e5',"
            + " TIMESTAMP'2024-05-14 12:01:00', 'bad-time'");
    assertThat(figures.read(metric).closedWindowsToCorrect()).isEqualTo(2.0);
    // a profiled lateness distribution: windows of 2024 are long past its largest lateness
    write(
        tables.monitoring("lateness_cdf"),
        "SELECT 'web' AS source, 0.0D AS level, 0.0D AS lateness_s UNION ALL"
            + " SELECT 'web', 1.0D, 10.0D");
    assertThat(figures.read(metric)).isEqualTo(new GoldFigures.Figures(3, 2, 1, 1.0, 2.0));
  }
}

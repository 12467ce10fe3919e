package io.latelake.profiler;

import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.element_at;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.when;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The watermark replay's count of what each delay drops ({@link WatermarkReplay}): the rows behind
 * the watermark their bronze micro-batch is judged against, and the gold rows (window and group-by
 * values) holding one.
 */
final class ReplayDrops {
  private ReplayDrops() {}

  /**
   * @param dropped per delay, the rows behind the watermark
   * @param goldRows per delay, the gold rows over every window given that hold a dropped row
   */
  record Counts(long[] dropped, long[] goldRows) {}

  /**
   * One pass over the replayed rows, kept in memory (or on disk) for one more aggregation per
   * window.
   *
   * @param keyed the replay's keyed rows ({@code _ingested}, {@code _event} µs, the windows'
   *     group-by columns)
   * @param judged per bronze micro-batch: {@code _ingested} long and the watermark (µs, null for
   *     none) its rows are judged against, per delay
   * @param delays the delays, ascending
   * @param windows the gold metrics' windows
   */
  static Counts count(
      SparkSession spark,
      Dataset<Row> keyed,
      List<Row> judged,
      List<Duration> delays,
      List<WatermarkReplay.Window> windows) {
    StructType judgedSchema =
        new StructType()
            .add("_ingested", DataTypes.LongType)
            .add("_late", DataTypes.createArrayType(DataTypes.LongType));
    // The delays are ascending, so each one's watermark is at or behind the shorter ones': a row
    // dropped by a delay is dropped by every shorter one. _drops = how many delays drop the row
    // (the row is dropped by delay i, 0-based, when i < _drops).
    Column drops = lit(0);
    for (int i = 0; i < delays.size(); i++) {
      drops = drops.plus(when(col("_event").leq(element_at(col("_late"), i + 1)), 1).otherwise(0));
    }
    long[] dropped = new long[delays.size()];
    long[] goldRows = new long[delays.size()];
    spark.sparkContext().setJobDescription("profile: watermark replay, rows behind the watermark");
    Dataset<Row> behind =
        keyed
            .join(broadcast(spark.createDataFrame(judged, judgedSchema)), "_ingested")
            .withColumn("_drops", drops)
            .filter(col("_drops").gt(0))
            .drop("_late")
            .persist(org.apache.spark.storage.StorageLevel.MEMORY_AND_DISK());
    try {
      cumulate(behind.groupBy(col("_drops")).count().collectAsList(), dropped);
      for (WatermarkReplay.Window w : windows) {
        List<Column> key = new ArrayList<>();
        key.add(
            org.apache
                .spark
                .sql
                .functions
                .floor(col("_event").divide(w.size().toNanos() / 1000))
                .as("_window"));
        for (String c : w.groupBy()) {
          key.add(col(c));
        }
        long[] mine = new long[delays.size()];
        cumulate(
            behind
                .groupBy(key.toArray(Column[]::new))
                .agg(max(col("_drops")).as("_drops"))
                .groupBy(col("_drops"))
                .count()
                .collectAsList(),
            mine);
        for (int i = 0; i < mine.length; i++) {
          goldRows[i] += mine[i];
        }
      }
    } finally {
      behind.unpersist();
      spark.sparkContext().setJobDescription(null);
    }
    return new Counts(dropped, goldRows);
  }

  /**
   * Adds up counts per {@code _drops} value k into per delay: delay i counts the rows (or windows)
   * with k &gt; i.
   */
  private static void cumulate(List<Row> byDrops, long[] perDelay) {
    for (Row r : byDrops) {
      int k = r.getInt(0);
      for (int i = 0; i < Math.min(k, perDelay.length); i++) {
        perDelay[i] += r.getLong(1);
      }
    }
  }
}

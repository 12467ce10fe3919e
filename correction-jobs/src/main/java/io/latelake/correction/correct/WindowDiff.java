package io.latelake.correction.correct;

import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.TableRegistry;
import io.latelake.correction.shared.Corrections;
import io.latelake.correction.shared.LakeReads;
import io.latelake.correction.shared.Recompute;
import io.latelake.correction.shared.TouchedWindows;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.OptionalLong;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/** The corrections of a plan's closed windows: recomputed from bronze vs published in gold. */
final class WindowDiff {
  private WindowDiff() {}

  /**
   * Both sides are read at fixed versions, so the result is the same however often it is evaluated
   * (it is not collected to the driver): bronze at {@code bronzeVersion}, read around each closed
   * window by the dedup horizon ({@link WindowPlanner.Plan#readSpans}: an OR of event-time ranges,
   * which Delta's data skipping uses to leave out the files between windows far apart), gold at
   * {@code goldVersion}, read over the closed windows' runs ({@link TouchedWindows#ofStarts}: an OR
   * of {@code window_start} ranges, the same condition as the writes' MERGE), not over the range
   * from the first closed window to the last.
   *
   * @return corrections ({@link Corrections#diff} schema) of the closed windows
   */
  static Dataset<Row> corrections(
      SparkSession spark,
      TableRegistry reg,
      MetricSpec metric,
      WindowPlanner.Plan plan,
      long bronzeVersion,
      long goldVersion,
      Duration dedupHorizon) {
    Dataset<Row> starts =
        spark.createDataFrame(
            plan.closed().stream().map(i -> RowFactory.create(Timestamp.from(i))).toList(),
            new StructType().add("window_start", DataTypes.TimestampType));
    Column around = within(plan.readSpans(metric.window(), dedupHorizon));
    Dataset<Row> bronze =
        LakeReads.bronzeAt(spark, reg.bronzeEvents(), OptionalLong.of(bronzeVersion))
            .filter(around);
    Dataset<Row> recomputed =
        Recompute.goldOfWindows(bronze, metric, starts, plan.start(), plan.end());
    Dataset<Row> published =
        spark
            .read()
            .format("delta")
            .option("versionAsOf", goldVersion)
            .load(reg.gold(metric.name()))
            .filter(TouchedWindows.ofStarts(plan.closed(), metric.window()).bound("window_start"))
            .join(broadcast(starts), "window_start");
    return Corrections.diff(recomputed, published, metric);
  }

  /**
   * @param spans event-time spans, {@code [from, to)} (UTC), at least one
   * @return {@code (event_time >= from AND event_time < to) OR ...}, one range per span
   * @throws java.util.NoSuchElementException when {@code spans} is empty
   */
  static Column within(java.util.List<WindowPlanner.Span> spans) {
    return spans.stream()
        .map(
            s ->
                col("event_time")
                    .geq(lit(Timestamp.from(s.from())))
                    .and(col("event_time").lt(lit(Timestamp.from(s.to())))))
        .reduce(Column::or)
        .orElseThrow();
  }
}

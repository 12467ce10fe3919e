package io.latelake.profiler;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.desc;
import static org.apache.spark.sql.functions.format_number;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.row_number;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Alert rows of {@code monitoring.alerts}, as pure transformations.
 *
 * <p>Schema: {@code raised_at} timestamp (UTC, the run's time), {@code origin} string ({@code
 * lateness-profiler}), {@code rule} string (e.g. {@code p99_s > 600.0}, {@code
 * watermark_drops.count > 100}), {@code subject} string (a source, or a streaming query name),
 * {@code day} date (arrival day; null for stream alerts), {@code observed} double, {@code
 * limit_value} double, {@code message} string.
 */
public final class Alerts {
  /** Schema of {@code monitoring.alerts}. */
  public static final StructType SCHEMA =
      new StructType()
          .add("raised_at", DataTypes.TimestampType)
          .add("origin", DataTypes.StringType)
          .add("rule", DataTypes.StringType)
          .add("subject", DataTypes.StringType)
          .add("day", DataTypes.DateType)
          .add("observed", DataTypes.DoubleType)
          .add("limit_value", DataTypes.DoubleType)
          .add("message", DataTypes.StringType);

  static final String ORIGIN = "lateness-profiler";

  private Alerts() {}

  /**
   * One alert row per rule and {@code monitoring.lateness_stats} row whose metric is strictly above
   * the rule's limit (a null metric never fires).
   *
   * @param stats rows of {@code monitoring.lateness_stats}
   * @param rules the SLA rules
   * @param raisedAt the run's time
   * @return alert rows ({@link #SCHEMA}); empty when nothing fires
   */
  public static Dataset<Row> fromRules(
      SparkSession spark, Dataset<Row> stats, List<AlertRule> rules, Instant raisedAt) {
    Dataset<Row> out = spark.createDataFrame(List.of(), SCHEMA);
    for (AlertRule r : rules) {
      Column observed = col(r.metric()).cast(DataTypes.DoubleType);
      Column clockNote =
          when(
                  col("create_time_count").gt(0),
                  concat(
                      lit(" ("),
                      col("create_time_count").cast(DataTypes.StringType),
                      lit(" Kafka CreateTime events left out: producer clock)")))
              .otherwise(lit(""));
      out =
          out.unionByName(
              stats
                  .filter(observed.gt(r.above()))
                  .select(
                      lit(Timestamp.from(raisedAt)).as("raised_at"),
                      lit(ORIGIN).as("origin"),
                      lit(r.describe()).as("rule"),
                      col("source").as("subject"),
                      col("arrival_day").as("day"),
                      observed.as("observed"),
                      lit(r.above()).as("limit_value"),
                      concat(
                              lit("Lateness SLA exceeded for source '"),
                              col("source"),
                              lit("' on "),
                              col("arrival_day").cast(DataTypes.StringType),
                              lit(": " + r.metric() + " = "),
                              observed.cast(DataTypes.StringType),
                              lit(" > " + r.above()),
                              clockNote)
                          .as("message")));
    }
    return out;
  }

  /**
   * The watermark-drop alert over {@code monitoring.stream_progress}: per {@code query_name}, the
   * last {@code batches} micro-batches (by {@code batch_timestamp}, then {@code batch_id}); an
   * alert when their {@code rows_dropped_by_watermark} sum exceeds {@code maxCount} (if &gt; 0) or
   * dropped / input rows exceeds {@code maxShare} (if &gt; 0). At most one row per query and limit.
   *
   * @param progress rows of {@code monitoring.stream_progress}
   * @return alert rows ({@link #SCHEMA})
   */
  public static Dataset<Row> fromDrops(
      SparkSession spark,
      Dataset<Row> progress,
      int batches,
      long maxCount,
      double maxShare,
      Instant raisedAt) {
    Dataset<Row> out = spark.createDataFrame(List.of(), SCHEMA);
    if (maxCount <= 0 && maxShare <= 0) {
      return out;
    }
    Dataset<Row> window =
        progress
            .withColumn(
                "_rn",
                row_number()
                    .over(
                        Window.partitionBy(col("query_name"))
                            .orderBy(desc("batch_timestamp"), desc("batch_id"))))
            .filter(col("_rn").leq(batches))
            .groupBy(col("query_name"))
            .agg(
                coalesce(sum(col("rows_dropped_by_watermark")), lit(0L)).as("_dropped"),
                coalesce(sum(col("input_rows")), lit(0L)).as("_input"));
    String scope = " in the last " + batches + " micro-batches";
    if (maxCount > 0) {
      Column observed = col("_dropped").cast(DataTypes.DoubleType);
      out =
          out.unionByName(
              window
                  .filter(col("_dropped").gt(maxCount))
                  .select(
                      lit(Timestamp.from(raisedAt)).as("raised_at"),
                      lit(ORIGIN).as("origin"),
                      lit("watermark_drops.count > " + maxCount).as("rule"),
                      col("query_name").as("subject"),
                      lit(null).cast(DataTypes.DateType).as("day"),
                      observed.as("observed"),
                      lit((double) maxCount).as("limit_value"),
                      concat(
                              lit("Stream '"),
                              col("query_name"),
                              lit("' dropped "),
                              col("_dropped").cast(DataTypes.StringType),
                              lit(
                                  " rows behind the watermark"
                                      + scope
                                      + " (limit "
                                      + maxCount
                                      + ")"))
                          .as("message")));
    }
    if (maxShare > 0) {
      Column share =
          when(
                  col("_input").gt(0),
                  col("_dropped").cast(DataTypes.DoubleType).divide(col("_input")))
              .otherwise(lit(0.0));
      out =
          out.unionByName(
              window
                  .filter(share.gt(maxShare))
                  .select(
                      lit(Timestamp.from(raisedAt)).as("raised_at"),
                      lit(ORIGIN).as("origin"),
                      lit("watermark_drops.share > " + maxShare).as("rule"),
                      col("query_name").as("subject"),
                      lit(null).cast(DataTypes.DateType).as("day"),
                      share.as("observed"),
                      lit(maxShare).as("limit_value"),
                      concat(
                              lit("Stream '"),
                              col("query_name"),
                              lit("' dropped "),
                              format_number(share.multiply(100), 3),
                              lit(
                                  "% of its input rows behind the watermark"
                                      + scope
                                      + " (limit "
                                      + maxShare
                                      + ")"))
                          .as("message")));
    }
    return out;
  }
}

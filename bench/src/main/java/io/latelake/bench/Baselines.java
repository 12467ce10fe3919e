package io.latelake.bench;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.from_json;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.to_timestamp;
import static org.apache.spark.sql.functions.unix_micros;
import static org.apache.spark.sql.functions.window;

import io.delta.tables.DeltaTable;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The hand-written Spark streams latelake is measured against: what a data engineer would write
 * without latelake, for the phone data's schema and its metric (10-second windows per {@code
 * device_id}, count and sum of {@code http_content_length}). Streams run with the available-now
 * trigger and their own checkpoint, as latelake's do in the bench. The batch jobs (recompute, least
 * correction, least profile, plain scan) are in {@link BatchBaselines}.
 */
final class Baselines {
  private Baselines() {}

  /** The JSON schema of a landing record. */
  static final StructType RECORD =
      new StructType()
          .add("event_id", DataTypes.StringType)
          .add("event_time", DataTypes.StringType)
          .add("arrival_time", DataTypes.StringType)
          .add("device_id", DataTypes.StringType)
          .add("session", DataTypes.StringType)
          .add("seq", DataTypes.LongType)
          .add("http_content_length", DataTypes.LongType);

  /** {@code from_json} with the record schema, times parsed, then Delta append. */
  static void ingestFromJson(SparkSession spark, String landing, String out, String checkpoint) {
    Dataset<Row> rows = parsed(spark, landing);
    appendToDelta(rows, out, checkpoint);
  }

  /** The bare copy of each line ({@code value}) into Delta: the limit for any ingest. */
  static void ingestBareCopy(SparkSession spark, String landing, String out, String checkpoint) {
    Dataset<Row> rows = spark.readStream().text(landing);
    appendToDelta(rows, out, checkpoint);
  }

  /** Silver's stream with {@code withWatermark} only: valid bronze rows plus lateness, no dedup. */
  static void watermarkOnly(
      SparkSession spark, String bronze, String out, String checkpoint, Duration delay) {
    appendToDelta(silverRows(spark, bronze, delay, false), out, checkpoint);
  }

  /**
   * The least a dedup stream does: {@link #watermarkOnly} plus Spark's {@code
   * dropDuplicatesWithinWatermark("event_id")}, nothing else (no monitoring, no checks). Bounds the
   * dedup figure: its throughput against {@link #watermarkOnly} is the best any watermark-bounded
   * dedup written on Spark reaches here.
   */
  static void dedupOnly(
      SparkSession spark, String bronze, String out, String checkpoint, Duration delay) {
    appendToDelta(silverRows(spark, bronze, delay, true), out, checkpoint);
  }

  private static Dataset<Row> silverRows(
      SparkSession spark, String bronze, Duration delay, boolean dedup) {
    Dataset<Row> rows =
        spark
            .readStream()
            .format("delta")
            .load(bronze)
            .filter(col("error").isNull())
            .withWatermark("event_time", delay.toMillis() + " milliseconds");
    if (dedup) {
      rows = rows.dropDuplicatesWithinWatermark("event_id");
    }
    return rows.select(
        col("event_id"),
        col("event_time"),
        col("enqueued_time"),
        col("device_id"),
        col("session"),
        col("seq"),
        col("http_content_length"),
        unix_micros(col("enqueued_time"))
            .minus(unix_micros(col("event_time")))
            .divide(1_000_000.0)
            .as("lateness_s"));
  }

  /** How {@link #aggregateSilver} writes each micro-batch. */
  enum Publish {
    /** Plainly appended. */
    APPEND,
    /**
     * MERGEd on (window_start, device_id) as {@link #oneQuery} does: the least MERGE, without
     * gold's exactly-once marker, window-range bound, changed-only update, timestamps or change
     * data feed.
     */
    MERGE
  }

  /** The windowed aggregate of silver in update mode, each micro-batch written as {@code how}. */
  static void aggregateSilver(
      SparkSession spark,
      String silver,
      String out,
      String checkpoint,
      Duration delay,
      Duration window,
      Publish how) {
    Dataset<Row> agg = silverAggregate(spark, silver, delay, window);
    eachBatch(
        agg,
        checkpoint,
        how == Publish.MERGE
            ? mergeInto(spark, out, agg)
            : (batch, id) -> batch.write().format("delta").mode("append").save(out));
  }

  /** {@link #aggregate} of the silver table's stream, watermarked on {@code event_time}. */
  private static Dataset<Row> silverAggregate(
      SparkSession spark, String silver, Duration delay, Duration window) {
    return aggregate(
        spark
            .readStream()
            .format("delta")
            .load(silver)
            .withWatermark("event_time", delay.toMillis() + " milliseconds"),
        window);
  }

  /** Runs {@code agg} in update mode to its end (available-now), {@code f} on each micro-batch. */
  private static void eachBatch(
      Dataset<Row> agg, String checkpoint, VoidFunction2<Dataset<Row>, Long> f) {
    await(
        agg.writeStream()
            .outputMode("update")
            .foreachBatch(f)
            .option("checkpointLocation", checkpoint)
            .trigger(Trigger.AvailableNow()),
        null);
  }

  /**
   * Creates the Delta table at {@code out} with {@code agg}'s schema if it does not exist, and
   * returns the micro-batch function that MERGEs a batch into it: matched rows updated, the others
   * inserted.
   */
  private static VoidFunction2<Dataset<Row>, Long> mergeInto(
      SparkSession spark, String out, Dataset<Row> agg) {
    if (!io.latelake.core.table.DeltaTables.exists(spark, out)) {
      spark.createDataFrame(java.util.List.of(), agg.schema()).write().format("delta").save(out);
    }
    return (batch, id) ->
        DeltaTable.forPath(spark, out)
            .as("t")
            .merge(batch.as("s"), "t.window_start = s.window_start AND t.device_id = s.device_id")
            .whenMatched()
            .updateAll()
            .whenNotMatched()
            .insertAll()
            .execute();
  }

  /**
   * The whole fast path as one query: parse, watermark, {@code dropDuplicatesWithinWatermark},
   * window and MERGE into a Delta table on (window_start, device_id).
   */
  static void oneQuery(
      SparkSession spark,
      String landing,
      String out,
      String checkpoint,
      Duration delay,
      Duration window) {
    Dataset<Row> agg =
        aggregate(
            parsed(spark, landing)
                .filter(col("event_id").isNotNull().and(col("event_time").isNotNull()))
                .withWatermark("event_time", delay.toMillis() + " milliseconds")
                .dropDuplicatesWithinWatermark("event_id"),
            window);
    VoidFunction2<Dataset<Row>, Long> merge = mergeInto(spark, out, agg);
    // Dedup then aggregate is two stateful operators in update mode; the one-query job accepts
    // Spark's warning about it (the dedup emits each id once, so the counts are right).
    String key = "spark.sql.streaming.statefulOperator.checkCorrectness.enabled";
    String before = spark.conf().get(key, "true");
    spark.conf().set(key, "false");
    try {
      eachBatch(agg, checkpoint, merge);
    } finally {
      spark.conf().set(key, before);
    }
  }

  private static Dataset<Row> parsed(SparkSession spark, String landing) {
    return spark
        .readStream()
        .text(landing)
        .select(from_json(col("value"), RECORD).as("r"), col("value").as("payload"))
        .select(
            col("r.event_id"),
            to_timestamp(col("r.event_time")).as("event_time"),
            to_timestamp(col("r.arrival_time")).as("enqueued_time"),
            col("r.device_id"),
            col("r.session"),
            col("r.seq"),
            col("r.http_content_length"),
            col("payload"));
  }

  /**
   * The metric per window and {@code device_id}: {@code window_start}, {@code window_end}, {@code
   * device_id}, {@code events} (count), {@code bytes} (sum of {@code http_content_length}).
   */
  static Dataset<Row> aggregate(Dataset<Row> events, Duration window) {
    return events
        .groupBy(
            window(col("event_time"), window.toMillis() + " milliseconds").as("window"),
            col("device_id"))
        .agg(count(lit(1)).as("events"), sum("http_content_length").as("bytes"))
        .select(
            col("window.start").as("window_start"),
            col("window.end").as("window_end"),
            col("device_id"),
            col("events"),
            col("bytes"));
  }

  /** Appends the stream to the Delta table at {@code out} with the available-now trigger. */
  private static void appendToDelta(Dataset<Row> rows, String out, String checkpoint) {
    await(
        rows.writeStream()
            .format("delta")
            .outputMode("append")
            .option("checkpointLocation", checkpoint)
            .trigger(Trigger.AvailableNow()),
        out);
  }

  private static void await(
      org.apache.spark.sql.streaming.DataStreamWriter<Row> writer, String path) {
    try {
      (path == null ? writer.start() : writer.start(path)).awaitTermination();
    } catch (TimeoutException | StreamingQueryException e) {
      throw new BenchException("A reference stream failed: " + e.getMessage(), e);
    }
  }
}

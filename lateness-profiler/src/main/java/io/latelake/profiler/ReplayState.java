package io.latelake.profiler;

import static io.latelake.profiler.WatermarkReplay.NONE;
import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The watermark replay's peak of silver's deduplication state, per delay ({@link WatermarkReplay}).
 */
final class ReplayState {
  private ReplayState() {}

  /**
   * The most event ids silver's {@code dropDuplicatesWithinWatermark} holds in its state at the end
   * of a micro-batch, per delay. An id enters with its first copy's micro-batch unless that copy is
   * behind the watermark, and stays until a micro-batch starts with a watermark past its event time
   * + delay (Spark keeps the id until then, evicting at the end of that micro-batch); state rows
   * are counted after eviction, as Spark reports them.
   */
  static long[] peaks(
      SparkSession spark,
      Dataset<Row> keyed,
      ReplaySteps steps,
      List<Duration> delays,
      List<long[]> late,
      List<long[]> evict) {
    int n = delays.size();
    // per delay and micro-batch: sent to each executor once, not with every task
    org.apache.spark.api.java.JavaSparkContext jsc =
        org.apache.spark.api.java.JavaSparkContext.fromSparkContext(spark.sparkContext());
    org.apache.spark.broadcast.Broadcast<long[][]> lateB =
        jsc.broadcast(late.toArray(long[][]::new));
    org.apache.spark.broadcast.Broadcast<long[][]> evictB =
        jsc.broadcast(evict.toArray(long[][]::new));
    long[] delayMicros = delays.stream().mapToLong(d -> d.toMillis() * 1000).toArray();
    int count = steps.hasRows.length;
    List<Row> stepRows = new ArrayList<>();
    steps.stepOf.forEach((ingested, step) -> stepRows.add(RowFactory.create(ingested, step)));
    StructType stepSchema =
        new StructType().add("_ingested", DataTypes.LongType).add("_step", DataTypes.IntegerType);
    org.apache.spark.sql.api.java.UDF3<Integer, Integer, Long, Integer> exit =
        (i, s0, ev) -> {
          long w = lateB.value()[i][s0];
          if (w != NONE && ev <= w) {
            return -1; // the first copy is behind the watermark: never in state
          }
          // Spark evicts when watermark >= expiry; the watermark never moves back (NONE, the
          // smallest long, before the first), so the first such micro-batch is a binary search
          return firstAtLeast(evictB.value()[i], s0, count, ev + delayMicros[i]);
        };
    Column exitStep =
        org.apache
            .spark
            .sql
            .functions
            .udf(exit, DataTypes.IntegerType)
            .apply(col("_i"), col("_s0"), col("_ev"));
    spark.sparkContext().setJobDescription("profile: watermark replay, dedup state per delay");
    List<Row> changes;
    try {
      Dataset<Row> spans =
          keyed
              .join(broadcast(spark.createDataFrame(stepRows, stepSchema)), "_ingested")
              .groupBy(col("_id"))
              .agg(
                  org.apache.spark.sql.functions.min(col("_step")).as("_s0"),
                  org.apache.spark.sql.functions.min_by(col("_event"), col("_step")).as("_ev"))
              .select(
                  org.apache
                      .spark
                      .sql
                      .functions
                      .explode(org.apache.spark.sql.functions.sequence(lit(0), lit(n - 1)))
                      .as("_i"),
                  col("_s0"),
                  col("_ev"))
              .withColumn("_exit", exitStep)
              .filter(col("_exit").geq(0));
      changes =
          spans
              .select(col("_i"), col("_s0").as("_step"), lit(1L).as("_d"))
              .unionByName(spans.select(col("_i"), col("_exit").as("_step"), lit(-1L).as("_d")))
              .groupBy(col("_i"), col("_step"))
              .agg(org.apache.spark.sql.functions.sum(col("_d")).as("_d"))
              .collectAsList();
    } finally {
      spark.sparkContext().setJobDescription(null);
      lateB.destroy();
      evictB.destroy();
    }
    long[][] delta = new long[n][count + 1];
    for (Row r : changes) {
      delta[r.getInt(0)][r.getInt(1)] += r.getLong(2);
    }
    long[] peak = new long[n];
    for (int i = 0; i < n; i++) {
      long held = 0;
      for (int k = 0; k < count; k++) {
        held += delta[i][k];
        peak[i] = Math.max(peak[i], held);
      }
    }
    return peak;
  }

  /**
   * @param sorted non-decreasing
   * @return the first index in [from, to) whose value is at least {@code value}; {@code to} when
   *     none is
   */
  static int firstAtLeast(long[] sorted, int from, int to, long value) {
    int lo = from;
    int hi = to;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] >= value) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }
}

package io.latelake.bench;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;

import com.typesafe.config.Config;
import io.latelake.core.job.JobContext;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.TableRegistry;
import io.latelake.gold.GoldConfig;
import io.latelake.gold.GoldJob;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Instant;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The publish group's runs over a larger gold table ({@code publish-4x-table}, {@code
 * publish-4x-in-range}).
 */
final class PublishBench {
  private static final Logger LOG = LoggerFactory.getLogger(PublishBench.class);

  private final SparkSession spark;
  private final Config base;
  private final SyntheticEvents data;
  private final Recorded recorded;

  PublishBench(SparkSession spark, Config base, SyntheticEvents data, Recorded recorded) {
    this.spark = spark;
    this.base = base;
    this.data = data;
    this.recorded = recorded;
  }

  /**
   * Gold's lock-step MERGEs, slice by slice, into a gold table that holds 3× more rows first, in a
   * lake of its own. The extra rows are the lake's silver rows copied three times (ids suffixed
   * {@code -d1} .. {@code -d3}).
   *
   * @param inRange false: the copies are shifted 1, 2 and 3 days back, so the extra gold rows are
   *     older than the window range the MERGEs touch; true: the copies are other devices' rows
   *     ({@code device_id} suffixed too) at the same event times, so the extra rows are in the
   *     windows the MERGEs touch. Their gold is made in a lake of its own and appended to this
   *     lake's gold table after a first micro-batch of one row a day before the data (the table and
   *     checkpoint then exist, with a watermark behind every slice).
   * @return seconds of gold over the slices
   */
  double largeGold(Path root, GoldConfig gc, TableRegistry t, int r, boolean inRange) {
    Dataset<Row> silver = spark.read().format("delta").load(t.silverEvents());
    Dataset<Row> copies = null;
    for (int k = 1; k <= 3; k++) {
      Dataset<Row> s = silver.withColumn("event_id", concat(col("event_id"), lit("-d" + k)));
      if (inRange) {
        s = s.withColumn("device_id", concat(col("device_id"), lit("-d" + k)));
      } else {
        String back = "INTERVAL " + k + " DAYS";
        s =
            s.withColumn("event_time", col("event_time").minus(expr(back)))
                .withColumn("enqueued_time", col("enqueued_time").minus(expr(back)));
      }
      copies = copies == null ? s : copies.union(s);
    }
    Path landing = root.resolve("landing");
    TableRegistry lt =
        TableRegistry.fromConfig(
            Bench.lakeConfig(
                base, root.resolve(inRange ? "large-lake-in-range" : "large-lake"), landing));
    if (inRange) {
      TableRegistry ct =
          TableRegistry.fromConfig(Bench.lakeConfig(base, root.resolve("copies-lake"), landing));
      copies.write().format("delta").mode("overwrite").save(ct.silverEvents());
      new GoldJob(JobContext.start(spark, ct), gc).run();
      String dayBack = "INTERVAL 1 DAYS";
      silver
          .limit(1)
          .withColumn("event_id", lit("warm-up"))
          .withColumn("device_id", lit("warm-up"))
          .withColumn("event_time", col("event_time").minus(expr(dayBack)))
          .withColumn("enqueued_time", col("enqueued_time").minus(expr(dayBack)))
          .write()
          .format("delta")
          .mode("overwrite")
          .save(lt.silverEvents());
      new GoldJob(JobContext.start(spark, lt), gc).run();
      for (MetricSpec m : gc.metrics()) {
        spark
            .read()
            .format("delta")
            .load(ct.gold(m.name()))
            .write()
            .format("delta")
            .mode("append")
            .save(lt.gold(m.name()));
      }
    } else {
      copies.write().format("delta").mode("overwrite").save(lt.silverEvents());
      new GoldJob(JobContext.start(spark, lt), gc).run();
    }
    double seconds = 0;
    Instant prev = Instant.EPOCH;
    for (int i = 0; i < data.sliceCount(); i++) {
      Instant end = data.sliceEnd(i);
      silver
          .filter(
              col("enqueued_time")
                  .gt(lit(Timestamp.from(prev)))
                  .and(col("enqueued_time").leq(lit(Timestamp.from(end)))))
          .write()
          .format("delta")
          .mode("append")
          .save(lt.silverEvents());
      prev = end;
      seconds += Bench.time(() -> new GoldJob(JobContext.start(spark, lt), gc).run());
    }
    if (inRange) {
      // the 1x lake's rows, unchanged by the other devices' rows beside them
      for (MetricSpec m : gc.metrics()) {
        String[] cols = {"window_start", "window_end", "device_id", "events", "bytes"};
        Dataset<Row> own =
            spark
                .read()
                .format("delta")
                .load(lt.gold(m.name()))
                .filter(
                    org.apache
                        .spark
                        .sql
                        .functions
                        .not(col("device_id").rlike("-d[123]$"))
                        .and(col("device_id").notEqual("warm-up")))
                .selectExpr(cols);
        Dataset<Row> oneX = spark.read().format("delta").load(t.gold(m.name())).selectExpr(cols);
        long differences = HistoryBench.differences(own, oneX);
        if (differences > 0) {
          LOG.error(
              "publish-4x-in-range: {} rows of gold.{} differ from the 1x lake's",
              differences,
              m.name());
          recorded.fail("publish");
        }
      }
    }
    LOG.info(
        "repeat {}: gold over a 4x table ({}) took {} s",
        r + 1,
        inRange ? "extra rows in range" : "extra rows older",
        seconds);
    return seconds;
  }
}

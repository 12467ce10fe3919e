package io.latelake.bench;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import com.typesafe.config.Config;
import io.latelake.bronze.BronzeConfig;
import io.latelake.bronze.BronzeJob;
import io.latelake.core.job.JobContext;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.TableRegistry;
import io.latelake.correction.correct.CorrectJob;
import io.latelake.correction.correct.CorrectResult;
import io.latelake.correction.shared.CorrectionConfig;
import io.latelake.gold.GoldConfig;
import io.latelake.gold.GoldJob;
import io.latelake.silver.SilverConfig;
import io.latelake.silver.SilverJob;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The correction group of one repeat: {@code correct} after the late batch against the full
 * recompute, the least incremental correction, and with history days the {@link HistoryBench} rows.
 * Closed gold rows of each run are checked equal to the recompute's.
 */
final class CorrectionBench {
  private static final Logger LOG = LoggerFactory.getLogger(CorrectionBench.class);

  private final SparkSession spark;
  private final SyntheticEvents data;
  private final Recorded recorded;
  private final int historyDays;
  private final ProfileBench profiles;

  /**
   * @param historyDays the history rows' D; 0 leaves them out (as the warm-up does)
   * @param profiles the profile group, which times its profile over the history too; null when the
   *     run leaves the profile group out
   */
  CorrectionBench(
      SparkSession spark,
      SyntheticEvents data,
      Recorded recorded,
      int historyDays,
      ProfileBench profiles) {
    this.spark = spark;
    this.data = data;
    this.recorded = recorded;
    this.historyDays = historyDays;
    this.profiles = profiles;
  }

  void run(
      Config cfg,
      Path landing,
      TableRegistry t,
      BronzeConfig bc,
      SilverConfig sc,
      GoldConfig gc,
      MetricSpec metric,
      String ref) {
    // A first run (not timed) restates what the fast path dropped so far and leaves its state,
    // as the nightly run before would have; the timed run then finds the late batch alone.
    CorrectionConfig cc = CorrectionConfig.fromConfig(cfg);
    new CorrectJob(
            JobContext.start(spark, t),
            new CorrectJob.Options(cc, List.of(metric), Optional.of(Instant.EPOCH)))
        .run();
    data.writeLateBatch(landing);
    Instant beforeLate = Instant.now();
    new BronzeJob(JobContext.start(spark, t), bc).run();
    new SilverJob(JobContext.start(spark, t), sc).run();
    new GoldJob(JobContext.start(spark, t), gc).run();
    CorrectResult[] result = new CorrectResult[1];
    double ours =
        Bench.time(
            () ->
                result[0] =
                    new CorrectJob(
                            JobContext.start(spark, t),
                            new CorrectJob.Options(cc, List.of(metric), Optional.empty()))
                        .run());
    String recomputed = ref + "/recomputed";
    double reference =
        Bench.time(
            () -> BatchBaselines.recompute(spark, t.bronzeEvents(), recomputed, metric.window()));
    Instant watermark = result[0].metrics().get(0).watermark();
    Dataset<Row> published =
        closed(spark.read().format("delta").load(t.gold(metric.name())), watermark);
    Dataset<Row> expected = closed(spark.read().format("delta").load(recomputed), watermark);
    long differences = HistoryBench.differences(published, expected);
    if (differences > 0) {
      recorded.fail("correction");
      LOG.warn("correct and the full recompute differ in {} closed gold rows", differences);
    }
    Set<Long> touched = new HashSet<>();
    for (SyntheticEvents.Event e : data.lateBatch()) {
      touched.add(e.eventTime().toEpochMilli() / metric.window().toMillis());
    }
    long windows =
        spark
            .read()
            .format("delta")
            .load(t.gold(metric.name()))
            .select("window_start")
            .distinct()
            .count();
    double share = touched.size() / (double) Math.max(1, windows);
    recorded.correctionTarget(Math.max(0.15, 2 * share));
    recorded.record("correction", ours, reference);
    // the least incremental correction, into the recomputed table (its rows do not change)
    double least =
        Bench.time(
            () ->
                BatchBaselines.incrementalRecompute(
                    spark, t.bronzeEvents(), recomputed, beforeLate, metric.window()));
    recorded.record("correction-bound", least, reference);
    // The bound MERGEd its recompute of the touched windows into the recomputed table: that
    // table must still equal the product's gold (the bound's output checked, not only timed).
    long boundDifferences =
        HistoryBench.differences(
            published, closed(spark.read().format("delta").load(recomputed), watermark));
    if (boundDifferences > 0) {
      recorded.fail("correction");
      LOG.warn("correction-bound's MERGE left {} closed rows unlike correct's", boundDifferences);
    }
    if (historyDays > 0) {
      HistoryBench history = new HistoryBench(spark, t, cc, bc, metric, data, landing, ref);
      history.extendTo(historyDays);
      HistoryBench.Run one = history.measure(HistoryBench.Shape.CONTIGUOUS);
      HistoryBench.Run spread = history.measure(HistoryBench.Shape.SPREAD);
      ProfileBench.NewDay profileOne = profiles == null ? null : profiles.newDay(cfg, t);
      history.extendTo(4 * historyDays);
      HistoryBench.Run four = history.measure(HistoryBench.Shape.CONTIGUOUS);
      if (profiles != null) {
        ProfileBench.NewDay profileFour = profiles.newDay(cfg, t);
        recorded.record("profile-history", profileOne.profile(), profileOne.dayScan());
        recorded.record("profile-growth", profileFour.profile(), profileOne.profile());
        recorded.bronzeScanGrowth(profileFour.bronzeScan() / profileOne.bronzeScan());
      }
      long historyDifferences = one.differences() + spread.differences() + four.differences();
      if (historyDifferences > 0) {
        recorded.fail("correction-history");
        LOG.warn(
            "correct and the full recompute (or its bound) differ over the history in {} closed "
                + "gold rows",
            historyDifferences);
      }
      recorded.record("correction-history", one.correct(), one.recompute());
      recorded.record("correction-history-bound", one.bound(), one.recompute());
      recorded.record("correction-history-spread", spread.correct(), spread.recompute());
      recorded.record("correction-growth", four.correct(), one.correct());
      recorded.recomputeGrowth(four.recompute() / one.recompute());
    }
  }

  static Dataset<Row> closed(Dataset<Row> gold, Instant watermark) {
    Dataset<Row> g = gold.select("window_start", "window_end", "device_id", "events", "bytes");
    return watermark == null
        ? g.limit(0)
        : g.filter(col("window_end").leq(lit(Timestamp.from(watermark))));
  }
}

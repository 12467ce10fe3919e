package io.latelake.gold;

import io.latelake.core.metric.GoldMergePlan;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.streaming.MicroBatchCommits;
import io.latelake.core.table.DeltaRetry;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * MERGE of one micro-batch of windowed aggregates into {@code gold.<metric>} with the metric's
 * {@link GoldMergePlan} (keyed on {@code window_start} and the group-by columns, null-safe; bounded
 * to the batch's windows so Delta skips the other files).
 *
 * <p>Idempotent twice over: the commit carries the marker of {@link MicroBatchCommits} (writer id =
 * the query name with the checkpoint's query id, and the batch id; Delta's {@code txnAppId}/{@code
 * txnVersion} with the same ids on a table without markers), so a replayed batch is skipped; and a
 * matched row is updated only when a measure changed, so re-applying the same values never touches
 * {@code updated_at}.
 */
public final class GoldMerge {
  private static final String TXN_APP_ID = "spark.databricks.delta.write.txnAppId";
  private static final String TXN_VERSION = "spark.databricks.delta.write.txnVersion";
  private static final String USER_METADATA = "spark.databricks.delta.commitInfo.userMetadata";

  /** Attempts of a MERGE that lost to a concurrent commit (a correction) before the batch fails. */
  private static final int COMMIT_ATTEMPTS = 5;

  private static final java.time.Duration COMMIT_BACKOFF = java.time.Duration.ofMillis(500);

  private GoldMerge() {}

  /**
   * No-data micro-batches (empty) commit nothing.
   *
   * @param batch one micro-batch of {@link io.latelake.core.metric.MetricAggregation#aggregate}
   *     rows (update mode: each key at most once)
   * @param batchId the micro-batch id
   * @param path the gold table
   * @param metric the metric
   */
  public static void merge(Dataset<Row> batch, long batchId, String path, MetricSpec metric) {
    // The batch is read twice (its size and window range in one job, then the MERGE): compute it
    // once. A no-data micro-batch costs that one job, which also runs its stateful plan. Computing
    // it once also keeps the micro-batch's observations (the rows read, the arrivals) counted once.
    Dataset<Row> rows = batch.persist();
    try {
      GoldMergePlan plan = GoldMergePlan.of(metric);
      Row sizeAndRange = plan.sizeAndWindowRange(rows);
      if (sizeAndRange.getLong(0) > 0) {
        mergeRows(rows, batchId, path, metric, plan, plan.condition(sizeAndRange));
      } else {
        MicroBatchCommits.settled(
            path, writer(rows, metric), batchId); // nothing, now or on a rerun
      }
    } finally {
      rows.unpersist();
    }
  }

  private static void mergeRows(
      Dataset<Row> batch,
      long batchId,
      String path,
      MetricSpec metric,
      GoldMergePlan plan,
      Column on) {
    SparkSession s = batch.sparkSession();
    String writer = writer(batch, metric);
    MicroBatchCommits.Decision d = MicroBatchCommits.before(s, path, writer, batchId);
    if (d == MicroBatchCommits.Decision.SKIP) {
      MicroBatchCommits.settled(path, writer, batchId);
      return;
    }
    s.conf().set(USER_METADATA, MicroBatchCommits.marker(writer, batchId));
    if (d == MicroBatchCommits.Decision.WRITE_CHECKED_BY_DELTA) {
      s.conf().set(TXN_APP_ID, writer);
      s.conf().set(TXN_VERSION, Long.toString(batchId));
    }
    try {
      // A correction committing at the same moment makes this commit lose: try again (bounded).
      DeltaRetry.run(
          "gold MERGE into " + path + " (micro-batch " + batchId + ")",
          COMMIT_ATTEMPTS,
          COMMIT_BACKOFF,
          () -> {
            plan.execute(batch, path, on, GoldMergePlan.Stamps.stream());
            return null;
          });
    } finally {
      s.conf().unset(USER_METADATA);
      s.conf().unset(TXN_APP_ID);
      s.conf().unset(TXN_VERSION);
    }
    MicroBatchCommits.settled(path, writer, batchId);
  }

  /**
   * The writer id of the query's commits: the query name with the checkpoint's query id, so a new
   * checkpoint (backfill) starts at batch 0 again.
   */
  private static String writer(Dataset<Row> batch, MetricSpec metric) {
    String queryId = batch.sparkSession().sparkContext().getLocalProperty("sql.streaming.queryId");
    return "latelake-" + metric.queryName() + (queryId == null ? "" : "-" + queryId);
  }
}

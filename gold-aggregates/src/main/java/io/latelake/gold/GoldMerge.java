package io.latelake.gold;

import io.latelake.core.metric.GoldLayout;
import io.latelake.core.metric.MetricSpec;
import io.delta.tables.DeltaTable;
import io.latelake.core.table.DeltaRetry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * MERGE of one micro-batch of windowed aggregates into {@code gold.<metric>}, keyed on
 * ({@code window_start}, group-by columns).
 *
 * <p>Idempotent twice over: the commit carries Delta's {@code txnAppId}/{@code txnVersion}
 * (the query name with the checkpoint's query id, and the batch id), so a replayed batch is
 * skipped; and a matched row is updated only
 * when a measure changed, so re-applying the same values never touches {@code updated_at}.
 */
public final class GoldMerge {
  private static final String TXN_APP_ID = "spark.databricks.delta.write.txnAppId";
  private static final String TXN_VERSION = "spark.databricks.delta.write.txnVersion";
  /** Attempts of a MERGE that lost to a concurrent commit (a correction) before the batch fails. */
  private static final int COMMIT_ATTEMPTS = 5;
  private static final java.time.Duration COMMIT_BACKOFF = java.time.Duration.ofMillis(500);

  private GoldMerge() {}

  /**
   * Gold table schema (see {@link GoldLayout#tableSchema}): the aggregate's columns, then
   * {@code updated_at} timestamp (last stream write) and {@code corrected_at} timestamp (null
   * until a correction changes the row).
   */
  public static StructType tableSchema(StructType aggregate) {
    return GoldLayout.tableSchema(aggregate);
  }

  /**
   * No-data micro-batches (empty) commit nothing.
   *
   * @param batch one micro-batch of {@link io.latelake.core.metric.MetricAggregation#aggregate} rows (update mode: each key
   *     at most once)
   * @param batchId the micro-batch id
   * @param path the gold table
   * @param metric the metric
   */
  public static void merge(Dataset<Row> batch, long batchId, String path, MetricSpec metric) {
    // The batch is read more than once (emptiness check, MERGE): compute it once.
    Dataset<Row> rows = batch.persist();
    try {
      if (!rows.isEmpty()) {
        mergeRows(rows, batchId, path, metric);
      }
    } finally {
      rows.unpersist();
    }
  }

  private static void mergeRows(Dataset<Row> batch, long batchId, String path, MetricSpec metric) {
    SparkSession s = batch.sparkSession();
    // Scoped to the checkpoint (its query id): a new checkpoint (backfill) starts at batch 0 again.
    String queryId = s.sparkContext().getLocalProperty("sql.streaming.queryId");
    s.conf().set(TXN_APP_ID, "latelake-" + metric.queryName()
        + (queryId == null ? "" : "-" + queryId));
    s.conf().set(TXN_VERSION, Long.toString(batchId));
    try {
      String on = keyCondition(metric);
      String changed = metric.measureNames().stream()
          .map(m -> "t.`" + m + "` <=> s.`" + m + "`")
          .collect(Collectors.joining(" AND ", "NOT (", ")"));
      Map<String, String> update = new LinkedHashMap<>();
      update.put("window_end", "s.window_end");
      for (String m : metric.measureNames()) {
        update.put("`" + m + "`", "s.`" + m + "`");
      }
      update.put("updated_at", "current_timestamp()");
      Map<String, String> insert = new LinkedHashMap<>();
      insert.put("window_start", "s.window_start");
      for (String g : metric.groupBy()) {
        insert.put("`" + g + "`", "s.`" + g + "`");
      }
      insert.putAll(update);
      insert.put("corrected_at", "CAST(NULL AS TIMESTAMP)");
      // A correction committing at the same moment makes this commit lose: try again (bounded).
      DeltaRetry.run("gold MERGE into " + path + " (micro-batch " + batchId + ")",
          COMMIT_ATTEMPTS, COMMIT_BACKOFF, () -> {
            DeltaTable.forPath(s, path).as("t")
                .merge(batch.as("s"), on)
                .whenMatched(changed).updateExpr(update)
                .whenNotMatched().insertExpr(insert)
                .execute();
            return null;
          });
    } finally {
      s.conf().unset(TXN_APP_ID);
      s.conf().unset(TXN_VERSION);
    }
  }

  /** @return the MERGE key condition: window_start and each group-by column, null-safe */
  public static String keyCondition(MetricSpec metric) {
    return GoldLayout.keyCondition(metric);
  }
}

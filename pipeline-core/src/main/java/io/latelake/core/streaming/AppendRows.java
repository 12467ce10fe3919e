package io.latelake.core.streaming;

import org.apache.spark.sql.DataFrameWriter;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * One micro-batch of an append stream, appended to its Delta table exactly once ({@link
 * MicroBatchCommits}: the commit carries the query's marker; a micro-batch the table may already
 * hold is looked up first). Without empty commits ({@link StreamPlan.Append#withoutEmptyCommits}) a
 * micro-batch without rows (Spark's no-data micro-batch after a watermark move) commits nothing.
 */
final class AppendRows {
  private AppendRows() {}

  /**
   * Appends the micro-batch with the marker of writer id = the query id, the identifier Delta's
   * streaming sink used for its {@code txnAppId}: a micro-batch the sink or an earlier version
   * committed is not written again after a restart ({@link
   * MicroBatchCommits.Decision#WRITE_CHECKED_BY_DELTA}). Without empty commits the micro-batch is
   * computed once first (persisted: its stateful plan and its observations run once, in the job
   * that counts its rows, even when the table already holds it); with them it is written without
   * that count (Delta commits nothing for an empty append that carries only the marker).
   *
   * @param batch the micro-batch
   * @param batchId its id
   * @param path the Delta table
   * @param sink partition columns, writer options, empty commits or not
   * @throws IllegalStateException when the query id is not set (not called by a streaming query)
   */
  static void write(Dataset<Row> batch, long batchId, String path, StreamPlan.Append sink) {
    String queryId = batch.sparkSession().sparkContext().getLocalProperty(QUERY_ID);
    if (queryId == null) {
      throw new IllegalStateException("an append micro-batch outside a streaming query: " + path);
    }
    if (sink.emptyCommits()) {
      append(batch, batchId, path, sink, queryId);
      return;
    }
    Dataset<Row> rows = batch.persist();
    try {
      if (rows.count() == 0) {
        MicroBatchCommits.settled(path, queryId, batchId); // nothing to commit, now or on a rerun
        return;
      }
      append(rows, batchId, path, sink, queryId);
    } finally {
      rows.unpersist();
    }
  }

  private static void append(
      Dataset<Row> rows, long batchId, String path, StreamPlan.Append sink, String queryId) {
    MicroBatchCommits.Decision d =
        MicroBatchCommits.before(rows.sparkSession(), path, queryId, batchId);
    if (d != MicroBatchCommits.Decision.SKIP) {
      DataFrameWriter<Row> w =
          rows.write()
              .format("delta")
              .mode("append")
              .options(sink.options())
              .option("userMetadata", MicroBatchCommits.marker(queryId, batchId));
      if (d == MicroBatchCommits.Decision.WRITE_CHECKED_BY_DELTA) {
        w = w.option("txnAppId", queryId).option("txnVersion", batchId);
      }
      if (!sink.partitionBy().isEmpty()) {
        w = w.partitionBy(sink.partitionBy().toArray(String[]::new));
      }
      w.save(path);
    }
    MicroBatchCommits.settled(path, queryId, batchId);
  }

  /** The local property Spark sets to the query's id on the thread that runs its micro-batches. */
  private static final String QUERY_ID = "sql.streaming.queryId";
}

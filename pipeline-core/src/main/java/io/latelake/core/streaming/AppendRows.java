package io.latelake.core.streaming;

import org.apache.spark.sql.DataFrameWriter;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * One micro-batch of an append stream without empty commits ({@link
 * StreamPlan.Append#withoutEmptyCommits}): appended to the Delta table when it has rows, as an
 * idempotent write; a micro-batch without rows (Spark's no-data micro-batch after a watermark move)
 * commits nothing.
 */
final class AppendRows {
  private AppendRows() {}

  /**
   * Computes the micro-batch once (persisted: its stateful plan and its observations run once, in
   * the job that counts its rows) and appends it when it has rows, with Delta's {@code txnAppId} =
   * the query id and {@code txnVersion} = {@code batchId}: Delta skips the write when the table
   * already records that version for that id (a micro-batch rerun after a crash between the table's
   * commit and the checkpoint's), as its streaming sink does with the same identifiers.
   *
   * @param batch the micro-batch
   * @param batchId its id
   * @param path the Delta table
   * @param sink partition columns and writer options
   * @throws IllegalStateException when the query id is not set (not called by a streaming query)
   */
  static void write(Dataset<Row> batch, long batchId, String path, StreamPlan.Append sink) {
    String queryId = batch.sparkSession().sparkContext().getLocalProperty(QUERY_ID);
    if (queryId == null) {
      throw new IllegalStateException("an append micro-batch outside a streaming query: " + path);
    }
    Dataset<Row> rows = batch.persist();
    try {
      if (rows.count() == 0) {
        return;
      }
      DataFrameWriter<Row> w =
          rows.write()
              .format("delta")
              .mode("append")
              .options(sink.options())
              .option("txnAppId", queryId)
              .option("txnVersion", batchId);
      if (!sink.partitionBy().isEmpty()) {
        w = w.partitionBy(sink.partitionBy().toArray(String[]::new));
      }
      w.save(path);
    } finally {
      rows.unpersist();
    }
  }

  /** The local property Spark sets to the query's id on the thread that runs its micro-batches. */
  private static final String QUERY_ID = "sql.streaming.queryId";
}

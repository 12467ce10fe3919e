package io.latelake.core.streaming;

import io.delta.tables.DeltaTable;
import io.latelake.core.table.DeltaTables;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;

/**
 * Refuses to start a stream whose output table already has data but whose checkpoint is gone: that
 * would silently reprocess the whole input from scratch.
 */
public final class CheckpointGuard {
  private CheckpointGuard() {}

  /**
   * @param spark session (for the Hadoop configuration)
   * @param queryName the stream's query name
   * @param tablePath the stream's output table
   * @param checkpointPath the stream's checkpoint folder
   * @throws CheckpointException (exit code 2) when the table has commits and the checkpoint has no
   *     offsets
   */
  public static void requireCheckpointIfTableHasData(
      SparkSession spark, String queryName, String tablePath, String checkpointPath) {
    requireCheckpointIfTableHasData(
        spark, queryName, tablePath, checkpointPath, java.util.Optional.empty());
  }

  /**
   * As {@link #requireCheckpointIfTableHasData(SparkSession, String, String, String)}, for a table
   * several queries append to: with {@code ownRows}, a table "has data" for this query only when it
   * holds a row matching {@code ownRows} (one look that stops at the first such row), so a new
   * query's first start is allowed, and a query that lost its checkpoint is still refused.
   *
   * @param ownRows the rows this query writes, or empty for a table only this query writes
   */
  public static void requireCheckpointIfTableHasData(
      SparkSession spark,
      String queryName,
      String tablePath,
      String checkpointPath,
      java.util.Optional<org.apache.spark.sql.Column> ownRows) {
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    try {
      Path offsets = new Path(checkpointPath, "offsets");
      // a file listing first: a started checkpoint needs no look at the table
      boolean hasCheckpoint =
          offsets.getFileSystem(conf).exists(offsets)
              && offsets.getFileSystem(conf).listStatus(offsets).length > 0;
      if (hasCheckpoint) {
        return;
      }
      // a commit after version 0 (the table's creation), as Delta's history reports it
      boolean tableHasData =
          DeltaTables.exists(spark, tablePath)
              && DeltaTable.forPath(spark, tablePath)
                      .history(1)
                      .select("version")
                      .first()
                      .getLong(0)
                  > 0;
      if (tableHasData && ownRows.isPresent()) {
        tableHasData =
            !spark.read().format("delta").load(tablePath).filter(ownRows.get()).isEmpty();
      } else if (tableHasData) {
        tableHasData = !onlyMetadataCommits(spark, tablePath);
      }
      if (tableHasData) {
        throw new CheckpointException(
            "Cannot start stream '"
                + queryName
                + "': table "
                + tablePath
                + " has commits but checkpoint "
                + checkpointPath
                + " has none. Restarting from "
                + "scratch would read the input again; restore the checkpoint, or delete the table "
                + "and the checkpoint to rebuild on purpose.");
      }
    } catch (IOException e) {
      throw new io.latelake.core.table.StorageException(
          "Cannot check checkpoint " + checkpointPath + ": " + e.getMessage(), e);
    }
  }

  /**
   * @return true when the table has at most 10 commits, all still in its history, and none wrote
   *     data: creation and table properties only (streams record their watermark delay, gold its
   *     metric definition, before the first micro-batch)
   */
  private static boolean onlyMetadataCommits(SparkSession spark, String tablePath) {
    java.util.List<org.apache.spark.sql.Row> commits =
        io.delta.tables.DeltaTable.forPath(spark, tablePath)
            .history(10)
            .select("version", "operation")
            .collectAsList();
    return commits.stream().anyMatch(r -> r.getLong(0) == 0)
        && commits.stream()
            .allMatch(
                r ->
                    java.util.Set.of("CREATE TABLE", "SET TBLPROPERTIES").contains(r.getString(1)));
  }
}

package io.latelake.core.streaming;

import java.io.IOException;
import java.util.Optional;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;

/** Moving a streaming query's checkpoint folder aside (kept, never deleted). */
public final class CheckpointMoves {
  private CheckpointMoves() {}

  /**
   * Renames the checkpoint folder {@code from} to {@code to} (any Hadoop file system), so a new
   * checkpoint can start at {@code from} while the old one stays for inspection.
   *
   * @return {@code to}, or empty when there was no folder at {@code from}
   * @throws io.latelake.core.table.StorageException (exit 1) when {@code to} exists or the rename
   *     fails
   */
  public static Optional<String> moveAside(SparkSession spark, String from, String to) {
    try {
      Path src = new Path(from);
      Path dst = new Path(to);
      FileSystem fs = src.getFileSystem(spark.sparkContext().hadoopConfiguration());
      if (!fs.exists(src)) {
        return Optional.empty();
      }
      if (fs.exists(dst)) {
        throw new IOException(to + " exists already");
      }
      if (!fs.rename(src, dst)) {
        throw new IOException("the file system refused the rename");
      }
      return Optional.of(to);
    } catch (IOException e) {
      throw new io.latelake.core.table.StorageException(
          "Cannot move checkpoint " + from + " aside to " + to + ": " + e.getMessage(), e);
    }
  }
}

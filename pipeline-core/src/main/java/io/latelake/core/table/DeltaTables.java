package io.latelake.core.table;

import io.delta.tables.DeltaTable;
import io.delta.tables.DeltaTableBuilder;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/** Creating and probing Delta tables by path. */
public final class DeltaTables {
  private DeltaTables() {}

  /**
   * Creates an empty Delta table at {@code path} unless one is there.
   *
   * @param schema columns
   * @param partitionBy partition columns (may be empty)
   * @param properties table properties, e.g. {@code delta.enableChangeDataFeed=true}
   */
  public static void createIfNotExists(
      SparkSession spark,
      String path,
      StructType schema,
      List<String> partitionBy,
      Map<String, String> properties) {
    if (DeltaTable.isDeltaTable(spark, path)) {
      return;
    }
    DeltaTableBuilder b = DeltaTable.createIfNotExists(spark).location(path);
    for (StructField f : schema.fields()) {
      b = b.addColumn(f);
    }
    if (!partitionBy.isEmpty()) {
      b = b.partitionedBy(partitionBy.toArray(String[]::new));
    }
    for (Map.Entry<String, String> p : properties.entrySet()) {
      b = b.property(p.getKey(), p.getValue());
    }
    b.execute();
  }

  /**
   * @return true when a file or folder exists at {@code path} (any Hadoop file system)
   * @throws java.io.UncheckedIOException when the file system cannot be asked
   */
  public static boolean pathExists(SparkSession spark, String path) {
    try {
      org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(path);
      return p.getFileSystem(spark.sparkContext().hadoopConfiguration()).exists(p);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("Cannot check " + path, e);
    }
  }

  /**
   * @return true when a Delta table exists at {@code path}
   */
  public static boolean exists(SparkSession spark, String path) {
    return DeltaTable.isDeltaTable(spark, path);
  }
}

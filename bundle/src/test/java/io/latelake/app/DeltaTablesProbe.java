package io.latelake.app;

import io.latelake.core.table.DeltaTables;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** Reads figures of tables another process is writing (0 while they do not exist yet). */
final class DeltaTablesProbe {
  private DeltaTablesProbe() {}

  static long count(SparkSession spark, String path) {
    return DeltaTables.exists(spark, path) ? spark.read().format("delta").load(path).count() : 0;
  }

  static long sum(SparkSession spark, String path, String column) {
    if (!DeltaTables.exists(spark, path)) {
      return 0;
    }
    Row r = spark.read().format("delta").load(path).selectExpr("sum(" + column + ")").first();
    return r.isNullAt(0) ? 0 : r.getLong(0);
  }
}

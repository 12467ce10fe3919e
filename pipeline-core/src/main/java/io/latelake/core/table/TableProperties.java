package io.latelake.core.table;

import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** A Delta table's user properties (the table's metadata), read and set through Delta. */
public final class TableProperties {
  private TableProperties() {}

  /**
   * @return the value of {@code key}, empty when the property is not set
   * @throws org.apache.spark.sql.AnalysisException (unchecked) when no Delta table is at {@code
   *     path}
   */
  public static Optional<String> get(SparkSession spark, String path, String key) {
    // SHOW TBLPROPERTIES reads the snapshot's metadata only; DESCRIBE DETAIL (DeltaTable.detail())
    // also sums the table's files, a Spark job over its log: 4 s of a new JVM's start, measured.
    for (Row r :
        spark.sql("SHOW TBLPROPERTIES delta.`" + path.replace("`", "``") + "`").collectAsList()) {
      if (key.equals(r.getString(0))) {
        return Optional.of(r.getString(1));
      }
    }
    return Optional.empty();
  }

  /**
   * Sets properties with {@code ALTER TABLE ... SET TBLPROPERTIES}: one metadata-only commit (a new
   * table version, no data file touched). Path, keys and values are quoted as SQL literals.
   */
  public static void set(SparkSession spark, String path, Map<String, String> properties) {
    String props =
        properties.entrySet().stream()
            .map(e -> literal(e.getKey()) + " = " + literal(e.getValue()))
            .collect(Collectors.joining(", "));
    spark.sql(
        "ALTER TABLE delta.`" + path.replace("`", "``") + "` SET TBLPROPERTIES (" + props + ")");
  }

  private static String literal(String s) {
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }
}

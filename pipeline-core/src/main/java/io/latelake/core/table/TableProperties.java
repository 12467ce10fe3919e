package io.latelake.core.table;

import io.delta.tables.DeltaTable;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
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
    Map<String, String> props =
        DeltaTable.forPath(spark, path).detail().select("properties").first().getJavaMap(0);
    return Optional.ofNullable(props.get(key));
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

package io.latelake.core.table;

import io.delta.kernel.Table;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.tables.DeltaTable;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A Delta table's user properties (the table's metadata), read and set through Delta. */
public final class TableProperties {
  private static final Logger LOG = LoggerFactory.getLogger(TableProperties.class);

  private TableProperties() {}

  /**
   * @return the value of {@code key}, empty when the property is not set
   * @throws org.apache.spark.sql.AnalysisException (unchecked) when no Delta table is at {@code
   *     path}
   */
  public static Optional<String> get(SparkSession spark, String path, String key) {
    return Optional.ofNullable(all(spark, path).get(key));
  }

  /**
   * The table's properties as its latest snapshot's metadata holds them. Read with Delta Kernel,
   * which takes them from the log (its checksum file when there is one) without a Spark job: {@code
   * DESCRIBE DETAIL} ({@link DeltaTable#detail()}) also sums the table's files in a Spark job,
   * about 4 s in a new JVM's start (docs/benchmark.md, "A stream start"), and {@code SHOW
   * TBLPROPERTIES} masks values that look like URLs or secrets. A table Kernel cannot read (a
   * feature it lacks), or no table at {@code path}, gets {@code DESCRIBE DETAIL}'s answer instead.
   *
   * @throws org.apache.spark.sql.AnalysisException (unchecked) when no Delta table is at {@code
   *     path}
   */
  static Map<String, String> all(SparkSession spark, String path) {
    try {
      return withKernel(spark, path);
    } catch (RuntimeException | LinkageError e) {
      LOG.debug("Delta Kernel did not read the properties of {}: {}", path, e.toString());
      return DeltaTable.forPath(spark, path).detail().select("properties").first().getJavaMap(0);
    }
  }

  /**
   * @return the properties of the table's latest snapshot, read with Delta Kernel
   * @throws io.delta.kernel.exceptions.TableNotFoundException when no table is at {@code path}
   */
  static Map<String, String> withKernel(SparkSession spark, String path) {
    Engine engine = DefaultEngine.create(spark.sparkContext().hadoopConfiguration());
    return Table.forPath(engine, path).getLatestSnapshot(engine).getTableProperties();
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

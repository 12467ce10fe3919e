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
    if (kernelUsable) {
      try {
        return withKernel(spark, path);
      } catch (LinkageError e) {
        // another Kernel version on the class path (a cluster's own jars): say so once
        kernelUsable = false;
        LOG.warn(
            "Delta Kernel cannot be used here ({}); table properties are read with DESCRIBE "
                + "DETAIL, a Spark job per read",
            e.toString());
      } catch (RuntimeException e) {
        if (FELL_BACK.add(path)) {
          LOG.info(
              "Delta Kernel did not read the properties of {} ({}); reading them with DESCRIBE "
                  + "DETAIL",
              path,
              e.toString());
        }
      }
    }
    return DeltaTable.forPath(spark, path).detail().select("properties").first().getJavaMap(0);
  }

  /** False once Kernel's classes failed to link: every read then uses DESCRIBE DETAIL. */
  private static volatile boolean kernelUsable = true;

  /** Tables whose Kernel read failed and was logged (once per table). */
  private static final java.util.Set<String> FELL_BACK =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  /**
   * @return the properties of the table's latest snapshot, read with Delta Kernel
   * @throws io.delta.kernel.exceptions.TableNotFoundException when no table is at {@code path}
   */
  static Map<String, String> withKernel(SparkSession spark, String path) {
    io.latelake.core.spark.KernelLogs.quiet();
    Engine engine = new QuietEngine(spark.sparkContext().hadoopConfiguration());
    return Table.forPath(engine, path).getLatestSnapshot(engine).getTableProperties();
  }

  /**
   * Kernel's default engine without its metrics reporter, which logs a JSON report of every
   * snapshot read at INFO.
   */
  private static final class QuietEngine extends DefaultEngine {
    QuietEngine(org.apache.hadoop.conf.Configuration conf) {
      super(new io.delta.kernel.defaults.engine.hadoopio.HadoopFileIO(conf));
    }

    @Override
    public java.util.List<io.delta.kernel.engine.MetricsReporter> getMetricsReporters() {
      return java.util.List.of();
    }
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

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
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(DeltaTables.class);

  /** Tries of a creation that lost to a concurrent one whose table is not committed yet. */
  private static final int CREATE_ATTEMPTS = 10;

  private DeltaTables() {}

  /**
   * Creates an empty Delta table at {@code path} unless one is there.
   *
   * @param schema columns
   * @param partitionBy partition columns (may be empty)
   * @param properties table properties, e.g. {@code delta.enableChangeDataFeed=true}
   * @throws IllegalStateException wrapping Delta's (checked) error when no table could be created
   *     and none appeared within about 11 s, e.g. a folder at {@code path} that is not a Delta
   *     table; Spark's unchecked errors (no permission, a bad property) are rethrown as they are,
   *     also after about 11 s of tries
   */
  public static void createIfNotExists(
      SparkSession spark,
      String path,
      StructType schema,
      List<String> partitionBy,
      Map<String, String> properties) {
    createIfNotExists(spark, path, schema, partitionBy, List.of(), properties, CREATE_ATTEMPTS);
  }

  /**
   * As {@link #createIfNotExists(SparkSession, String, StructType, List, Map)} for a table without
   * partitions whose files Delta's liquid clustering keeps ordered by {@code clusterBy} (Delta's
   * {@code CLUSTER BY}: {@code OPTIMIZE} clusters them; writes are not reordered). A filter or a
   * {@code replaceWhere} on those columns skips files by their statistics, without one folder per
   * value.
   *
   * @param clusterBy clustering columns (1 to 4)
   */
  public static void createClusteredIfNotExists(
      SparkSession spark,
      String path,
      StructType schema,
      List<String> clusterBy,
      Map<String, String> properties) {
    createIfNotExists(spark, path, schema, List.of(), clusterBy, properties, CREATE_ATTEMPTS);
  }

  /**
   * @return the table's partition columns (empty when it has none or no table is at {@code path})
   */
  public static List<String> partitionColumns(SparkSession spark, String path) {
    if (!exists(spark, path)) {
      return List.of();
    }
    return DeltaTable.forPath(spark, path)
        .detail()
        .select("partitionColumns")
        .first()
        .getList(0)
        .stream()
        .map(String::valueOf)
        .toList();
  }

  /** As above, trying at most {@code attempts} times (tests: fewer). */
  static void createIfNotExists(
      SparkSession spark,
      String path,
      StructType schema,
      List<String> partitionBy,
      List<String> clusterBy,
      Map<String, String> properties,
      int attempts) {
    if (exists(spark, path)) {
      return;
    }
    DeltaTableBuilder b = DeltaTable.createIfNotExists(spark).location(path);
    for (StructField f : schema.fields()) {
      b = b.addColumn(f);
    }
    if (!partitionBy.isEmpty()) {
      b = b.partitionedBy(partitionBy.toArray(String[]::new));
    }
    if (!clusterBy.isEmpty()) {
      b = b.clusterBy(clusterBy.toArray(String[]::new));
    }
    for (Map.Entry<String, String> p : properties.entrySet()) {
      b = b.property(p.getKey(), p.getValue());
    }
    Exception lost = null;
    // Two first starts at once (two bronze sources on an empty lake): both saw no table and one
    // of the two creations lost (DELTA_PROTOCOL_CHANGED, DELTA_METADATA_CHANGED, or
    // DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION while the other one's first commit is still being
    // written). The table the other one created is the table wanted; until its commit is there,
    // wait and try again, at most `attempts` times.
    for (int attempt = 1; attempt <= attempts; attempt++) {
      try {
        b.execute();
        return;
      } catch (Exception e) { // Delta's AnalysisException is a checked exception to Java
        if (exists(spark, path)) {
          LOG.warn(
              "Creating {} lost to a concurrent creation ({}); using the table it created",
              path,
              e.getClass().getSimpleName());
          return;
        }
        if (lost == null) {
          lost = e; // the first error says most (later tries may see Delta's cached view)
        }
      }
      try {
        Thread.sleep(200L * attempt);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      if (exists(spark, path)) {
        LOG.warn(
            "Creating {} lost to a concurrent creation ({}); using the table it created",
            path,
            lost.getClass().getSimpleName());
        return;
      }
    }
    throw lost instanceof RuntimeException r
        ? r
        : new IllegalStateException(
            "Cannot create Delta table " + path + ": " + lost.getMessage(), lost);
  }

  /**
   * @return {@code path} made absolute on its file system (a path without scheme on the default
   *     one), without scheme and authority and without a trailing slash, e.g. {@code /lake/landing}
   * @throws java.io.UncheckedIOException when the file system cannot be asked
   */
  public static String absolutePath(SparkSession spark, String path) {
    try {
      org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(path);
      p = p.getFileSystem(spark.sparkContext().hadoopConfiguration()).makeQualified(p);
      return p.toUri().getPath().replaceAll("/+$", "");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("Cannot resolve " + path, e);
    }
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
   * Whether a Delta table exists at {@code path}, as seen now. Delta's own check ({@link
   * DeltaTable#isDeltaTable}) answers from the transaction log it cached for the path without
   * refreshing it: a JVM that first looked while another process was creating the table (its log
   * folder there, no commit yet) is told "no table" for as long as it lives. A "no" for a path that
   * exists is therefore confirmed by reading the table, which refreshes Delta's log.
   *
   * @return true when a Delta table exists at {@code path}
   */
  public static boolean exists(SparkSession spark, String path) {
    if (DeltaTable.isDeltaTable(spark, path)) {
      return true;
    }
    if (!pathExists(spark, path)) {
      return false;
    }
    try {
      spark.read().format("delta").load(path);
      return true;
    } catch (Exception e) {
      // AnalysisException (checked in Java): not a Delta table, or no commit yet
      return false;
    }
  }
}

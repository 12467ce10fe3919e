package io.latelake.core.catalog;

import io.latelake.core.table.DeltaTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;

/**
 * The Delta tables that exist under {@code lake.root}, for {@link CatalogRegister}: bronze and
 * silver, and every folder under {@code gold/} and {@code monitoring/} whose name is a plain
 * lower-case identifier and that holds a Delta table.
 */
final class FoundTables {
  private static final String NAME = "[a-z][a-z0-9_]*";

  /**
   * A table found.
   *
   * @param db its database
   * @param table its name
   * @param path its location, fully qualified
   */
  record Found(String db, String table, String path) {}

  private final SparkSession spark;
  private final CatalogConfig config;

  FoundTables(SparkSession spark, CatalogConfig config) {
    this.spark = spark;
    this.config = config;
  }

  /**
   * @return the Delta tables under the root: bronze and silver, gold.*, monitoring.*
   */
  List<Found> discover() {
    List<Found> out = new ArrayList<>();
    String root = config.tables().root();
    addIfDelta(out, config.bronzeDb(), "bronze_events", config.tables().bronzeEvents());
    addIfDelta(out, config.bronzeDb(), "silver_events", config.tables().silverEvents());
    for (String name : children(root + "/gold")) {
      addIfDelta(out, config.goldDb(), name, config.tables().gold(name));
    }
    for (String name : children(root + "/monitoring")) {
      addIfDelta(out, config.monitoringDb(), name, config.tables().monitoring(name));
    }
    return out;
  }

  private void addIfDelta(List<Found> out, String db, String table, String path) {
    if (DeltaTables.exists(spark, path)) {
      out.add(new Found(db, table, qualify(path)));
    }
  }

  private List<String> children(String dir) {
    try {
      Path p = new Path(dir);
      FileSystem fs = p.getFileSystem(spark.sparkContext().hadoopConfiguration());
      if (!fs.exists(p)) {
        return List.of();
      }
      return Arrays.stream(fs.listStatus(p))
          .filter(FileStatus::isDirectory)
          .map(s -> s.getPath().getName())
          .filter(n -> n.matches(NAME))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list " + dir, e);
    }
  }

  private String qualify(String path) {
    try {
      Path p = new Path(path);
      return p.getFileSystem(spark.sparkContext().hadoopConfiguration())
          .makeQualified(p)
          .toString();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot resolve " + path, e);
    }
  }

  /**
   * @return the names of the monitoring tables among {@code found}
   */
  static Set<String> monitoring(List<Found> found, CatalogConfig config) {
    return found.stream()
        .filter(f -> f.db().equals(config.monitoringDb()))
        .map(Found::table)
        .collect(Collectors.toSet());
  }
}

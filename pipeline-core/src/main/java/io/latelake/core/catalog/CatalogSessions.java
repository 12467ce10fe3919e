package io.latelake.core.catalog;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import java.net.URI;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The catalog a session registers latelake's tables in: in local mode ({@code spark.master} {@code
 * local...}) with a local {@code lake.root}, a real Hive metastore on embedded Derby under the root
 * ({@code <root>/metastore_db}, warehouse {@code <root>/warehouse}, Derby's log {@code
 * <root>/derby.log}); elsewhere the catalog the cluster's session has (Hive metastore, Glue, Unity
 * Catalog: spark-submit configures it).
 *
 * <p>Embedded Derby admits one process at a time: while a local job or analyst command holds the
 * metastore, another local process that opens it fails.
 */
public final class CatalogSessions {
  private static final Logger LOG = LoggerFactory.getLogger(CatalogSessions.class);
  private static final String HIVE_STATE = "org.apache.spark.sql.hive.HiveSessionStateBuilder";

  private CatalogSessions() {}

  /**
   * @return the config with the Spark settings of the local metastore added under {@code
   *     lake.spark.conf} when the session will be local and Spark's Hive support is on the
   *     classpath (the bundle has it), else the config unchanged
   */
  public static Config withCatalog(Config config) {
    String master = System.getProperty("spark.master", "");
    java.util.Optional<Path> local =
        localFolder(io.latelake.core.table.TableRegistry.fromConfig(config).root());
    if (!master.startsWith("local") || local.isEmpty() || !hiveOnClasspath()) {
      return config;
    }
    Path dir = local.get();
    // Derby writes its log under the root; a new lake's root does not exist yet, and Derby then
    // prints its boot banner with a FileNotFoundException to stderr instead. It creates
    // <root>/metastore_db itself a moment later, so creating the root first adds nothing.
    try {
      java.nio.file.Files.createDirectories(dir);
    } catch (java.io.IOException | SecurityException e) {
      LOG.debug("Could not create {} for Derby's log: {}", dir, e.toString());
    }
    if (System.getProperty("derby.stream.error.file") == null) {
      System.setProperty("derby.stream.error.file", dir.resolve("derby.log").toString());
    }
    LOG.debug("Local Hive metastore on Derby at {}", dir.resolve("metastore_db"));
    return config
        .withValue(conf("spark.sql.catalogImplementation"), ConfigValueFactory.fromAnyRef("hive"))
        .withValue(
            conf("spark.hadoop.javax.jdo.option.ConnectionURL"),
            ConfigValueFactory.fromAnyRef(
                "jdbc:derby:;databaseName=" + dir.resolve("metastore_db") + ";create=true"))
        .withValue(
            conf("spark.sql.warehouse.dir"),
            ConfigValueFactory.fromAnyRef(dir.resolve("warehouse").toUri().toString()));
  }

  /**
   * @param root {@code lake.root}
   * @return its local folder, absolute and normalized, when it is a plain path (relative ones from
   *     the working folder) or a {@code file:} URI; empty for a URI of another file system ({@code
   *     s3a://bucket/lake})
   */
  public static java.util.Optional<Path> localFolder(String root) {
    if (!isLocalPath(root)) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(
        Path.of(root.startsWith("file:") ? URI.create(root).getPath() : root)
            .toAbsolutePath()
            .normalize());
  }

  /**
   * @return true when Spark's Hive support can be loaded
   */
  static boolean hiveOnClasspath() {
    try {
      Class.forName(HIVE_STATE, false, CatalogSessions.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  private static String conf(String sparkKey) {
    return "lake.spark.conf.\"" + sparkKey + "\"";
  }

  private static boolean isLocalPath(String root) {
    int colon = root.indexOf(':');
    int slash = root.indexOf('/');
    return root.startsWith("file:") || colon < 0 || (slash >= 0 && slash < colon);
  }
}

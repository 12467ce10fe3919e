package io.latelake.analyst;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import io.latelake.core.config.Settings;
import io.latelake.core.spark.SparkSessions;
import java.net.URI;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The session of the analyst commands: the production factory ({@link SparkSessions}) with a
 * catalog that persists. In local mode ({@code spark.master} {@code local...}) with a local
 * {@code lake.root}, a real Hive metastore on embedded Derby under the root
 * ({@code <root>/metastore_db}, warehouse {@code <root>/warehouse}, Derby's log
 * {@code <root>/derby.log}); elsewhere the catalog the cluster's session has (Hive metastore, Glue,
 * Unity Catalog: spark-submit configures it).
 */
public final class AnalystSessions {
  private static final Logger LOG = LoggerFactory.getLogger(AnalystSessions.class);

  private AnalystSessions() {}

  /** @return a session with the lake's catalog */
  public static SparkSession create(String appName, Config config) {
    return SparkSessions.create(appName, withCatalog(config));
  }

  /**
   * @return the config with the Spark settings of the local metastore added under
   *     {@code lake.spark.conf} when the session will be local, else the config unchanged
   */
  public static Config withCatalog(Config config) {
    String master = System.getProperty("spark.master", "");
    String root = Settings.of(config).string("lake.root");
    if (!master.startsWith("local") || !isLocalPath(root)) {
      return config;
    }
    Path dir = Path.of(root.startsWith("file:") ? URI.create(root).getPath() : root)
        .toAbsolutePath().normalize();
    if (System.getProperty("derby.stream.error.file") == null) {
      System.setProperty("derby.stream.error.file", dir.resolve("derby.log").toString());
    }
    LOG.info("Local Hive metastore on Derby at {}", dir.resolve("metastore_db"));
    return config
        .withValue(conf("spark.sql.catalogImplementation"), ConfigValueFactory.fromAnyRef("hive"))
        .withValue(conf("spark.hadoop.javax.jdo.option.ConnectionURL"),
            ConfigValueFactory.fromAnyRef("jdbc:derby:;databaseName="
                + dir.resolve("metastore_db") + ";create=true"))
        .withValue(conf("spark.sql.warehouse.dir"),
            ConfigValueFactory.fromAnyRef(dir.resolve("warehouse").toUri().toString()));
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

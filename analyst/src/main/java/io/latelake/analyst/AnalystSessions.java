package io.latelake.analyst;

import com.typesafe.config.Config;
import io.latelake.core.catalog.CatalogSessions;
import io.latelake.core.spark.SparkSessions;
import org.apache.spark.sql.SparkSession;

/**
 * The session of the analyst commands: the production factory ({@link SparkSessions}) with the
 * catalog of {@link CatalogSessions} (locally a Hive metastore on embedded Derby under {@code
 * lake.root}; on a cluster the session's own catalog).
 */
public final class AnalystSessions {
  private AnalystSessions() {}

  /**
   * @return a session with the lake's catalog
   */
  public static SparkSession create(String appName, Config config) {
    return SparkSessions.create(appName, CatalogSessions.withCatalog(config));
  }
}

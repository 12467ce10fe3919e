package io.latelake.core.catalog;

import com.typesafe.config.Config;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.config.Settings;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.metric.Metrics;
import io.latelake.core.table.TableRegistry;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Typed view of {@code lake.catalog}: where latelake tables and status views are registered.
 *
 * @param enabled {@code lake.catalog.enabled}
 * @param jobsRegister {@code lake.catalog.jobs-register}: jobs register the tables they create
 *     (only when {@code enabled})
 * @param bronzeDb database of {@code bronze_events} and {@code silver_events} ({@code
 *     lake.catalog.databases.bronze})
 * @param goldDb database of the gold tables and their {@code <metric>_status} views ({@code
 *     lake.catalog.databases.gold})
 * @param monitoringDb database of the monitoring tables ({@code lake.catalog.databases.monitoring})
 * @param horizon {@code lake.correction.horizon}: a window is settled this long after its end
 * @param metrics the configured gold metrics (may be empty: tables are still registered)
 * @param tables the lake's paths
 * @param sources {@code lake.sources} and their idle timeouts (the {@code sources_status} view)
 */
public record CatalogConfig(
    boolean enabled,
    boolean jobsRegister,
    String bronzeDb,
    String goldDb,
    String monitoringDb,
    Duration horizon,
    List<MetricSpec> metrics,
    TableRegistry tables,
    io.latelake.core.streaming.SourceWatermarks sources) {
  private static final Pattern DB = Pattern.compile("[a-z_][a-z0-9_]*");

  /**
   * @throws LakeConfigException when a key is missing or a database name is not a lower-case
   *     identifier
   */
  public static CatalogConfig fromConfig(Config config) {
    Settings s = Settings.of(config);
    boolean enabled = s.bool("lake.catalog.enabled");
    boolean jobsRegister = s.bool("lake.catalog.jobs-register");
    return new CatalogConfig(
        enabled,
        jobsRegister,
        database(s, "bronze"),
        database(s, "gold"),
        database(s, "monitoring"),
        io.latelake.core.config.SharedSettings.correctionHorizon(config),
        Metrics.declared(config),
        TableRegistry.fromConfig(config),
        io.latelake.core.streaming.SourceWatermarks.fromConfig(config));
  }

  /**
   * @return true when jobs register the tables they create themselves
   */
  public boolean registeredByJobs() {
    return enabled && jobsRegister;
  }

  private static String database(Settings s, String layer) {
    String key = "lake.catalog.databases." + layer;
    String name = s.string(key);
    if (!DB.matcher(name).matches()) {
      throw LakeConfigException.invalid(
          key, name, "expected a lower-case identifier (letters, digits, underscores)");
    }
    io.latelake.core.config.ConfigChecks.describe(key, "lower-case identifier");
    return name;
  }

  /**
   * @return {@code `db`.`table`} with both parts checked
   */
  public static String qualified(String db, String table) {
    return Sql.ident(db) + "." + Sql.ident(table);
  }
}

package io.latelake.core.table;

import com.typesafe.config.Config;
import io.latelake.core.config.Settings;
import java.util.regex.Pattern;

/**
 * Table names ↔ paths. Every path derives from {@code lake.root} (a local folder, or an {@code
 * s3a://} / {@code abfss://} URI on a cluster):
 *
 * <pre>
 * root/bronze/events                 bronze_events
 * root/silver/events                 silver_events
 * root/gold/&lt;metric&gt;                 gold.&lt;metric&gt;
 * root/monitoring/&lt;name&gt;             monitoring.&lt;name&gt; (stream_progress, ...)
 * root/_checkpoints/&lt;queryName&gt;      one checkpoint folder per streaming query
 * </pre>
 */
public final class TableRegistry {
  /** Name of silver's streaming query (its checkpoint folder, its rows in stream_progress). */
  public static final String SILVER_QUERY = "silver_events";

  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]*");
  private final String root;

  public TableRegistry(String root) {
    this.root = root.endsWith("/") ? root.substring(0, root.length() - 1) : root;
  }

  /**
   * @return the registry for {@code lake.root}
   */
  public static TableRegistry fromConfig(Config config) {
    return new TableRegistry(Settings.of(config).string("lake.root"));
  }

  public String root() {
    return root;
  }

  public String bronzeEvents() {
    return root + "/bronze/events";
  }

  public String silverEvents() {
    return root + "/silver/events";
  }

  /**
   * @param metric a metric name, lower-case identifier
   */
  public String gold(String metric) {
    return root + "/gold/" + checked(metric);
  }

  /**
   * @param name a monitoring table name such as {@code stream_progress}
   */
  public String monitoring(String name) {
    return root + "/monitoring/" + checked(name);
  }

  public String streamProgress() {
    return monitoring("stream_progress");
  }

  /**
   * @param queryName the streaming query's name
   */
  public String checkpoint(String queryName) {
    return root + "/_checkpoints/" + checked(queryName);
  }

  private static String checked(String name) {
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "Invalid table or query name '"
              + name
              + "': expected lower-case letters, digits and underscores");
    }
    return name;
  }
}

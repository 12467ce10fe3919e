package io.latelake.core.config;

import com.typesafe.config.Config;
import java.util.Map;

/**
 * The validated Spark settings of {@code lake.spark.conf}: names unquoted from the parsed config
 * tree, each starting with {@code spark.} (Hadoop settings as {@code spark.hadoop.<key>}). {@code
 * spark.sql.session.timeZone} can only be UTC: event time, windows, ingest dates and every date
 * argument are UTC throughout, so another session time zone would shift windows and days.
 */
public final class SparkConfOptions {
  /** The config key of the map. */
  public static final String KEY = "lake.spark.conf";

  /** The session time zone setting, fixed to {@link #UTC}. */
  public static final String TIME_ZONE = "spark.sql.session.timeZone";

  public static final String UTC = "UTC";

  private SparkConfOptions() {}

  /**
   * @param config the effective config
   * @return the Spark settings, sorted by name (empty when none)
   * @throws LakeConfigException naming the key and (masked) value of the first bad setting
   */
  public static Map<String, String> fromConfig(Config config) {
    Map<String, String> conf = Settings.of(config).optionMap(KEY);
    for (Map.Entry<String, String> e : conf.entrySet()) {
      String full = KEY + ".\"" + e.getKey() + "\"";
      if (!e.getKey().startsWith("spark.")) {
        throw new LakeConfigException(
            "Invalid key '"
                + full
                + "': not a Spark setting (Spark "
                + "settings start with spark.; Hadoop settings are written spark.hadoop.<key>)");
      }
      if (e.getKey().equals(TIME_ZONE) && !e.getValue().equals(UTC)) {
        throw LakeConfigException.invalid(
            full,
            e.getValue(),
            "the session time zone must be "
                + "UTC: event times, windows, ingest dates and date arguments are UTC throughout");
      }
    }
    return conf;
  }
}

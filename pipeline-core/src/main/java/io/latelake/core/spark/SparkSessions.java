package io.latelake.core.spark;

import com.typesafe.config.Config;
import io.latelake.core.config.Settings;
import io.latelake.core.config.SparkConfOptions;
import org.apache.spark.sql.SparkSession;

/**
 * Builds the SparkSession every job uses. It never sets a master or cluster sizing: {@code
 * spark-submit} (or the local launcher through {@code -Dspark.master}) decides. It adds Delta
 * Lake's SQL extension and catalog, UTC as session time zone, and the configured shuffle
 * partitions, then the settings under {@code lake.spark.conf} (validated by {@link
 * SparkConfOptions}; they are applied last and never logged by latelake unmasked).
 */
public final class SparkSessions {
  private SparkSessions() {}

  /**
   * @param appName Spark application name
   * @param config the effective config
   * @return a new or the active session
   */
  public static SparkSession create(String appName, Config config) {
    int partitions = Settings.of(config).intBetween("lake.spark.shuffle-partitions", 1, 100_000);
    SparkSession.Builder builder =
        SparkSession.builder()
            .appName(appName)
            .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
            .config(
                "spark.sql.catalog.spark_catalog",
                "org.apache.spark.sql.delta.catalog.DeltaCatalog")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.shuffle.partitions", partitions)
            .config("spark.sql.streaming.stateStore.stateSchemaCheck", "true");
    for (var e : SparkConfOptions.fromConfig(config).entrySet()) {
      builder = builder.config(e.getKey(), e.getValue());
    }
    return builder.getOrCreate();
  }
}

package io.latelake.core.testing;

import io.latelake.core.config.ConfigLoader;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * One local[2] SparkSession per test class: UI off, two shuffle partitions, Delta enabled, UTC.
 * Built through the production {@link io.latelake.core.spark.SparkSessions} factory with the master
 * chosen here, as only tests and local launchers may do.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class SparkTestBase {
  protected SparkSession spark;

  @BeforeAll
  void startSpark() {
    System.setProperty("spark.master", "local[2]");
    System.setProperty("spark.ui.enabled", "false");
    System.setProperty("spark.sql.streaming.minBatchesToRetain", "100");
    spark =
        io.latelake.core.spark.SparkSessions.create(
            getClass().getSimpleName(),
            ConfigLoader.load(Optional.empty(), List.of("lake.spark.shuffle-partitions=2")));
    spark.sparkContext().setLogLevel("WARN");
  }

  @AfterAll
  void stopSpark() {
    if (spark != null) {
      spark.stop();
      SparkSession.clearActiveSession();
      SparkSession.clearDefaultSession();
    }
  }
}

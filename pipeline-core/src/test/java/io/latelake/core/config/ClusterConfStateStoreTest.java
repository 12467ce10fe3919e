package io.latelake.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The state store each shipped configuration gives the streams. */
class ClusterConfStateStoreTest {
  private static final String PROVIDER = "spark.sql.streaming.stateStore.providerClass";

  @Test
  void clusterConfRunsTheStreamsOnTheRocksDbStateStore() {
    assertThat(
            SparkConfOptions.fromConfig(
                ConfigLoader.load(Optional.of(Path.of("../conf/cluster.conf")), List.of())))
        .containsEntry(
            PROVIDER, "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider");
  }

  @Test
  void localConfKeepsSparksDefaultStateStore() {
    assertThat(
            SparkConfOptions.fromConfig(
                ConfigLoader.load(Optional.of(Path.of("../conf/local.conf")), List.of())))
        .doesNotContainKey(PROVIDER);
  }
}

package io.latelake.core.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latelake.core.config.ConfigLoader;
import io.latelake.core.config.LakeConfigException;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Settings refused before a Spark session is built (no session is started here). */
class SparkSessionsTest {
  @Test
  void ansiModeOffIsRefusedBeforeSparkStarts() {
    assertThatThrownBy(
            () ->
                SparkSessions.create(
                    "ansi-off",
                    ConfigLoader.load(
                        Optional.empty(),
                        List.of("lake.spark.conf.\"spark.sql.ansi.enabled\"=false"))))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'false' for key 'spark.sql.ansi.enabled': latelake needs Spark's ANSI "
                + "mode (its default): without it an overflowing sum or cast gives a wrong number "
                + "or NULL instead of an error, and a published number could be wrong without "
                + "anyone knowing (sums of whole numbers are exact DECIMAL(38,0) and need no ANSI "
                + "exception); remove the setting");
  }

  @Test
  void onlyMastersThatRunEveryTaskInThisJvmAreLocal() {
    assertThat(
            java.util.stream.Stream.of(
                    "local",
                    "local[2]",
                    "local[*]",
                    "local[2,3]",
                    "local-cluster[2,1,1024]",
                    "spark://127.0.0.1:7077",
                    "yarn",
                    "k8s://https://host:443",
                    "")
                .filter(SparkSessions::isLocalMaster)
                .toList())
        .containsExactly("local", "local[2]", "local[*]", "local[2,3]");
  }
}

package io.latelake.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import io.latelake.core.config.ConfigLoader;
import io.latelake.core.config.SparkConfOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.spark.SparkConf;
import org.junit.jupiter.api.Test;

/**
 * The demo's configuration: its own lake and landing folder, and interpreted evaluation unless the
 * user names either setting (in {@code lake.spark.conf}, quoted or nested, or in Spark's own
 * configuration).
 */
class DemoInterpretedTest {
  private static final Path LANDING = Path.of("/tmp/demo-x/landing");

  private static Config demo(List<String> sets, SparkConf spark) {
    return DemoCommand.demoConfig(
        ConfigLoader.load(Optional.empty(), sets), "/tmp/demo-x", LANDING, spark);
  }

  @Test
  void theDemoWritesItsOwnLakeFromItsLandingFolderAndEvaluatesInterpreted() {
    Config c = demo(List.of(), new SparkConf(false));
    assertThat(c.getString("lake.root")).isEqualTo("/tmp/demo-x");
    assertThat(c.getString("lake.bronze.source")).isEqualTo("files");
    assertThat(c.getString("lake.bronze.files.path")).isEqualTo("/tmp/demo-x/landing");
    assertThat(SparkConfOptions.fromConfig(c))
        .containsEntry("spark.sql.codegen.wholeStage", "false")
        .containsEntry("spark.sql.codegen.factoryMode", "NO_CODEGEN")
        .hasSize(2);
  }

  @Test
  void aSettingTheUserGivesQuotedNestedOrToSparkIsKept() {
    SparkConf spark = new SparkConf(false).set("spark.sql.codegen.factoryMode", "FALLBACK");
    for (String set :
        List.of(
            "lake.spark.conf.\"spark.sql.codegen.wholeStage\"=true",
            "lake.spark.conf.spark.sql.codegen.wholeStage=true")) {
      Config c = demo(List.of(set), spark);
      // the user's value stays; Spark's own setting is left to Spark (nothing added over it)
      assertThat(SparkConfOptions.fromConfig(c))
          .as(set)
          .containsEntry("spark.sql.codegen.wholeStage", "true")
          .doesNotContainKey("spark.sql.codegen.factoryMode")
          .hasSize(1);
    }
  }
}

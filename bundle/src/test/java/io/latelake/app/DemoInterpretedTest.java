package io.latelake.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.latelake.core.config.SparkConfOptions;
import org.apache.spark.SparkConf;
import org.junit.jupiter.api.Test;

/** The demo's interpreted evaluation, and that a setting the user gives wins over it. */
class DemoInterpretedTest {
  private static final Config EMPTY = ConfigFactory.parseString("lake.spark.conf {}");

  @Test
  void theDemoSessionEvaluatesInterpretedByDefault() {
    Config c = DemoCommand.interpreted(EMPTY, new SparkConf(false));
    assertThat(SparkConfOptions.fromConfig(c))
        .containsEntry("spark.sql.codegen.wholeStage", "false")
        .containsEntry("spark.sql.codegen.factoryMode", "NO_CODEGEN")
        .hasSize(2);
  }

  @Test
  void aSettingInTheLakeConfigOrInSparksConfigurationIsKept() {
    Config lake =
        ConfigFactory.parseString("lake.spark.conf { \"spark.sql.codegen.wholeStage\" = true }");
    SparkConf spark = new SparkConf(false).set("spark.sql.codegen.factoryMode", "FALLBACK");
    Config c = DemoCommand.interpreted(lake, spark);
    // the lake's own value stays; Spark's --conf is left to Spark (nothing added for it)
    assertThat(SparkConfOptions.fromConfig(c))
        .containsEntry("spark.sql.codegen.wholeStage", "true")
        .doesNotContainKey("spark.sql.codegen.factoryMode")
        .hasSize(1);
  }
}

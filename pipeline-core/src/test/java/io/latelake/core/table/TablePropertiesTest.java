package io.latelake.core.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latelake.core.testing.SparkTestBase;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Table properties read back exactly as set, on tables laid out as gold and the rollups are. */
class TablePropertiesTest extends SparkTestBase {
  @TempDir Path tmp;

  private static final StructType SCHEMA =
      new StructType()
          .add("event_date", DataTypes.DateType)
          .add("page_url", DataTypes.StringType)
          .add("tokens", DataTypes.LongType);

  /**
   * Values that look like URLs or secrets come back as they are (Spark's SHOW TBLPROPERTIES masks
   * them as "*********(redacted)"): a metric grouped by page_url, summing tokens, is recorded and
   * compared in such a property.
   */
  @Test
  void valuesComeBackAsSetWhateverTheyLookLike() {
    String gold = tmp.resolve("gold").toString();
    DeltaTables.createIfNotExists(
        spark, gold, SCHEMA, List.of(), Map.of("delta.enableChangeDataFeed", "true"));
    String definition = "group-by=[page_url], measures=[tokens=sum(tokens)]";
    TableProperties.set(
        spark,
        gold,
        Map.of(
            "latelake.metric.definition",
            definition,
            "latelake.test.endpoint",
            "https://user:password@example.org/token"));
    String daily = tmp.resolve("daily").toString();
    DeltaTables.createClusteredIfNotExists(
        spark,
        daily,
        SCHEMA,
        List.of("event_date"),
        Map.of("latelake.rollup.time-zone", "Europe/Paris", "delta.enableDeletionVectors", "true"));

    assertThat(TableProperties.get(spark, gold, "latelake.metric.definition")).contains(definition);
    assertThat(TableProperties.get(spark, gold, "latelake.test.endpoint"))
        .contains("https://user:password@example.org/token");
    assertThat(TableProperties.get(spark, gold, "latelake.not.set")).isEmpty();
    assertThat(TableProperties.get(spark, daily, "latelake.rollup.time-zone"))
        .contains("Europe/Paris");
    // read by Delta Kernel, without a Spark job, for both layouts
    assertThat(TableProperties.withKernel(spark, gold))
        .containsEntry("latelake.metric.definition", definition)
        .containsEntry("delta.enableChangeDataFeed", "true");
    assertThat(TableProperties.withKernel(spark, daily))
        .containsEntry("latelake.rollup.time-zone", "Europe/Paris");
  }

  /** A new table has no Delta checkpoint yet: Kernel's warning about that is not logged. */
  @Test
  void aReadLogsNothingFromKernel() {
    String fresh = tmp.resolve("fresh").toString();
    DeltaTables.createIfNotExists(spark, fresh, SCHEMA, List.of(), Map.of("k", "v"));
    java.io.StringWriter log = new java.io.StringWriter();
    var ctx =
        (org.apache.logging.log4j.core.LoggerContext)
            org.apache.logging.log4j.LogManager.getContext(false);
    var capture =
        org.apache.logging.log4j.core.appender.WriterAppender.newBuilder()
            .setName("capture-kernel")
            .setTarget(log)
            .setLayout(
                org.apache.logging.log4j.core.layout.PatternLayout.newBuilder()
                    .withPattern("%-5p %c{1}: %m%n")
                    .build())
            .build();
    capture.start();
    ctx.getRootLogger().addAppender(capture);
    try {
      assertThat(TableProperties.get(spark, fresh, "k")).contains("v");
    } finally {
      ctx.getRootLogger().removeAppender(capture);
      capture.stop();
    }
    assertThat(log.toString()).doesNotContain("kernel").doesNotContain("SnapshotManager");
  }

  @Test
  void noTableIsAnAnalysisException() {
    String missing = tmp.resolve("missing").toString();
    assertThatThrownBy(() -> TableProperties.get(spark, missing, "k"))
        .isInstanceOf(AnalysisException.class);
  }
}

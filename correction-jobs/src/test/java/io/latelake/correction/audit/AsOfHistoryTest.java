package io.latelake.correction.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import io.latelake.core.ExitCode;
import io.latelake.core.config.ConfigLoader;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.job.JobContext;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.testing.SparkTestBase;
import io.latelake.correction.shared.CorrectionConfig;
import io.latelake.correction.shared.TransformsTest;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** asof: a table version or timestamp outside the gold table's history is the user's input. */
class AsOfHistoryTest extends SparkTestBase {
  @TempDir Path tmp;

  @Test
  void aVersionOrTimestampOutsideTheHistoryIsAUsageError() {
    Config c =
        ConfigLoader.load(
            Optional.empty(),
            List.of(
                "lake.root=\"" + tmp + "\"",
                "lake.event.fields=[{name=page, type=string}]",
                "lake.gold.metrics.page_5m={window=\"5 minutes\", group-by=[page], "
                    + "measures=[{name=events, function=count}]}"));
    TableRegistry tables = TableRegistry.fromConfig(c);
    MetricSpec metric = CorrectionConfig.fromConfig(c).metric("page_5m");
    spark.range(1).write().format("delta").save(tables.gold("page_5m"));
    spark.range(2).write().format("delta").mode("append").save(tables.gold("page_5m"));

    assertThatThrownBy(
            () ->
                new AsOfJob(
                        JobContext.start(spark, tables),
                        new AsOfJob.Options(
                            CorrectionConfig.fromConfig(c),
                            metric,
                            Optional.empty(),
                            Optional.of(999_999L),
                            10))
                    .run())
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '999999' for option '--table-version': gold.page_5m has versions "
                + "0 to 1")
        .satisfies(e -> assertThat(((LakeConfigException) e).exitCode()).isEqualTo(ExitCode.USAGE));
    assertThatThrownBy(
            () ->
                new AsOfJob(
                        JobContext.start(spark, tables),
                        new AsOfJob.Options(
                            CorrectionConfig.fromConfig(c),
                            metric,
                            Optional.of(Instant.parse("2000-01-01T00:00:00Z")),
                            Optional.empty(),
                            10))
                    .run())
        .isInstanceOf(LakeConfigException.class)
        .hasMessageStartingWith(
            "Invalid value '2000-01-01T00:00:00Z' for option '--timestamp': "
                + "gold.page_5m's history runs from ")
        .hasMessageEndingWith(" (version 1)");
    assertThatThrownBy(
            () ->
                new AsOfJob(
                        JobContext.start(spark, tables),
                        new AsOfJob.Options(
                            CorrectionConfig.fromConfig(c),
                            metric,
                            Optional.of(Instant.parse("2999-01-01T00:00:00Z")),
                            Optional.empty(),
                            10))
                    .run())
        .isInstanceOf(LakeConfigException.class)
        .hasMessageStartingWith("Invalid value '2999-01-01T00:00:00Z' for option '--timestamp'");
  }

  @Test
  void asofDiffShowsCorrectedAtAndStatusChangesWhereMeasuresAreEqual() {
    StructType gold =
        new StructType()
            .add("window_start", DataTypes.TimestampType)
            .add("window_end", DataTypes.TimestampType)
            .add("page", DataTypes.StringType)
            .add("events", DataTypes.LongType)
            .add("value_sum", DataTypes.LongType)
            .add("corrected_at", DataTypes.TimestampType)
            .add("status", DataTypes.StringType);
    Dataset<Row> before =
        spark.createDataFrame(
            List.of(
                RowFactory.create(
                    TransformsTest.t("10:00:00"),
                    TransformsTest.t("10:05:00"),
                    "a",
                    1L,
                    1L,
                    null,
                    "provisional"),
                RowFactory.create(
                    TransformsTest.t("10:00:00"),
                    TransformsTest.t("10:05:00"),
                    "b",
                    2L,
                    2L,
                    null,
                    "settled"),
                RowFactory.create(
                    TransformsTest.t("10:00:00"),
                    TransformsTest.t("10:05:00"),
                    "c",
                    3L,
                    3L,
                    null,
                    "settled")),
            gold);
    Dataset<Row> now =
        spark.createDataFrame(
            List.of(
                RowFactory.create(
                    TransformsTest.t("10:00:00"),
                    TransformsTest.t("10:05:00"),
                    "a",
                    1L,
                    1L,
                    null,
                    "settled"),
                RowFactory.create(
                    TransformsTest.t("10:00:00"),
                    TransformsTest.t("10:05:00"),
                    "b",
                    2L,
                    2L,
                    TransformsTest.t("11:00:00"),
                    "restated"),
                RowFactory.create(
                    TransformsTest.t("10:00:00"),
                    TransformsTest.t("10:05:00"),
                    "c",
                    3L,
                    3L,
                    null,
                    "settled")),
            gold);
    assertThat(
            strings(
                GoldDiff.diff(now, before, TransformsTest.PAGE_5M),
                "concat_ws(' | ', keys, old_values, "
                    + "new_values, coalesce(date_format(corrected_at_before, 'HH:mm'), '-'), "
                    + "coalesce(date_format(corrected_at_after, 'HH:mm'), '-'), status_before, "
                    + "status_after)"))
        .containsExactly(
            "{\"page\":\"a\"} | {\"events\":1,\"value_sum\":1} | "
                + "{\"events\":1,\"value_sum\":1} | - | - | provisional | settled",
            "{\"page\":\"b\"} | {\"events\":2,\"value_sum\":2} | "
                + "{\"events\":2,\"value_sum\":2} | - | 11:00 | settled | restated");
  }

  /** The rows of {@code expr} over {@code d}, sorted. */
  private static List<String> strings(Dataset<Row> d, String expr) {
    List<String> out =
        new java.util.ArrayList<>(
            d.selectExpr(expr).as(org.apache.spark.sql.Encoders.STRING()).collectAsList());
    out.sort(null);
    return out;
  }
}

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
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
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
            "Invalid value '999999' for key '--table-version': gold.page_5m has versions "
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
            "Invalid value '2000-01-01T00:00:00Z' for key '--timestamp': "
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
        .hasMessageStartingWith("Invalid value '2999-01-01T00:00:00Z' for key '--timestamp'");
  }
}

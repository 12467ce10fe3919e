package io.latelake.correction.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latelake.core.config.ConfigLoader;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.metric.GoldLayout;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.DeltaTables;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.testing.SparkTestBase;
import io.latelake.correction.shared.CorrectionConfig;
import io.latelake.correction.shared.CorrectionTables;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * apply-corrections against a concurrent correct: a correction staged after apply-corrections read
 * the pending rows stays pending (it is neither applied nor marked applied).
 */
class ReconcileRaceTest extends SparkTestBase {
  @TempDir Path tmp;

  static final StructType AGG =
      new StructType()
          .add("window_start", DataTypes.TimestampType)
          .add("window_end", DataTypes.TimestampType)
          .add("page", DataTypes.StringType)
          .add("events", DataTypes.LongType);

  Dataset<Row> correction(String start, String end, String page, long events) {
    StructType values = new StructType().add("events", DataTypes.LongType);
    StructType schema =
        AGG.add("_action", DataTypes.StringType)
            .add("reason", DataTypes.StringType)
            .add("keys", DataTypes.StringType)
            .add("old_values", values)
            .add("new_values", values);
    return spark.createDataFrame(
        List.of(
            RowFactory.create(
                Timestamp.from(Instant.parse(start)),
                Timestamp.from(Instant.parse(end)),
                page,
                events,
                "UPSERT",
                "NEW_WINDOW",
                "{\"page\":\"" + page + "\"}",
                null,
                RowFactory.create(events))),
        schema);
  }

  /** One metric page_5m by page with the reconcile late policy, its lake at {@code root}. */
  static CorrectionConfig reconcileConfig(Path root) {
    return CorrectionConfig.fromConfig(
        ConfigLoader.load(
            Optional.empty(),
            List.of(
                "lake.root=\"" + root + "\"",
                "lake.event.fields=[{name=page, type=string}]",
                "lake.gold.metrics.page_5m={window=\"5 minutes\", group-by=[page], "
                    + "measures=[{name=events, function=count}], late-policy=reconcile}")));
  }

  @Test
  void aCorrectionStagedWhileApplyRunsStaysPending() {
    Path root = tmp.resolve("lake");
    CorrectionConfig config = reconcileConfig(root);
    TableRegistry registry = new TableRegistry(root.toString());
    CorrectionTables tables = new CorrectionTables(registry);
    MetricSpec metric = config.metric("page_5m");
    DeltaTables.createIfNotExists(
        spark, registry.gold("page_5m"), GoldLayout.tableSchema(AGG), List.of(), Map.of());
    tables.createMonitoring(spark);
    Timestamp t1 = Timestamp.from(Instant.parse("2024-05-14T11:00:00Z"));
    Timestamp t2 = Timestamp.from(Instant.parse("2024-05-14T11:01:00Z"));
    Timestamp at = Timestamp.from(Instant.parse("2024-05-14T11:02:00Z"));
    Reconcile.stage(
        spark,
        tables,
        metric,
        correction("2024-05-14T10:00:00Z", "2024-05-14T10:05:00Z", "/a", 2),
        "run-1",
        t1,
        config);

    long applied =
        Reconcile.apply(
            spark,
            tables,
            metric,
            List.of(),
            "apply-1",
            at,
            config,
            () ->
                Reconcile.stage(
                    spark,
                    tables,
                    metric,
                    correction("2024-05-14T10:05:00Z", "2024-05-14T10:10:00Z", "/b", 3),
                    "run-2",
                    t2,
                    config));

    assertThat(applied).isEqualTo(1);
    assertThat(
            spark
                .read()
                .format("delta")
                .load(tables.pending(metric))
                .selectExpr("concat_ws(' ', run_id, page, coalesce(applied_by, 'pending'))")
                .as(Encoders.STRING())
                .collectAsList())
        .containsExactlyInAnyOrder("run-1 /a apply-1", "run-2 /b pending");
    assertThat(
            spark
                .read()
                .format("delta")
                .load(registry.gold("page_5m"))
                .selectExpr("concat_ws(' ', page, events)")
                .as(Encoders.STRING())
                .collectAsList())
        .containsExactly("/a 2");

    assertThat(Reconcile.apply(spark, tables, metric, List.of(), "apply-2", at, config, () -> {}))
        .isEqualTo(1);
    assertThat(
            spark
                .read()
                .format("delta")
                .load(registry.gold("page_5m"))
                .selectExpr("concat_ws(' ', page, events)")
                .as(Encoders.STRING())
                .collectAsList())
        .containsExactlyInAnyOrder("/a 2", "/b 3");
  }

  @Test
  void aPendingTableStagedWithJsonTextValuesIsRefusedWithTheRemedy() {
    Path root = tmp.resolve("old-lake");
    CorrectionConfig config = reconcileConfig(root);
    CorrectionTables tables = new CorrectionTables(new TableRegistry(root.toString()));
    MetricSpec metric = config.metric("page_5m");
    String path = tables.pending(metric);
    DeltaTables.createIfNotExists(
        spark,
        path,
        Reconcile.pendingSchema(
            AGG.add("_action", DataTypes.StringType)
                .add("reason", DataTypes.StringType)
                .add("keys", DataTypes.StringType)
                .add("old_values", DataTypes.StringType)
                .add("new_values", DataTypes.StringType)),
        List.of(),
        Map.of());
    Timestamp at = Timestamp.from(Instant.parse("2024-05-14T11:02:00Z"));
    String expected =
        "monitoring.pending_page_5m at "
            + path
            + " was staged by an earlier latelake version (old_values and new_values as JSON"
            + " text). Apply its pending corrections with that version (`latelake"
            + " apply-corrections --metric page_5m`), then move the table aside; this version"
            + " stages it anew.";

    assertThatThrownBy(
            () ->
                Reconcile.apply(spark, tables, metric, List.of(), "apply-1", at, config, () -> {}))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(expected);
    assertThatThrownBy(
            () ->
                Reconcile.stage(
                    spark,
                    tables,
                    metric,
                    correction("2024-05-14T10:00:00Z", "2024-05-14T10:05:00Z", "/a", 2),
                    "run-1",
                    at,
                    config))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(expected);
  }
}

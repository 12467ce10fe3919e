package io.latelake.correction.correct;

import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.core.config.ConfigLoader;
import io.latelake.core.job.JobContext;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.testing.SparkTestBase;
import io.latelake.correction.shared.CorrectionConfig;
import io.latelake.correction.shared.CorrectionTables;
import java.nio.file.Path;
import java.sql.Date;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The change read of correct: --since rescans by ingest time; later runs read only what bronze
 * gained after the state's version (Delta streaming source, AvailableNow, a throw-away checkpoint)
 * and write nothing themselves, so a run that fails before its state write reads the same windows
 * again; a run with nothing new touches nothing.
 */
class BronzeChangesTest extends SparkTestBase {
  @TempDir Path tmp;

  static final StructType BRONZE =
      new StructType()
          .add("event_id", DataTypes.StringType)
          .add("event_time", DataTypes.TimestampType)
          .add("error", DataTypes.StringType)
          .add("ingested_at", DataTypes.TimestampType)
          .add("ingest_date", DataTypes.DateType);

  static Instant t(String hhmm) {
    return Instant.parse("2024-05-14T" + hhmm + ":00Z");
  }

  void append(String path, String id, String eventTime, String error) {
    Row r =
        RowFactory.create(
            id,
            Timestamp.from(t(eventTime)),
            error,
            Timestamp.from(Instant.parse("2024-05-14T11:00:00Z")),
            Date.valueOf("2024-05-14"));
    spark
        .createDataFrame(List.of(r), BRONZE)
        .write()
        .format("delta")
        .mode("append")
        .partitionBy("ingest_date")
        .save(path);
  }

  @Test
  void sinceThenOnlyWhatBronzeGainedThenNothing() {
    Path root = tmp.resolve("lake");
    CorrectionConfig config =
        CorrectionConfig.fromConfig(
            ConfigLoader.load(
                Optional.empty(),
                List.of(
                    "lake.root=\"" + root + "\"",
                    "lake.event.fields=[{name=page, type=string}]",
                    "lake.gold.metrics.page_5m={window=\"5 minutes\", group-by=[page], "
                        + "measures=[{name=events, function=count}]}")));
    TableRegistry registry = new TableRegistry(root.toString());
    CorrectionTables tables = new CorrectionTables(registry);
    MetricSpec metric = config.metric("page_5m");
    String bronze = registry.bronzeEvents();
    tables.createMonitoring(spark);
    CorrectionState state = new CorrectionState(spark, tables, config);
    BronzeChanges changes = new BronzeChanges(JobContext.start(spark, registry));
    Timestamp at = Timestamp.from(t("12:00"));
    append(bronze, "a", "10:01", null); // version 0

    assertThat(changes.touched(metric, Optional.empty(), Optional.of(t("00:00")), 0))
        .containsExactly(t("10:00"));
    state.write("page_5m", 0, List.of(), "r1", at);

    append(bronze, "b", "10:12", null); // version 1
    append(bronze, "c", "10:21", "MALFORMED"); // version 2: invalid, touches nothing
    java.io.File oldCheckpoint =
        new java.io.File(registry.checkpoint("correct_page_5m"), "offsets");
    assertThat(oldCheckpoint.mkdirs()).isTrue();
    Optional<CorrectionState.Entry> prior =
        Optional.of(new CorrectionState.Entry(0, List.of(t("10:30"))));
    assertThat(changes.touched(metric, prior, Optional.empty(), 2))
        .containsExactly(t("10:10"), t("10:30"));
    // The read wrote no state and kept no checkpoint: the same entry (a run that failed before its
    // state write) reads the same windows again.
    assertThat(state.read().get("page_5m")).isEqualTo(new CorrectionState.Entry(0, List.of()));
    assertThat(oldCheckpoint.getParentFile()).doesNotExist();
    assertThat(changes.touched(metric, prior, Optional.empty(), 2))
        .containsExactly(t("10:10"), t("10:30"));

    assertThat(
            changes.touched(
                metric, Optional.of(new CorrectionState.Entry(2, List.of())), Optional.empty(), 2))
        .isEmpty();
  }
}

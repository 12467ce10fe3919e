package io.latelake.app;

import static io.latelake.app.LakeFixture.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.latelake.core.ExitCode;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.job.JobContext;
import io.latelake.core.metric.MetricDefinition;
import io.latelake.core.streaming.WatermarkDelays;
import io.latelake.core.table.TableProperties;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.testing.SparkTestBase;
import io.latelake.correction.backfill.BackfillJob;
import io.latelake.correction.shared.CorrectionConfig;
import io.latelake.correction.shared.Recompute;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 10 part 4: a measure added to a running metric. The gold stream refuses to start on the old
 * table and checkpoint (exit 2, naming the change and the remedy); {@code backfill} rebuilds the
 * table from bronze with the new definition (the old table stays readable as a Delta version),
 * marks the closed window it corrects as restated, and starts the stream's new checkpoint at
 * silver's end, so the stream continues from there: new events update an open window to its full
 * value and add new windows, and gold equals the recompute again. Cases' settings (LakeFixture):
 * 10-minute watermarks, 5-minute windows by page; the source listed in {@code lake.sources}, so the
 * new checkpoint must be built and recorded with that list for the stream to continue.
 */
class MetricChangeTest extends SparkTestBase {
  private static final String PEAK =
      "lake.gold.metrics.page_5m.measures=[{name=events, function=count}, "
          + "{name=value_sum, function=sum, column=value}, "
          + "{name=peak, function=max, column=value}]";
  private static final String SOURCES = "lake.sources=[web]";
  private static final Instant BACKFILL_AT = Instant.parse("2024-05-14T13:00:00Z");

  @TempDir Path tmp;

  /**
   * @return "page HH:mm events value_sum [peak] restated|-" per gold row, sorted
   */
  List<String> gold(String path, boolean peak, String versionAsOf) {
    var reader = spark.read().format("delta");
    if (versionAsOf != null) {
      reader = reader.option("versionAsOf", versionAsOf);
    }
    return reader
        .load(path)
        .selectExpr(
            "concat_ws(' ', page, date_format(window_start, "
                + "'HH:mm'), events, value_sum, "
                + (peak ? "peak, " : "")
                + "CASE WHEN corrected_at IS NULL THEN '-' ELSE 'restated' END)")
        .as(Encoders.STRING())
        .collectAsList()
        .stream()
        .sorted()
        .toList();
  }

  /**
   * @return "page HH:mm events value_sum peak" of the recompute of all of bronze, sorted
   */
  List<String> recompute(LakeFixture f, CorrectionConfig c) {
    Dataset<Row> r =
        Recompute.gold(
            spark.read().format("delta").load(f.root + "/bronze/events"), c.metric("page_5m"));
    return r
        .selectExpr(
            "concat_ws(' ', page, date_format(window_start, 'HH:mm'), events, "
                + "value_sum, peak)")
        .as(Encoders.STRING())
        .collectAsList()
        .stream()
        .sorted()
        .toList();
  }

  List<String> goldValues(String path) {
    return spark
        .read()
        .format("delta")
        .load(path)
        .selectExpr(
            "concat_ws(' ', page, "
                + "date_format(window_start, 'HH:mm'), events, value_sum, peak)")
        .as(Encoders.STRING())
        .collectAsList()
        .stream()
        .sorted()
        .toList();
  }

  @Test
  void anAddedMeasureIsRefusedThenBackfilledAndTheStreamContinuesFromSilversEnd() {
    // with its source listed (lake.sources): backfill starts the new checkpoint with the list
    LakeFixture f = new LakeFixture(tmp.resolve("lake"), SOURCES);
    String goldPath = f.root + "/gold/page_5m";
    FastPath before = new FastPath(spark, f.config);
    f.land(
        event("a1", "2024-05-14T12:01:00Z", "2024-05-14T12:01:01Z", "p", 1),
        event("a2", "2024-05-14T12:03:00Z", "2024-05-14T12:03:01Z", "p", 2),
        event("b1", "2024-05-14T12:07:00Z", "2024-05-14T12:07:01Z", "q", 5));
    before.step();
    f.land(event("c1", "2024-05-14T12:31:00Z", "2024-05-14T12:31:01Z", "p", 4));
    before.step();
    // l1 is behind the watermark (12:21): the stream drops it, bronze keeps it.
    f.land(
        event("l1", "2024-05-14T12:02:00Z", "2024-05-14T12:32:00Z", "p", 7),
        event("c2", "2024-05-14T12:33:00Z", "2024-05-14T12:33:01Z", "p", 1));
    before.step();
    assertThat(gold(goldPath, false, null))
        .containsExactly("p 12:00 2 3 -", "p 12:30 2 5 -", "q 12:05 1 5 -");
    assertThat(TableProperties.get(spark, goldPath, MetricDefinition.PROPERTY))
        .contains("window=PT5M; group-by=[page]; measures=[events=count, value_sum=sum(value)]");
    assertThat(TableProperties.get(spark, goldPath, WatermarkDelays.PROPERTY)).contains("PT10M");
    long oldVersion =
        spark
            .sql("DESCRIBE HISTORY delta.`" + goldPath + "`")
            .selectExpr("max(version)")
            .first()
            .getLong(0);

    // A max measure is added: gold refuses before any stream starts.
    LakeFixture changed = new LakeFixture(tmp.resolve("lake"), SOURCES, PEAK);
    FastPath after = new FastPath(spark, changed.config);
    LakeConfigException refused = catchThrowableOfType(LakeConfigException.class, after::step);
    assertThat(refused.exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(refused.exitCode().code()).isEqualTo(2);
    assertThat(refused)
        .hasMessage(
            "Cannot start gold stream gold_page_5m: metric page_5m "
                + "(lake.gold.metrics.page_5m) differs from the definition gold.page_5m and its "
                + "checkpoint were built with (measure added: peak=max(value)). The stream cannot "
                + "continue on them (its state holds the old aggregation). Run `latelake backfill "
                + "--metric page_5m` to rebuild gold.page_5m from bronze with the new definition (the "
                + "old table stays readable as an earlier Delta version), or restore the old "
                + "definition: window=PT5M; group-by=[page]; measures=[events=count, "
                + "value_sum=sum(value)] (table "
                + goldPath
                + ")");
    assertThat(gold(goldPath, false, null))
        .containsExactly("p 12:00 2 3 -", "p 12:30 2 5 -", "q 12:05 1 5 -");

    CorrectionConfig config = CorrectionConfig.fromConfig(changed.config);
    JobContext context =
        JobContext.start(
            spark,
            TableRegistry.fromConfig(changed.config),
            Clock.fixed(BACKFILL_AT, ZoneOffset.UTC));
    BackfillJob.Result r =
        new BackfillJob(context, new BackfillJob.Options(config, config.metric("page_5m"))).run();

    // The closed window [12:00, 12:05) gains l1 and is restated; the open one is not.
    assertThat(gold(goldPath, true, null))
        .containsExactly("p 12:00 3 10 7 restated", "p 12:30 2 5 4 -", "q 12:05 1 5 5 -");
    assertThat(goldValues(goldPath)).isEqualTo(recompute(changed, config));
    assertThat(r.rows()).isEqualTo(3);
    assertThat(r.restated()).isEqualTo(1);
    assertThat(r.oldVersion()).hasValue(oldVersion);
    assertThat(r.newVersion()).isEqualTo(oldVersion + 1);
    assertThat(gold(goldPath, false, Long.toString(oldVersion)))
        .containsExactly("p 12:00 2 3 -", "p 12:30 2 5 -", "q 12:05 1 5 -");
    assertThat(r.watermark()).contains(Instant.parse("2024-05-14T12:23:00Z"));
    assertThat(r.oldCheckpoint())
        .contains(f.root + "/_checkpoints/gold_page_5m.before-" + context.runId("backfill"));
    assertThat(Files.isDirectory(Path.of(r.oldCheckpoint().orElseThrow(), "offsets"))).isTrue();
    assertThat(TableProperties.get(spark, goldPath, MetricDefinition.PROPERTY))
        .contains(
            "window=PT5M; group-by=[page]; measures=[events=count, value_sum=sum(value), "
                + "peak=max(value)]");
    assertThat(
            spark
                .read()
                .format("delta")
                .load(f.root + "/monitoring/corrections_log")
                .selectExpr(
                    "concat_ws(' | ', date_format(window_start, 'HH:mm'), keys, reason, "
                        + "old_values, new_values, policy, run_id, CAST(corrected_at AS STRING))")
                .as(Encoders.STRING())
                .collectAsList())
        .containsExactly(
            "12:00 | {\"page\":\"p\"} | "
                + "LATE_ARRIVAL | {\"events\":2,\"value_sum\":3} | {\"events\":3,\"value_sum\":10} | "
                + "backfill | "
                + context.runId("backfill")
                + " | 2024-05-14 13:00:00");

    // New silver data: the open window gets its full value, a new window appears, nothing
    // else is touched (the closed windows keep the backfill's updated_at).
    f.land(
        event("c3", "2024-05-14T12:34:00Z", "2024-05-14T12:34:01Z", "p", 3),
        event("d1", "2024-05-14T12:41:00Z", "2024-05-14T12:41:01Z", "q", 2));
    FastPath.Step step = after.step();
    assertThat(step.gold().get(0).inputRows()).isEqualTo(2);
    assertThat(gold(goldPath, true, null))
        .containsExactly(
            "p 12:00 3 10 7 restated", "p 12:30 3 8 4 -", "q 12:05 1 5 5 -", "q 12:40 1 2 2 -");
    assertThat(goldValues(goldPath)).isEqualTo(recompute(changed, config));
    assertThat(
            spark
                .read()
                .format("delta")
                .load(goldPath)
                .filter("updated_at = TIMESTAMP '2024-05-14 13:00:00'")
                .selectExpr("concat_ws(' ', page, date_format(window_start, 'HH:mm'))")
                .as(Encoders.STRING())
                .collectAsList()
                .stream()
                .sorted()
                .toList())
        .containsExactly("p 12:00", "q 12:05");
  }
}

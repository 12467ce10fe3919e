package io.latelake.correction.rollup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latelake.core.config.ConfigLoader;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.job.JobContext;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.testing.SparkTestBase;
import io.latelake.core.time.DayRange;
import io.latelake.correction.shared.CorrectionConfig;
import io.latelake.correction.shared.LakeReads;
import io.latelake.correction.shared.RangeSpec;
import io.latelake.correction.shared.RollupPeriod;
import io.latelake.correction.shared.TransformsTest;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * rebuild and cascade against Delta tables in a temp folder: local days of a business time zone
 * (2024 US fall-back day, America/New_York), the zone kept in the table properties, empty days
 * deleted, the run summary in monitoring.rollup_runs, and cascade refusing days never rebuilt.
 */
class RollupJobsTest extends SparkTestBase {
  @TempDir Path tmp;

  static CorrectionConfig config(Path root, String zone) {
    return config(root, zone, "");
  }

  /** As above, with {@code extraMeasures} appended to page_5m's measures (e.g. {@code , {...}}). */
  static CorrectionConfig config(Path root, String zone, String extraMeasures) {
    return CorrectionConfig.fromConfig(
        ConfigLoader.load(
            Optional.empty(),
            List.of(
                "lake.root=\"" + root + "\"",
                "lake.event.fields=[{name=page, type=string}, {name=value, type=long}]",
                "lake.gold.metrics.page_5m={window=\"5 minutes\", group-by=[page], measures=["
                    + "{name=events, function=count}, {name=value_sum, function=sum, column=value}"
                    + extraMeasures
                    + "]}",
                "lake.correction.rollup-time-zone=\"" + zone + "\"")));
  }

  static DayRange days(String from, String to) {
    return new DayRange(LocalDate.parse(from), LocalDate.parse(to));
  }

  List<String> rows(String path, String expr) {
    return spark
        .read()
        .format("delta")
        .load(path)
        .selectExpr(expr)
        .as(Encoders.STRING())
        .collectAsList()
        .stream()
        .sorted()
        .toList();
  }

  @Test
  void localDaysAcrossFallBackEmptyDaysDeletedAndCascadeRefusesDaysNeverRebuilt() {
    Path root = tmp.resolve("lake");
    TableRegistry tables = new TableRegistry(root.toString());
    CorrectionConfig ny = config(root, "America/New_York");
    String[][] events = {
      {"n1", "2024-11-03T03:59:59Z"}, // 11-02 23:59:59 EDT
      {"n2", "2024-11-03T04:00:00Z"}, // 11-03 00:00 EDT
      {"n3", "2024-11-03T05:30:00Z"}, // the first 01:30 (EDT)
      {"n4", "2024-11-03T06:30:00Z"}, // the second 01:30 (EST)
      {"n5", "2024-11-04T04:30:00Z"}, // 11-03 23:30 EST, the 25th hour
      {"n6", "2024-11-04T05:00:00Z"}
    }; // 11-04 00:00 EST
    List<Row> bronze = new ArrayList<>();
    for (int i = 0; i < events.length; i++) {
      bronze.add(TransformsTest.kafka(events[i][0], events[i][1], events[i][1], 0, i, "p", i + 1));
    }
    spark
        .createDataFrame(bronze, TransformsTest.BRONZE)
        .write()
        .format("delta")
        .save(tables.bronzeEvents());
    String daily = tables.gold("daily_page_5m");

    RebuildJob.Result r =
        new RebuildJob(
                JobContext.start(spark, tables),
                new RangeSpec(ny, ny.metrics(), days("2024-11-02", "2024-11-04")))
            .run();
    assertThat(rows(daily, "concat_ws(' ', event_date, page, events, value_sum)"))
        .containsExactly("2024-11-02 p 1 1", "2024-11-03 p 4 14", "2024-11-04 p 1 6");
    assertThat(LakeReads.tableProperty(spark, daily, RollupPeriod.ZONE_PROPERTY))
        .contains("America/New_York");
    assertThat(r.metrics().get(0).summary())
        .isEqualTo(
            "daily_page_5m: 3 days (first 2024-11-02, last 2024-11-04) changed, 3 rows written");
    assertThat(
            rows(
                tables.monitoring("rollup_runs"),
                "concat_ws(' ', job, time_zone, "
                    + "range_from, range_to, changed_count, first_changed, last_changed, size(changed))"))
        .containsExactly(
            "rebuild America/New_York 2024-11-02 2024-11-04 3 2024-11-02 " + "2024-11-04 3");

    // n1 turns out to be a retry re-stamped by a day: its first copy (10-31) arrived earlier.
    // 11-02's correct content is now empty: rebuild leaves no row for it.
    spark
        .createDataFrame(
            List.of(
                TransformsTest.kafka(
                    "n1", "2024-10-31T12:00:00Z", "2024-10-31T12:00:00Z", 0, 99, "p", 1)),
            TransformsTest.BRONZE)
        .write()
        .format("delta")
        .mode("append")
        .save(tables.bronzeEvents());
    new RebuildJob(
            JobContext.start(spark, tables),
            new RangeSpec(ny, ny.metrics(), days("2024-11-02", "2024-11-02")))
        .run();
    assertThat(rows(daily, "concat_ws(' ', event_date, page, events, value_sum)"))
        .containsExactly("2024-11-03 p 4 14", "2024-11-04 p 1 6");

    // 11-01 was never rebuilt: cascade over it refuses, naming the days and the remedy
    assertThatThrownBy(
            () ->
                new CascadeJob(
                        JobContext.start(spark, tables),
                        new RangeSpec(ny, ny.metrics(), days("2024-10-31", "2024-11-03")))
                    .run())
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Cannot cascade gold.weekly_page_5m over 2024-10-31..2024-11-03: 2 days "
                + "(first 2024-10-31, last 2024-11-01) of the range were never built by rebuild (no "
                + "row in gold.daily_page_5m and no rebuild of them in monitoring.rollup_runs), so "
                + "their weeks would be summed from missing days; run `latelake rebuild --from "
                + "2024-10-31 --to 2024-11-01` first (gold.daily_page_5m holds days "
                + "2024-11-03..2024-11-04: to cascade those, give them with --from/--to)");
    assertThat(tmp.resolve("lake/gold/weekly_page_5m")).doesNotExist();

    // 11-02 is built (empty, rebuilt twice); the edge days 10-28..11-01, 11-05..11-10 are
    // reported
    CascadeJob.Result c =
        new CascadeJob(
                JobContext.start(spark, tables),
                new RangeSpec(ny, ny.metrics(), days("2024-11-02", "2024-11-04")))
            .run();
    assertThat(c.metrics().get(0).summary())
        .isEqualTo(
            "weekly_page_5m: 2 rows changed in 2 weeks (first 2024-10-28, last 2024-11-04); 11 days "
                + "(first 2024-10-28, last 2024-11-10) of the edge weeks never rebuilt");
    assertThat(
            rows(
                tables.gold("weekly_page_5m"),
                "concat_ws(' ', week_start, iso_week, page, events, value_sum, days)"))
        .containsExactly("2024-10-28 44 p 4 14 1", "2024-11-04 45 p 1 6 1");

    // a rollup table built in one zone refuses another
    CorrectionConfig utc = config(root, "UTC");
    assertThatThrownBy(
            () ->
                new RebuildJob(
                        JobContext.start(spark, tables),
                        new RangeSpec(utc, utc.metrics(), days("2024-11-03", "2024-11-03")))
                    .run())
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'UTC' for key 'lake.correction.rollup-time-zone': "
                + "gold.daily_page_5m at "
                + daily
                + " holds days of time zone America/New_York; "
                + "days of two zones must not mix: set it back to America/New_York, or move the "
                + "table aside and rebuild it (and its weekly rollup) over the whole range");

    // a measure added to the metric (backfill rebuilt gold): the rollups of the old shape refuse
    // to mix days or weeks of the two shapes, naming both column lists and the remedy
    CorrectionConfig peak =
        config(root, "America/New_York", ", {name=peak, function=max, column=value}");
    String remedy =
        ": its definition changed (see `latelake backfill`). Move the table aside and rebuild it "
            + "over the whole range: `latelake rebuild --metric page_5m --from <first day> --to "
            + "<last day>`, then `latelake cascade` over the same days";
    String refused =
        "gold.daily_page_5m at "
            + daily
            + " has the columns [event_date, page, events, value_sum] but metric page_5m now "
            + "gives [event_date, page, events, value_sum, peak]"
            + remedy;
    assertThatThrownBy(
            () ->
                new RebuildJob(
                        JobContext.start(spark, tables),
                        new RangeSpec(peak, peak.metrics(), days("2024-11-03", "2024-11-03")))
                    .run())
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(refused);
    assertThatThrownBy(
            () ->
                new CascadeJob(
                        JobContext.start(spark, tables),
                        new RangeSpec(peak, peak.metrics(), days("2024-11-02", "2024-11-04")))
                    .run())
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(refused);
    assertThat(rows(daily, "concat_ws(' ', event_date, page, events, value_sum)"))
        .containsExactly("2024-11-03 p 4 14", "2024-11-04 p 1 6");
  }

  /**
   * The daily table's layout: 3 years of days (one event a day, 1,095 days) rebuilt into one data
   * file of a table clustered by event_date, not 1,095 partition folders; replacing one day marks
   * its row in a deletion vector and keeps one file; a table of the earlier layout (partitioned by
   * event_date) is still rebuilt, in one file a day.
   */
  @Test
  void aRebuildOfYearsWritesOneClusteredFileAndATableOfTheEarlierLayoutKeepsItsPartitions() {
    Path root = tmp.resolve("lake");
    TableRegistry tables = new TableRegistry(root.toString());
    CorrectionConfig utc = config(root, "UTC");
    LocalDate first = LocalDate.parse("2021-01-01");
    List<Row> bronze = new ArrayList<>();
    for (int d = 0; d < 1_095; d++) {
      String t = first.plusDays(d) + "T12:00:00Z";
      bronze.add(TransformsTest.kafka("e" + d, t, t, 0, d, "p", d));
    }
    spark
        .createDataFrame(bronze, TransformsTest.BRONZE)
        .write()
        .format("delta")
        .save(tables.bronzeEvents());
    DayRange years = days("2021-01-01", "2023-12-31");
    String daily = tables.gold("daily_page_5m");

    new RebuildJob(JobContext.start(spark, tables), new RangeSpec(utc, utc.metrics(), years)).run();
    assertThat(layout(daily)).isEqualTo("files 1, partitions [], clustering [event_date]");
    String firstFile = fileOf(daily, "2022-05-30");
    assertThat(rows(daily, "cast(count(*) as string)")).containsExactly("1095");
    assertThat(LakeReads.tableProperty(spark, daily, "delta.enableDeletionVectors"))
        .contains("true");

    // 2022-06-01's event was a retry: its first copy arrived on 2022-05-31. One day replaced.
    spark
        .createDataFrame(
            List.of(
                TransformsTest.kafka(
                    "e516", "2022-05-31T12:00:00Z", "2022-05-31T11:00:00Z", 0, 5_000, "p", 516)),
            TransformsTest.BRONZE)
        .write()
        .format("delta")
        .mode("append")
        .save(tables.bronzeEvents());
    RebuildJob.Result r =
        new RebuildJob(
                JobContext.start(spark, tables),
                new RangeSpec(utc, utc.metrics(), days("2022-05-31", "2022-06-01")))
            .run();
    assertThat(r.metrics().get(0).changedDays())
        .containsExactly(LocalDate.parse("2022-05-31"), LocalDate.parse("2022-06-01"));
    assertThat(rows(daily, "concat_ws(' ', event_date, events, value_sum)"))
        .hasSize(1_094)
        .contains("2022-05-30 1 514", "2022-05-31 2 1031", "2022-06-02 1 517")
        .noneMatch(d -> d.startsWith("2022-06-01"));
    assertThat(layout(daily)).isEqualTo("files 2, partitions [], clustering [event_date]");
    // The other 1,093 days stay in the first file (their replaced neighbours are marked deleted in
    // its deletion vector, not copied into a new file).
    assertThat(fileOf(daily, "2022-05-30"))
        .isEqualTo(firstFile)
        .isEqualTo(fileOf(daily, "2023-12-31"));
    assertThat(fileOf(daily, "2022-05-31")).isNotEqualTo(firstFile);

    // The earlier layout: one partition folder (and file) a day, still rebuilt exactly.
    Path oldRoot = tmp.resolve("old-lake");
    TableRegistry old = new TableRegistry(oldRoot.toString());
    spark
        .read()
        .format("delta")
        .load(tables.bronzeEvents())
        .write()
        .format("delta")
        .save(old.bronzeEvents());
    String oldDaily = old.gold("daily_page_5m");
    spark
        .read()
        .format("delta")
        .load(daily)
        .limit(0)
        .write()
        .format("delta")
        .partitionBy("event_date")
        .save(oldDaily);
    CorrectionConfig oldUtc = config(oldRoot, "UTC");
    new RebuildJob(JobContext.start(spark, old), new RangeSpec(oldUtc, oldUtc.metrics(), years))
        .run();
    assertThat(layout(oldDaily)).isEqualTo("files 1094, partitions [event_date], clustering []");
    assertThat(rows(oldDaily, "concat_ws(' ', event_date, events, value_sum)"))
        .isEqualTo(rows(daily, "concat_ws(' ', event_date, events, value_sum)"));
  }

  /** The name of the data file that holds {@code day}'s row in the daily table at {@code path}. */
  private String fileOf(String path, String day) {
    return spark
        .read()
        .format("delta")
        .load(path)
        .where("event_date = DATE'" + day + "'")
        .selectExpr("_metadata.file_name")
        .as(Encoders.STRING())
        .first();
  }

  /** The data files, partition and clustering columns of the Delta table at {@code path}. */
  private String layout(String path) {
    Row d =
        io.delta.tables.DeltaTable.forPath(spark, path)
            .detail()
            .select("numFiles", "partitionColumns", "clusteringColumns")
            .first();
    return "files "
        + d.getLong(0)
        + ", partitions "
        + d.getList(1)
        + ", clustering "
        + d.getList(2);
  }

  @Test
  void aFixedOffsetOrAnUnknownZoneIsRefused() {
    assertThatThrownBy(() -> config(tmp, "-05:00"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '-05:00' for key 'lake.correction.rollup-time-zone': a fixed "
                + "offset does not follow daylight saving time; give an IANA time-zone name such as "
                + "America/New_York, or UTC");
    assertThatThrownBy(() -> config(tmp, "Mars/Olympus"))
        .hasMessage(
            "Invalid value 'Mars/Olympus' for key 'lake.correction.rollup-time-zone': "
                + "expected an IANA time-zone name such as America/New_York, or UTC");
  }
}

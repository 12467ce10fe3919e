package io.latelake.app;

import static org.apache.spark.sql.functions.col;

import com.typesafe.config.Config;
import io.latelake.bronze.replay.LandingWriter;
import io.latelake.core.config.ConfigLoader;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A lake in a temp folder with the cases' common settings (../shared/cases/README.md): events with
 * page and value, 10-minute watermark, 5-minute windows by page counting events and summing value;
 * landing files with the enqueued time in the payload.
 */
final class LakeFixture {
  final Path root;
  final Path landing;
  final Config config;

  /** The {@code --set} overrides the config was loaded from (for commands run with them). */
  final List<String> sets;

  private final LandingWriter writer;
  private int files;

  LakeFixture(Path root, String... extra) {
    this.root = root;
    this.landing = root.resolve("landing");
    List<String> sets =
        new ArrayList<>(
            List.of(
                "lake.root=\"" + root + "\"",
                "lake.spark.shuffle-partitions=2",
                "lake.bronze.source=files",
                "lake.bronze.files.path=\"" + landing + "\"",
                "lake.bronze.files.enqueued-time=payload-field",
                "lake.bronze.files.enqueued-time-field=enqueued_time",
                "lake.event.source-name=web",
                "lake.event.fields=[{name=page, type=string}, {name=value, type=long}]",
                "lake.event.future-skew-tolerance=\"5 minutes\"",
                "lake.silver.watermark-delay=\"10 minutes\"",
                "lake.gold.watermark-delay=\"10 minutes\"",
                "lake.gold.metrics.page_5m={window=\"5 minutes\", group-by=[page], measures=["
                    + "{name=events, function=count}, {name=value_sum, function=sum, column=value}]}"));
    sets.addAll(List.of(extra));
    this.sets = List.copyOf(sets);
    this.config = ConfigLoader.load(Optional.empty(), sets);
    this.writer = new LandingWriter(landing);
  }

  /** Writes one landing file holding these JSON lines. */
  void land(String... jsonLines) {
    writer.writeLines(String.format("batch-%04d.jsonl", ++files), List.of(jsonLines));
  }

  static String event(String id, String eventTime, String enqueued, String page, long value) {
    return "{\"event_id\":\""
        + id
        + "\",\"event_time\":\""
        + eventTime
        + "\",\"enqueued_time\":\""
        + enqueued
        + "\",\"page\":\""
        + page
        + "\",\"value\":"
        + value
        + "}";
  }

  /**
   * @return gold rows as "page window_start events value_sum", sorted
   */
  static List<String> goldRows(SparkSession spark, String path) {
    List<String> out = new ArrayList<>();
    for (Row r :
        spark
            .read()
            .format("delta")
            .load(path)
            .select(col("page"), col("window_start"), col("events"), col("value_sum"))
            .collectAsList()) {
      out.add(
          r.getString(0)
              + " "
              + ((Timestamp) r.get(1)).toInstant()
              + " "
              + r.get(2)
              + " "
              + r.get(3));
    }
    out.sort(null);
    return out;
  }

  /**
   * @return {@code expr} (a string expression) over every row of the Delta table at {@code path},
   *     sorted
   */
  static List<String> rows(SparkSession spark, String path, String expr) {
    return spark
        .read()
        .format("delta")
        .load(path)
        .selectExpr(expr)
        .as(org.apache.spark.sql.Encoders.STRING())
        .collectAsList()
        .stream()
        .sorted()
        .toList();
  }

  static List<String> ids(SparkSession spark, String path) {
    List<String> out =
        new ArrayList<>(
            spark
                .read()
                .format("delta")
                .load(path)
                .select("event_id")
                .as(org.apache.spark.sql.Encoders.STRING())
                .collectAsList());
    out.sort(null);
    return out;
  }

  /**
   * @return the watermark (UTC, ISO-8601) {@code query} reported last in the lake's {@code
   *     monitoring.stream_progress}, "none" before its first
   */
  static String lastWatermark(SparkSession spark, Object root, String query) {
    Row r =
        spark
            .read()
            .format("delta")
            .load(root + "/monitoring/stream_progress")
            .filter(col("query_name").equalTo(query))
            .agg(org.apache.spark.sql.functions.max("watermark"))
            .first();
    return r.isNullAt(0) ? "none" : r.getTimestamp(0).toInstant().toString();
  }
}

package io.latelake.core.metric;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.assertj.core.api.Assertions.assertThat;

import io.delta.tables.DeltaTable;
import io.latelake.core.table.DeltaTables;
import io.latelake.core.testing.SparkTestBase;
import java.nio.file.Path;
import java.sql.Date;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one gold MERGE plan on small Delta tables: keys, changed rows, stamps, actions, range. */
class GoldMergePlanTest extends SparkTestBase {
  private static final MetricSpec METRIC =
      new MetricSpec(
          "page_5m",
          Duration.ofMinutes(5),
          List.of("page"),
          List.of(
              new Measure("views", Measure.Function.COUNT, Optional.empty()),
              new Measure("total", Measure.Function.SUM, Optional.of("value"))),
          LatePolicy.RESTATE);

  /** The aggregate's schema ({@link MetricAggregation#aggregate} of {@link #METRIC}). */
  private static final StructType AGG =
      StructType.fromDDL(
          "window_start TIMESTAMP, "
              + "window_end TIMESTAMP, page STRING, views BIGINT, total BIGINT");

  private static final StructType WEEKLY =
      StructType.fromDDL(
          "week_start DATE, iso_year INT, "
              + "iso_week INT, page STRING, views BIGINT, total BIGINT, days BIGINT");

  /** When the rows already in gold were written. */
  private static final Timestamp EARLIER = ts("2024-05-14T11:00:00Z");

  private static final Timestamp NOW = ts("2024-05-14T12:00:00Z");

  @TempDir Path tmp;

  @Test
  void aNullGroupByValueMatchesItsRowAndAnUnchangedRowIsNotUpdated() {
    String gold = gold("stream", agg("10:00", null, 1, 5), agg("10:00", "home", 2, 7));
    Dataset<Row> batch =
        rows(AGG, agg("10:00", null, 3, 9), agg("10:00", "home", 2, 7), agg("10:05", null, 1, 1));
    GoldMergePlan plan = GoldMergePlan.of(METRIC);

    plan.execute(batch, gold, plan.condition(batch, true), GoldMergePlan.Stamps.stream());

    // updated_at: "earlier" when untouched, "now" when this MERGE wrote it (current_timestamp)
    assertThat(goldRows(gold))
        .containsExactlyInAnyOrder(
            "10:00-10:05 null 3 9 updated=now corrected=null",
            "10:00-10:05 home 2 7 updated=earlier corrected=null",
            "10:05-10:10 null 1 1 updated=now corrected=null");
    assertThat(lastMergeMetrics(gold))
        .containsExactly(
            "numTargetRowsDeleted=0", "numTargetRowsInserted=1", "numTargetRowsUpdated=1");
  }

  @Test
  void theSameValuesAgainChangeNothing() {
    String gold = gold("again", agg("10:00", null, 1, 5), agg("10:05", "home", 2, 7));
    Dataset<Row> batch = rows(AGG, agg("10:00", null, 1, 5), agg("10:05", "home", 2, 7));
    GoldMergePlan plan = GoldMergePlan.of(METRIC);

    plan.execute(batch, gold, plan.condition(batch, true), GoldMergePlan.Stamps.stream());

    assertThat(goldRows(gold))
        .containsExactlyInAnyOrder(
            "10:00-10:05 null 1 5 updated=earlier corrected=null",
            "10:05-10:10 home 2 7 updated=earlier corrected=null");
    assertThat(lastMergeMetrics(gold))
        .containsExactly(
            "numTargetRowsDeleted=0", "numTargetRowsInserted=0", "numTargetRowsUpdated=0");
  }

  @Test
  void correctionsDeleteUpdateOrInsertByActionAndStampCorrectedAt() {
    String gold =
        gold(
            "restate",
            agg("10:00", null, 1, 5),
            agg("10:00", "home", 2, 7),
            agg("10:05", "home", 4, 4));
    StructType corrections = AGG.add(GoldMergePlan.ACTION, DataTypes.StringType);
    Dataset<Row> fixes =
        rows(
            corrections,
            action(agg("10:00", null, 2, 6), "UPSERT"),
            action(agg("10:00", "home", 2, 7), "DELETE"),
            action(agg("10:05", "home", 4, 4), "UPSERT"),
            action(agg("10:10", null, 1, 1), "UPSERT"));
    GoldMergePlan plan = GoldMergePlan.of(METRIC);

    plan.execute(fixes, gold, plan.condition(fixes, true), GoldMergePlan.Stamps.correction(NOW));

    assertThat(goldRows(gold))
        .containsExactlyInAnyOrder(
            "10:00-10:05 null 2 6 updated=earlier corrected=2024-05-14T12:00:00Z",
            "10:05-10:10 home 4 4 updated=earlier corrected=null",
            "10:10-10:15 null 1 1 updated=2024-05-14T12:00:00Z corrected=2024-05-14T12:00:00Z");
    assertThat(lastMergeMetrics(gold))
        .containsExactly(
            "numTargetRowsDeleted=1", "numTargetRowsInserted=1", "numTargetRowsUpdated=1");
  }

  @Test
  void theWeeklyPlanKeysOnWeekStartAndCarriesTheIsoWeek() {
    String weekly = tmp.resolve("weekly").toString();
    DeltaTables.createIfNotExists(
        spark, weekly, WEEKLY.add("updated_at", DataTypes.TimestampType), List.of(), Map.of());
    rows(WEEKLY, week("2024-05-06", null, 3, 9, 2), week("2024-05-13", "home", 1, 1, 1))
        .withColumn("updated_at", lit(EARLIER))
        .write()
        .format("delta")
        .mode("append")
        .save(weekly);
    StructType changed = WEEKLY.add(GoldMergePlan.ACTION, DataTypes.StringType);
    Dataset<Row> source =
        rows(
            changed,
            action(week("2024-05-06", null, 4, 10, 3), "UPSERT"),
            action(week("2024-05-13", "home", 1, 1, 1), "DELETE"),
            action(week("2024-05-20", "home", 2, 2, 1), "UPSERT"));
    GoldMergePlan plan = GoldMergePlan.weekly(METRIC);

    plan.execute(source, weekly, plan.condition(source, true), GoldMergePlan.Stamps.rollup(NOW));

    List<String> rows = new ArrayList<>();
    for (Row r : spark.read().format("delta").load(weekly).collectAsList()) {
      rows.add(
          r.getDate(0)
              + " "
              + r.getInt(1)
              + "-W"
              + r.getInt(2)
              + " "
              + r.getString(3)
              + " "
              + r.getLong(4)
              + " "
              + r.getLong(5)
              + " "
              + r.getLong(6)
              + " "
              + r.getTimestamp(7).toInstant());
    }
    assertThat(rows)
        .containsExactlyInAnyOrder(
            "2024-05-06 2024-W19 null 4 10 3 2024-05-14T12:00:00Z",
            "2024-05-20 2024-W21 home 2 2 1 2024-05-14T12:00:00Z");
  }

  @Test
  void theConditionBoundsTheTargetToTheSourceWindows() {
    GoldMergePlan plan = GoldMergePlan.of(METRIC);
    Dataset<Row> batch =
        rows(AGG, agg("10:05", "home", 1, 1), agg("10:15", null, 1, 1), agg("10:10", "home", 1, 1));
    Column key =
        col("t.window_start")
            .equalTo(col("s.window_start"))
            .and(col("t.`page`").eqNullSafe(col("s.`page`")));

    assertThat(plan.keyCondition().toString()).isEqualTo(key.toString());
    assertThat(plan.condition(batch, true).toString())
        .isEqualTo(
            col("t.window_start")
                .geq(lit(ts("2024-05-14T10:05:00Z")))
                .and(col("t.window_start").leq(lit(ts("2024-05-14T10:15:00Z"))))
                .and(key)
                .toString());
    assertThat(plan.condition(batch, false).toString()).isEqualTo(key.toString());
    assertThat(plan.condition(batch.limit(0), true).toString()).isEqualTo(key.toString());
  }

  @Test
  void updateAndInsertSetTheDataColumnsThenTheStamps() {
    GoldMergePlan plan = GoldMergePlan.of(METRIC);
    Map<String, Column> stamps = Map.of("updated_at", lit(NOW));

    assertThat(plan.update(stamps).keySet())
        .containsExactly("`window_end`", "`views`", "`total`", "updated_at");
    assertThat(plan.insert(stamps).keySet())
        .containsExactly(
            "`window_start`", "`page`", "`window_end`", "`views`", "`total`", "updated_at");
    assertThat(GoldMergePlan.weekly(METRIC).insert(stamps).keySet())
        .containsExactly(
            "`week_start`",
            "`page`",
            "`iso_year`",
            "`iso_week`",
            "`views`",
            "`total`",
            "`days`",
            "updated_at");
    assertThat(plan.changed().toString())
        .isEqualTo(
            lit(true)
                .and(col("t.`views`").eqNullSafe(col("s.`views`")))
                .and(col("t.`total`").eqNullSafe(col("s.`total`")))
                .unary_$bang()
                .toString());
  }

  /** A gold table holding {@code rows}, written {@link #EARLIER}, never corrected. */
  private String gold(String name, Row... rows) {
    String path = tmp.resolve(name).toString();
    DeltaTables.createIfNotExists(spark, path, GoldLayout.tableSchema(AGG), List.of(), Map.of());
    rows(AGG, rows)
        .withColumn("updated_at", lit(EARLIER))
        .withColumn("corrected_at", lit(null).cast(DataTypes.TimestampType))
        .write()
        .format("delta")
        .mode("append")
        .save(path);
    return path;
  }

  private List<String> goldRows(String path) {
    List<String> out = new ArrayList<>();
    for (Row r : spark.read().format("delta").load(path).collectAsList()) {
      Timestamp updated = r.getTimestamp(5);
      String u =
          updated.equals(EARLIER)
              ? "earlier"
              : updated.after(NOW) ? "now" : updated.toInstant().toString();
      out.add(
          hhmm(r.getTimestamp(0))
              + "-"
              + hhmm(r.getTimestamp(1))
              + " "
              + r.getString(2)
              + " "
              + r.getLong(3)
              + " "
              + r.getLong(4)
              + " updated="
              + u
              + " corrected="
              + (r.isNullAt(6) ? "null" : r.getTimestamp(6).toInstant().toString()));
    }
    return out;
  }

  /** The row counts of the table's last commit, a MERGE. */
  private List<String> lastMergeMetrics(String path) {
    Row last = DeltaTable.forPath(spark, path).history(1).first();
    assertThat(last.<String>getAs("operation")).isEqualTo("MERGE");
    Map<String, String> m =
        scala.jdk.javaapi.CollectionConverters.asJava(
            last.<scala.collection.Map<String, String>>getAs("operationMetrics"));
    return List.of(
        "numTargetRowsDeleted=" + m.get("numTargetRowsDeleted"),
        "numTargetRowsInserted=" + m.get("numTargetRowsInserted"),
        "numTargetRowsUpdated=" + m.get("numTargetRowsUpdated"));
  }

  private Dataset<Row> rows(StructType schema, Row... rows) {
    return spark.createDataFrame(Arrays.asList(rows), schema);
  }

  private static Row agg(String start, String page, long views, long total) {
    Timestamp s = ts("2024-05-14T" + start + ":00Z");
    return RowFactory.create(s, new Timestamp(s.getTime() + 300_000), page, views, total);
  }

  private static Row week(String monday, String page, long views, long total, long days) {
    LocalDate d = LocalDate.parse(monday);
    return RowFactory.create(
        Date.valueOf(d),
        d.get(java.time.temporal.IsoFields.WEEK_BASED_YEAR),
        d.get(java.time.temporal.IsoFields.WEEK_OF_WEEK_BASED_YEAR),
        page,
        views,
        total,
        days);
  }

  private static Row action(Row r, String action) {
    Object[] v = Arrays.copyOf(new Object[r.length()], r.length() + 1);
    for (int i = 0; i < r.length(); i++) {
      v[i] = r.get(i);
    }
    v[r.length()] = action;
    return RowFactory.create(v);
  }

  private static Timestamp ts(String instant) {
    return Timestamp.from(Instant.parse(instant));
  }

  private static String hhmm(Timestamp t) {
    return t.toInstant().toString().substring(11, 16);
  }
}

package io.latelake.correction.shared;

import io.delta.tables.DeltaTable;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.dedup.ExactDedup;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.DeltaTables;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** Reads of the lake the correction jobs share: table checks, bronze around a range. */
public final class LakeReads {
  private LakeReads() {}

  /**
   * @param what the table's name for the message, e.g. {@code bronze_events}
   * @throws io.latelake.core.table.MissingTableException (exit 2) when no Delta table exists at
   *     {@code path}
   */
  public static void requireTable(
      SparkSession spark, String job, String what, String path, String hint) {
    io.latelake.core.table.MissingTableException.require(spark, "run " + job, what, path, hint);
  }

  /**
   * @param version the bronze version to read; empty: the latest
   * @return every bronze row at that version (filter it: callers read around the rows they need)
   */
  public static Dataset<Row> bronzeAt(
      SparkSession spark, String path, java.util.OptionalLong version) {
    var reader = spark.read().format("delta");
    if (version.isPresent()) {
      reader = reader.option("versionAsOf", version.getAsLong());
    }
    return reader.load(path);
  }

  /**
   * Bronze rows whose event time lies in {@code [from − horizon, to + horizon)} ({@link
   * ExactDedup#eventTimeAround}): what the recompute of the range {@code [from, to)} needs to see
   * every copy of its events within the id horizon ({@code lake.correction.dedup-horizon}). Delta
   * skips the data files whose {@code event_time} statistics lie outside; bronze's {@code
   * ingest_date} partitions cannot be pruned on event time.
   *
   * @param version the bronze version to read; empty for the latest
   */
  public static Dataset<Row> bronzeAround(
      SparkSession spark,
      String path,
      java.util.OptionalLong version,
      Instant from,
      Instant to,
      java.time.Duration horizon) {
    return bronzeAt(spark, path, version).filter(ExactDedup.eventTimeAround(from, to, horizon));
  }

  /**
   * @return the value of a table property, empty when the table or the property is missing
   */
  public static Optional<String> tableProperty(SparkSession spark, String path, String key) {
    if (!DeltaTables.exists(spark, path)) {
      return Optional.empty();
    }
    return io.latelake.core.table.TableProperties.get(spark, path, key);
  }

  /**
   * Checks that an existing rollup table was built in {@code zone} (its {@value
   * RollupPeriod#ZONE_PROPERTY} property; a table without it was built in UTC): days of two zones
   * must never mix in one table.
   *
   * @throws LakeConfigException (exit 2) naming both zones and the remedy
   */
  public static void requireZone(SparkSession spark, String path, String what, ZoneId zone) {
    if (!DeltaTables.exists(spark, path)) {
      return;
    }
    String built = tableProperty(spark, path, RollupPeriod.ZONE_PROPERTY).orElse("UTC");
    if (!ZoneId.of(built).equals(zone)) {
      throw LakeConfigException.invalid(
          "lake.correction.rollup-time-zone",
          zone.getId(),
          what
              + " at "
              + path
              + " holds days of time zone "
              + built
              + "; days of two zones "
              + "must not mix: set it back to "
              + built
              + ", or move the table aside and "
              + "rebuild it (and its weekly rollup) over the whole range");
    }
  }

  /**
   * Refuses a rollup table built with another definition of its metric (a measure or group-by
   * column added, removed or renamed, as {@code backfill} allows): its days or weeks cannot be
   * replaced or merged with rows of the new shape.
   *
   * @param what the table's name, e.g. {@code gold.daily_page_5m}
   * @param metric the metric as configured now
   * @param columns the columns the configured metric gives the table, in order
   * @throws LakeConfigException (exit 2) naming both column lists and the remedy
   */
  public static void requireColumns(
      SparkSession spark, String path, String what, MetricSpec metric, List<String> columns) {
    if (!DeltaTables.exists(spark, path)) {
      return;
    }
    List<String> built = List.of(spark.read().format("delta").load(path).schema().fieldNames());
    if (!new java.util.HashSet<>(built).equals(new java.util.HashSet<>(columns))) {
      throw new LakeConfigException(
          what
              + " at "
              + path
              + " has the columns "
              + built
              + " but metric "
              + metric.name()
              + " now gives "
              + columns
              + ": its definition changed (see `latelake backfill`). Move the table aside and "
              + "rebuild it over the whole range: `latelake rebuild --metric "
              + metric.name()
              + " --from <first day> --to <last day>`, then `latelake cascade` over the same days");
    }
  }

  /**
   * As {@link #requireColumns(SparkSession, String, String, MetricSpec, List)} with {@code
   * schema}'s names, and each column's type must be {@code schema}'s: a rollup built when sums of
   * whole numbers were BIGINT is refused rather than mixed with DECIMAL(38,0) sums.
   *
   * @throws LakeConfigException (exit 2) naming the columns whose type changed and the remedy
   */
  public static void requireColumns(
      SparkSession spark,
      String path,
      String what,
      MetricSpec metric,
      org.apache.spark.sql.types.StructType schema) {
    requireColumns(spark, path, what, metric, List.of(schema.fieldNames()));
    if (!DeltaTables.exists(spark, path)) {
      return;
    }
    org.apache.spark.sql.types.StructType built = spark.read().format("delta").load(path).schema();
    List<String> changed = new java.util.ArrayList<>();
    for (org.apache.spark.sql.types.StructField f : schema.fields()) {
      String was = built.apply(f.name()).dataType().simpleString();
      String now = f.dataType().simpleString();
      if (!was.equals(now)) {
        changed.add(f.name() + " " + was + " -> " + now);
      }
    }
    if (!changed.isEmpty()) {
      throw new LakeConfigException(
          what
              + " at "
              + path
              + " was built with other column types ("
              + String.join("; ", changed)
              + ") than metric "
              + metric.name()
              + " now gives (sums of whole numbers are exact DECIMAL(38,0)). Move the table aside "
              + "and rebuild it over the whole range: `latelake rebuild --metric "
              + metric.name()
              + " --from <first day> --to <last day>`, then `latelake cascade` over the same days");
    }
  }

  /**
   * @return the table's latest committed version
   */
  public static long latestVersion(SparkSession spark, String path) {
    return DeltaTable.forPath(spark, path).history(1).select("version").first().getLong(0);
  }
}

package io.latelake.core.metric;

import io.latelake.core.config.LakeConfigException;
import io.latelake.core.table.TableProperties;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;

/**
 * At the gold stream's start, before any query starts: compares a metric's configured definition
 * ({@link MetricDefinition}) with the one its {@code gold.<metric>} table and checkpoint were built
 * with (table property {@value MetricDefinition#PROPERTY}).
 *
 * <p>Without this check, a measure added to a running metric lets the stream start on the old
 * checkpoint and fail at the next micro-batch with data ({@code
 * STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE}). Now: equal → go on; different → refuse with exit 2
 * naming the changes and the remedy ({@code latelake backfill --metric NAME}); no property (a new
 * table, or one built before the property existed) → record the configured definition. (The gold
 * stream checks its watermark delay beside this, as a warning.)
 */
public final class MetricDefinitionGuard {
  private MetricDefinitionGuard() {}

  /**
   * @param goldPath the metric's gold table (exists)
   * @param metric the configured metric
   * @throws LakeConfigException (exit 2) when the recorded definition differs
   */
  public static void check(SparkSession spark, String goldPath, MetricSpec metric) {
    check(spark, goldPath, metric, null);
  }

  /**
   * As {@link #check(SparkSession, String, MetricSpec)}, and the table's measure columns must have
   * the types the stream writes: a gold table whose sums are BIGINT (built before sums of whole
   * numbers became exact DECIMAL(38,0), {@link MetricAggregation#EXACT_SUM}) holds a checkpoint
   * whose aggregation state Spark would refuse at the first micro-batch with data.
   *
   * @param tableSchema the schema the gold stream writes; null skips the type check
   * @throws LakeConfigException (exit 2) when the definition or a measure's type differs, naming
   *     the columns and {@code latelake backfill --metric NAME}
   */
  public static void check(
      SparkSession spark,
      String goldPath,
      MetricSpec metric,
      org.apache.spark.sql.types.StructType tableSchema) {
    MetricDefinition configured = MetricDefinition.of(metric);
    Optional<String> recorded = TableProperties.get(spark, goldPath, MetricDefinition.PROPERTY);
    if (recorded.isEmpty()) {
      List<String> columns = List.of(spark.read().format("delta").load(goldPath).columns());
      if (!columns.equals(columns(metric))) {
        throw refusal(
            metric,
            goldPath,
            "table columns " + columns + " -> " + columns(metric),
            "restore the old definition");
      }
      record(spark, goldPath, metric);
    } else if (!recorded.get().equals(configured.canonical())) {
      throw refusal(metric, goldPath, recorded.get());
    }
    if (tableSchema != null) {
      org.apache.spark.sql.types.StructType built =
          spark.read().format("delta").load(goldPath).schema();
      List<String> changed = new java.util.ArrayList<>();
      for (String m : metric.measureNames()) {
        String was = built.apply(m).dataType().simpleString();
        String now = tableSchema.apply(m).dataType().simpleString();
        if (!was.equals(now)) {
          changed.add(m + " " + was + " -> " + now);
        }
      }
      if (!changed.isEmpty()) {
        throw new LakeConfigException(
            "Cannot start gold stream "
                + metric.queryName()
                + ": gold."
                + metric.name()
                + " and its checkpoint were built with other measure types ("
                + String.join("; ", changed)
                + "; sums of whole numbers are exact DECIMAL(38,0) since they can pass 2^63-1). "
                + "The stream cannot continue on them (its state holds the old types). Run "
                + "`latelake backfill --metric "
                + metric.name()
                + "` to rebuild gold."
                + metric.name()
                + " from bronze with the new types (the old table stays readable as an earlier "
                + "Delta version) (table "
                + goldPath
                + ")");
      }
    }
  }

  /** Records {@code metric}'s definition as the one {@code gold.<metric>} is built with. */
  public static void record(SparkSession spark, String goldPath, MetricSpec metric) {
    TableProperties.set(
        spark,
        goldPath,
        Map.of(MetricDefinition.PROPERTY, MetricDefinition.of(metric).canonical()));
  }

  /**
   * @return the gold table's columns for {@code metric}: window_start, window_end, the group-by
   *     columns, the measures, updated_at, corrected_at ({@link GoldLayout})
   */
  static List<String> columns(MetricSpec metric) {
    List<String> c = new java.util.ArrayList<>(List.of("window_start", "window_end"));
    c.addAll(metric.groupBy());
    c.addAll(metric.measureNames());
    c.addAll(List.of("updated_at", "corrected_at"));
    return c;
  }

  /**
   * @return the exit-2 refusal: what changed, and the remedy
   */
  static LakeConfigException refusal(MetricSpec metric, String goldPath, String recorded) {
    MetricDefinition configured = MetricDefinition.of(metric);
    String changes =
        String.join(
            "; ",
            MetricDefinition.parse(recorded)
                .map(configured::changesFrom)
                .orElse(List.of("recorded definition '" + recorded + "' is not readable")));
    return refusal(metric, goldPath, changes, "restore the old definition: " + recorded);
  }

  private static LakeConfigException refusal(
      MetricSpec metric, String goldPath, String changes, String restore) {
    return new LakeConfigException(
        "Cannot start gold stream "
            + metric.queryName()
            + ": metric "
            + metric.name()
            + " (lake.gold.metrics."
            + metric.name()
            + ") differs from "
            + "the definition gold."
            + metric.name()
            + " and its checkpoint were built with ("
            + changes
            + "). The stream cannot continue on them (its state holds "
            + "the old aggregation). Run `latelake backfill --metric "
            + metric.name()
            + "` to "
            + "rebuild gold."
            + metric.name()
            + " from bronze with the new definition (the old "
            + "table stays readable as an earlier Delta version), or "
            + restore
            + " (table "
            + goldPath
            + ")");
  }
}

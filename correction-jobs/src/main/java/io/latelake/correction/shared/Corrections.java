package io.latelake.correction.shared;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.greatest;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.to_json;
import static org.apache.spark.sql.functions.when;

import io.latelake.core.metric.Measure;
import io.latelake.core.metric.MetricSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;

/**
 * Pure comparison of recomputed and published gold rows.
 *
 * <p>{@link #diff} output schema ("corrections"): {@code window_start}, {@code window_end}, the
 * group-by columns, the measures with their new (recomputed) values (null when the window's row is
 * to be removed), {@code _action} string ({@code UPSERT} | {@code DELETE}), {@code reason} string
 * ({@link Reason}), {@code keys} string (JSON object of the group-by values, {@code {}} without
 * group-by), {@code old_values} struct of the published measures (null for a new row), {@code
 * new_values} struct of the recomputed measures (null when removed). The values stay structs
 * through the pipeline (staged, compared, MERGEd); only the writers of tables people read format
 * them as JSON ({@link #asJson}).
 */
public final class Corrections {
  /** Why a row was corrected. */
  public enum Reason {
    /** Recomputation counts more events than gold: late rows the watermark dropped. */
    LATE_ARRIVAL,
    /** Recomputation counts fewer events: duplicates the stream could not remove. */
    DUPLICATE_REMOVED,
    /** The window had no gold row: all its events arrived behind the watermark. */
    NEW_WINDOW,
    /** Values differ with the same number of events (or the metric has no count measure). */
    VALUE_CHANGED
  }

  /** {@code to_json} options: a measure whose value is NULL is written as null, not left out. */
  private static final java.util.Map<String, String> KEEP_NULLS =
      java.util.Map.of("ignoreNullFields", "false");

  private Corrections() {}

  /**
   * @return {@code to_json(struct(group-by columns))}, or {@code '{}'} without group-by
   */
  public static Column keysJson(MetricSpec metric, String alias) {
    if (metric.groupBy().isEmpty()) {
      return lit("{}");
    }
    return to_json(
        struct(
            metric.groupBy().stream()
                .map(g -> col(prefixed(alias, g)).as(g))
                .toArray(Column[]::new)));
  }

  private static String prefixed(String alias, String column) {
    return alias == null ? "`" + column + "`" : alias + ".`" + column + "`";
  }

  /**
   * Full outer join of {@code recomputed} and {@code published} on (window_start, group-by
   * null-safe); rows whose measures are equal (null-safe) are left out.
   *
   * @param recomputed {@link Recompute#gold} rows of the windows to check
   * @param published gold rows of the same windows (extra columns ignored)
   * @param metric the metric
   * @return corrections (schema above)
   */
  public static Dataset<Row> diff(
      Dataset<Row> recomputed, Dataset<Row> published, MetricSpec metric) {
    Dataset<Row> r = recomputed.select(goldColumns(metric, null)).as("r");
    Dataset<Row> p = published.select(goldColumns(metric, null)).as("p");
    Column on = col("r.window_start").equalTo(col("p.window_start"));
    for (String g : metric.groupBy()) {
      on = on.and(col(prefixed("r", g)).eqNullSafe(col(prefixed("p", g))));
    }
    Column inR = col("r.window_start").isNotNull();
    Column inP = col("p.window_start").isNotNull();
    Column same = lit(true);
    for (String m : metric.measureNames()) {
      same = same.and(col(prefixed("r", m)).eqNullSafe(col(prefixed("p", m))));
    }
    Optional<Measure> count =
        metric.measures().stream()
            .filter(m -> m.function() == Measure.Function.COUNT && m.column().isEmpty())
            .findFirst();
    Column reason =
        when(inR.and(inP.unary_$bang()), lit(Reason.NEW_WINDOW.name()))
            .when(inP.and(inR.unary_$bang()), lit(Reason.DUPLICATE_REMOVED.name()));
    if (count.isPresent()) {
      String c = count.get().name();
      reason =
          reason
              .when(
                  col(prefixed("r", c)).gt(col(prefixed("p", c))), lit(Reason.LATE_ARRIVAL.name()))
              .when(
                  col(prefixed("r", c)).lt(col(prefixed("p", c))),
                  lit(Reason.DUPLICATE_REMOVED.name()));
    }
    reason = reason.otherwise(lit(Reason.VALUE_CHANGED.name()));

    List<Column> out = new ArrayList<>();
    out.add(coalesce(col("r.window_start"), col("p.window_start")).as("window_start"));
    out.add(coalesce(col("r.window_end"), col("p.window_end")).as("window_end"));
    for (String g : metric.groupBy()) {
      out.add(when(inR, col(prefixed("r", g))).otherwise(col(prefixed("p", g))).as(g));
    }
    for (String m : metric.measureNames()) {
      out.add(col(prefixed("r", m)).as(m));
    }
    out.add(when(inR, lit("UPSERT")).otherwise(lit("DELETE")).as("_action"));
    out.add(reason.as("reason"));
    out.add(when(inR, keysJson(metric, "r")).otherwise(keysJson(metric, "p")).as("keys"));
    out.add(when(inP, measures(metric, "p")).as("old_values"));
    out.add(when(inR, measures(metric, "r")).as("new_values"));
    return r.join(p, on, "full_outer")
        .filter(same.unary_$bang())
        .select(out.toArray(Column[]::new));
  }

  /**
   * @return {@code to_json(struct(measures))} of the aliased side
   */
  public static Column measuresJson(MetricSpec metric, String alias) {
    return to_json(measures(metric, alias), KEEP_NULLS);
  }

  /**
   * @return {@code struct(measures)} of the aliased side, fields named as the measures
   */
  static Column measures(MetricSpec metric, String alias) {
    return struct(
        metric.measureNames().stream()
            .map(m -> col(prefixed(alias, m)).as(m))
            .toArray(Column[]::new));
  }

  /**
   * The one formatting of values for people: {@code to_json} of a {@link #diff} struct column
   * ({@code old_values} or {@code new_values}), null stays null, a NULL measure is written as
   * {@code null} (not left out), named as the column. Used by the writers of {@code
   * monitoring.corrections_log} and {@code monitoring.recompute_audit}, and for {@code correct}'s
   * sample.
   */
  public static Column asJson(String valuesColumn) {
    return to_json(col(valuesColumn), KEEP_NULLS).as(valuesColumn);
  }

  /**
   * Largest absolute difference over the measures between two aliased sides, a missing value
   * counting as 0, as a double.
   */
  public static Column maxAbsDifference(MetricSpec metric, String left, String right) {
    List<Column> d = new ArrayList<>();
    for (String m : metric.measureNames()) {
      d.add(
          coalesce(col(prefixed(left, m)).cast(DataTypes.DoubleType), lit(0.0))
              .minus(coalesce(col(prefixed(right, m)).cast(DataTypes.DoubleType), lit(0.0))));
    }
    List<Column> abs = d.stream().map(org.apache.spark.sql.functions::abs).toList();
    return abs.size() == 1 ? abs.get(0) : greatest(abs.toArray(Column[]::new));
  }

  /**
   * @return window_start, window_end, group-by and measure columns (unaliased names)
   */
  static Column[] goldColumns(MetricSpec metric, String alias) {
    List<Column> c = new ArrayList<>();
    c.add(col(prefixed(alias, "window_start")));
    c.add(col(prefixed(alias, "window_end")));
    for (String g : metric.groupBy()) {
      c.add(col(prefixed(alias, g)));
    }
    for (String m : metric.measureNames()) {
      c.add(col(prefixed(alias, m)));
    }
    return c.toArray(Column[]::new);
  }
}

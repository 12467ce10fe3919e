package io.latelake.correction.audit;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.to_json;
import static org.apache.spark.sql.functions.when;

import io.latelake.core.metric.MetricSpec;
import io.latelake.correction.shared.Corrections;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;

/** The per-key difference of two states of one gold table, for {@link AsOfJob}. */
final class GoldDiff {
  private GoldDiff() {}

  /**
   * Full outer join of gold now and then on the key (window_start, group-by null-safe); keys whose
   * measures, {@code corrected_at} or {@code status} differ come out.
   *
   * @param now gold now with a {@code status} column
   * @param before gold then with a {@code status} column
   * @return window_start, keys, old_values / new_values (measures JSON, null for a missing side),
   *     delta (after − before per measure as doubles, a missing side counting as 0, JSON),
   *     corrected_at_before / _after, status_before / _after
   */
  static Dataset<Row> diff(Dataset<Row> now, Dataset<Row> before, MetricSpec metric) {
    Dataset<Row> a = now.as("a");
    Dataset<Row> b = before.as("b");
    Column on = col("a.window_start").equalTo(col("b.window_start"));
    for (String g : metric.groupBy()) {
      on = on.and(col("a.`" + g + "`").eqNullSafe(col("b.`" + g + "`")));
    }
    Column same =
        col("a.corrected_at")
            .eqNullSafe(col("b.corrected_at"))
            .and(col("a.status").eqNullSafe(col("b.status")));
    for (String m : metric.measureNames()) {
      same = same.and(col("a.`" + m + "`").eqNullSafe(col("b.`" + m + "`")));
    }
    Column inA = col("a.window_start").isNotNull();
    Column inB = col("b.window_start").isNotNull();
    Column delta =
        to_json(
            struct(
                metric.measureNames().stream()
                    .map(
                        m ->
                            coalesce(col("a.`" + m + "`").cast(DataTypes.DoubleType), lit(0.0))
                                .minus(
                                    coalesce(
                                        col("b.`" + m + "`").cast(DataTypes.DoubleType), lit(0.0)))
                                .as(m))
                    .toArray(Column[]::new)));
    return a.join(b, on, "full_outer")
        .filter(same.unary_$bang())
        .select(
            coalesce(col("a.window_start"), col("b.window_start")).as("window_start"),
            when(inA, Corrections.keysJson(metric, "a"))
                .otherwise(Corrections.keysJson(metric, "b"))
                .as("keys"),
            when(inB, Corrections.measuresJson(metric, "b")).as("old_values"),
            when(inA, Corrections.measuresJson(metric, "a")).as("new_values"),
            delta.as("delta"),
            col("b.corrected_at").as("corrected_at_before"),
            col("a.corrected_at").as("corrected_at_after"),
            col("b.status").as("status_before"),
            col("a.status").as("status_after"));
  }
}

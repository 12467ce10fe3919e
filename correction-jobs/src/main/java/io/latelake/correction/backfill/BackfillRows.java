package io.latelake.correction.backfill;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.when;

import io.latelake.core.metric.MetricSpec;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/** The rows a {@link BackfillJob} writes to gold. Pure. */
final class BackfillRows {
  private BackfillRows() {}

  /**
   * Gold rows to write: {@code fresh} ({@link io.latelake.correction.shared.Recompute#gold}) in the
   * table's layout with {@code updated_at} = {@code now} and {@code corrected_at} by the
   * restatement rule ({@link BackfillJob}'s class comment). Pure.
   *
   * @param old the old table's rows when it has the same window and group-by (its keys match {@code
   *     fresh}'s one to one), else null: nothing is compared or carried over
   * @param shared measures comparable between the old and new definitions (may be empty)
   * @param closed true for a closed window ({@code window_end} at or before the watermark)
   */
  static Dataset<Row> withStatusColumns(
      Dataset<Row> fresh,
      Dataset<Row> old,
      MetricSpec metric,
      List<String> shared,
      Column closed,
      Timestamp now) {
    List<Column> out = new ArrayList<>();
    for (String c : fresh.columns()) {
      out.add(col("f.`" + c + "`").as(c));
    }
    out.add(lit(now).as("updated_at"));
    if (old == null) {
      out.add(lit(null).cast("timestamp").as("corrected_at"));
      return fresh.as("f").select(out.toArray(Column[]::new));
    }
    Column on = col("f.window_start").equalTo(col("o.window_start"));
    for (String g : metric.groupBy()) {
      on = on.and(col("f.`" + g + "`").eqNullSafe(col("o.`" + g + "`")));
    }
    Column same = col("o.window_start").isNotNull();
    for (String m : shared) {
      same = same.and(col("f.`" + m + "`").eqNullSafe(col("o.`" + m + "`")));
    }
    Column restated = shared.isEmpty() ? lit(false) : closed.and(same.unary_$bang());
    out.add(when(restated, lit(now)).otherwise(col("o.corrected_at")).as("corrected_at"));
    return fresh
        .as("f")
        .join(
            old.select(
                    "window_start",
                    Stream.concat(
                            Stream.concat(metric.groupBy().stream(), shared.stream()),
                            Stream.of("corrected_at"))
                        .toArray(String[]::new))
                .as("o"),
            on,
            "left_outer")
        .select(out.toArray(Column[]::new));
  }
}

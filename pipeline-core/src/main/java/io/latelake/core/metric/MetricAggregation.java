package io.latelake.core.metric;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.pmod;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.timestamp_micros;
import static org.apache.spark.sql.functions.unix_micros;
import static org.apache.spark.sql.functions.when;
import static org.apache.spark.sql.functions.window;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;

/**
 * Pure functions from events (silver rows, or deduplicated bronze rows) to windowed metric rows.
 */
public final class MetricAggregation {
  private MetricAggregation() {}

  /**
   * The start of the tumbling window of {@code window} holding {@code eventTime}: the same
   * epoch-aligned start as Spark's {@code window()} without a start offset (UTC).
   *
   * @param eventTime a timestamp column
   * @param window the window's length (whole microseconds, positive)
   * @return a timestamp column (UTC, microseconds)
   */
  public static Column windowStart(Column eventTime, java.time.Duration window) {
    long w = window.toNanos() / 1000;
    Column micros = unix_micros(eventTime);
    return timestamp_micros(micros.minus(pmod(micros, lit(w))));
  }

  /**
   * Tumbling event-time windows of {@code metric.window()}, grouped by the metric's columns, with
   * the metric's measures: a plain batch aggregation (recomputation), or a streaming one over an
   * input the caller has watermarked on {@code event_time} (the gold stream: once per listed
   * source, {@code io.latelake.core.streaming.SourceInputs#watermarked}).
   *
   * <p>Output: {@code window_start} timestamp (UTC, inclusive), {@code window_end} timestamp
   * (exclusive), the group-by columns, the measures (count: long; sum: long or double as its column
   * as {@link #EXACT_SUM} for a whole-number column, double for a double one; min/max: the column's
   * type; avg: double, beside its {@code _sum} and long {@code _count}, see {@link Measure}).
   */
  public static Dataset<Row> aggregate(Dataset<Row> in, MetricSpec metric) {
    List<Column> keys = new ArrayList<>();
    keys.add(window(col("event_time"), metric.window().toMillis() + " milliseconds").as("window"));
    for (String g : metric.groupBy()) {
      keys.add(col(g));
    }
    List<Column> aggs = new ArrayList<>();
    for (Measure m : metric.measures()) {
      Column c = m.column().map(n -> col(n)).orElse(lit(1));
      Column agg =
          switch (m.function()) {
            case COUNT -> count(c);
            case SUM -> sum(exact(in, m, c));
            case MIN -> min(c);
            case MAX -> max(c);
            case AVG -> null; // derived from its stored parts below
          };
      if (agg != null) {
        aggs.add(agg.as(m.name()));
      }
    }
    List<Column> out = new ArrayList<>();
    out.add(col("window.start").as("window_start"));
    out.add(col("window.end").as("window_end"));
    for (String g : metric.groupBy()) {
      out.add(col(g));
    }
    for (Measure m : metric.measures()) {
      out.add(finished(m));
    }
    return in.groupBy(keys.toArray(Column[]::new))
        .agg(aggs.get(0), aggs.subList(1, aggs.size()).toArray(Column[]::new))
        .select(out.toArray(Column[]::new));
  }

  /**
   * The type of a sum over a whole-number column: DECIMAL(38,0). A sum of BIGINT values overflows
   * at 2^63−1, where Spark 4's ANSI {@code sum} fails the micro-batch (on every restart: the batch
   * is replayed) and a non-ANSI one wraps to a negative number; DECIMAL(38,0) holds any sum of up
   * to 10^19 such values exactly (case C41), so the stream, the correction, the rollups and the
   * audit all give the same exact number. Double columns keep a double sum.
   */
  public static final DecimalType EXACT_SUM = DataTypes.createDecimalType(38, 0);

  private static Column exact(Dataset<Row> in, Measure m, Column c) {
    if (m.column().isEmpty()) {
      return c;
    }
    DataType t = in.schema().apply(m.column().get()).dataType();
    boolean whole =
        t instanceof LongType
            || t instanceof IntegerType
            || t instanceof ShortType
            || t instanceof ByteType
            || t instanceof DecimalType d && d.scale() == 0;
    return whole ? c.cast(EXACT_SUM) : c;
  }

  /**
   * A measure's output column over aggregated (or rolled-up) rows: the stored column itself, or for
   * an {@link Measure.Function#AVG} measure its sum divided by its non-null count (double; NULL
   * when the count is 0, never a division by zero).
   *
   * @return the column named {@code m.name()}
   */
  public static Column finished(Measure m) {
    if (m.function() != Measure.Function.AVG) {
      return col("`" + m.name() + "`");
    }
    Column n = col("`" + m.avgCountColumn() + "`");
    return when(n.gt(0), col("`" + m.avgSumColumn() + "`").cast("double").divide(n)).as(m.name());
  }
}

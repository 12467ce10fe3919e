package io.latelake.correction.rollup;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.date_from_unix_date;
import static org.apache.spark.sql.functions.date_trunc;
import static org.apache.spark.sql.functions.from_utc_timestamp;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.month;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.to_date;
import static org.apache.spark.sql.functions.unix_micros;
import static org.apache.spark.sql.functions.weekofyear;
import static org.apache.spark.sql.functions.when;
import static org.apache.spark.sql.functions.year;

import io.latelake.core.metric.Measure;
import io.latelake.core.metric.MetricAggregation;
import io.latelake.core.metric.MetricSpec;
import io.latelake.correction.shared.LakeReads;
import io.latelake.correction.shared.Recompute;
import io.latelake.correction.shared.RollupPeriod;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/** Pure functions for the settled daily totals and their weekly, monthly and yearly rollups. */
public final class Rollups {
  private Rollups() {}

  /**
   * Daily totals of the local days of {@code zone} in {@code [from, to)}, recomputed from bronze
   * rows (valid, exact dedup over every copy given, {@link Recompute#events}).
   *
   * <p>The day of an event is the calendar date of its event time in {@code zone}, by the zone's
   * rules at that instant ({@code from_utc_timestamp}): a day has 23 or 25 hours where daylight
   * saving time starts or ends, never a fixed offset. The measures are {@link
   * MetricAggregation#aggregate} over one-day windows of that local wall-clock time, so they are
   * defined once for gold and its rollups. Independent of the session time zone.
   *
   * @param bronze bronze rows read around the range ({@link LakeReads#bronzeAround})
   * @param from start of the first local day (UTC instant), {@code to} end of the last
   * @return {@code event_date} date (local day of the event time), the group-by columns, the
   *     measures (same types as the gold metric)
   */
  public static Dataset<Row> daily(
      Dataset<Row> bronze, MetricSpec metric, ZoneId zone, Instant from, Instant to) {
    MetricSpec perDay =
        new MetricSpec(
            metric.name(),
            Duration.ofDays(1),
            metric.groupBy(),
            metric.measures(),
            metric.latePolicy());
    // event_time as the zone's wall clock read as UTC: one-day windows are then local days
    Dataset<Row> local =
        Recompute.events(bronze, from, to)
            .withColumn("event_time", from_utc_timestamp(col("event_time"), zone.getId()));
    List<Column> out = new ArrayList<>();
    out.add(
        date_from_unix_date(unix_micros(col("window_start")).divide(86_400_000_000L).cast("int"))
            .as("event_date"));
    metric.groupBy().forEach(g -> out.add(col("`" + g + "`")));
    metric.measureNames().forEach(m -> out.add(col("`" + m + "`")));
    return MetricAggregation.aggregate(local, perDay).select(out.toArray(Column[]::new));
  }

  /**
   * @return the columns of {@code gold.daily_<metric>}: {@code event_date}, the group-by columns,
   *     the measures (the order {@link #daily} selects them in)
   */
  static List<String> dailyColumns(MetricSpec metric) {
    List<String> out = new ArrayList<>();
    out.add("event_date");
    out.addAll(metric.groupBy());
    out.addAll(metric.measureNames());
    return out;
  }

  /**
   * @return the instant the local day {@code day} of {@code zone} starts (the first valid time of
   *     the day when midnight falls in a daylight-saving gap)
   */
  public static Instant startOfDay(java.time.LocalDate day, ZoneId zone) {
    return day.atStartOfDay(zone).toInstant();
  }

  /** ISO-week rollup of daily rows ({@link #rollup} with {@link RollupPeriod#WEEKLY}). */
  public static Dataset<Row> weekly(Dataset<Row> daily, MetricSpec metric) {
    return rollup(daily, metric, RollupPeriod.WEEKLY);
  }

  /**
   * The rollup of daily rows over {@code period}: count and sum measures are summed, min and max
   * kept, an average is its summed sum over its summed non-null count (never an average of
   * averages).
   *
   * @return the period's key date ({@link RollupPeriod#keyColumn}), its int labels ({@link
   *     RollupPeriod#labels}), the group-by columns, the measures, {@code days} long (days with
   *     data)
   */
  public static Dataset<Row> rollup(Dataset<Row> daily, MetricSpec metric, RollupPeriod period) {
    List<Column> keys = new ArrayList<>();
    keys.add(key(period, col("event_date")).as(period.keyColumn()));
    metric.groupBy().forEach(g -> keys.add(col("`" + g + "`")));
    List<Column> aggs = new ArrayList<>();
    for (Measure m : metric.measures()) {
      Column c = col("`" + m.name() + "`");
      Column agg =
          switch (m.function()) {
            case COUNT, SUM -> sum(c);
            case MIN -> min(c);
            case MAX -> max(c);
            case AVG -> null; // sum of its _sum over sum of its _count, below
          };
      if (agg != null) {
        aggs.add(agg.as(m.name()));
      }
    }
    aggs.add(count(lit(1)).as("days"));
    List<Column> out = new ArrayList<>();
    out.add(col(period.keyColumn()));
    out.addAll(labelColumns(period, col(period.keyColumn())));
    metric.groupBy().forEach(g -> out.add(col("`" + g + "`")));
    metric.measures().forEach(m -> out.add(MetricAggregation.finished(m)));
    out.add(col("days"));
    return daily
        .groupBy(keys.toArray(Column[]::new))
        .agg(aggs.get(0), aggs.subList(1, aggs.size()).toArray(Column[]::new))
        .select(out.toArray(Column[]::new));
  }

  /**
   * Rows of {@code fresh} that differ from {@code existing} on the key ({@code keyColumn} plus
   * group-by, null-safe), compared on {@code valueColumns}; rows only in {@code existing} come out
   * with {@code _action = 'DELETE'}, the others {@code 'UPSERT'}.
   *
   * @return fresh's columns (key columns filled from whichever side has the row) and {@code
   *     _action}
   */
  public static Dataset<Row> changed(
      Dataset<Row> fresh,
      Dataset<Row> existing,
      MetricSpec metric,
      String keyColumn,
      List<String> valueColumns) {
    Dataset<Row> f = fresh.as("f");
    Dataset<Row> e =
        existing
            .select(
                fresh.columns()[0],
                java.util.Arrays.copyOfRange(fresh.columns(), 1, fresh.columns().length))
            .as("e");
    Column on = col("f." + keyColumn).equalTo(col("e." + keyColumn));
    for (String g : metric.groupBy()) {
      on = on.and(col("f.`" + g + "`").eqNullSafe(col("e.`" + g + "`")));
    }
    Column same = lit(true);
    for (String v : valueColumns) {
      same = same.and(col("f.`" + v + "`").eqNullSafe(col("e.`" + v + "`")));
    }
    Column inF = col("f." + keyColumn).isNotNull();
    List<Column> out = new ArrayList<>();
    for (String c : fresh.columns()) {
      boolean key = c.equals(keyColumn) || metric.groupBy().contains(c);
      out.add(
          key
              ? coalesce(col("f.`" + c + "`"), col("e.`" + c + "`")).as(c)
              : when(inF, col("f.`" + c + "`")).otherwise(col("e.`" + c + "`")).as(c));
    }
    out.add(when(inF, lit("UPSERT")).otherwise(lit("DELETE")).as("_action"));
    return f.join(e, on, "full_outer")
        .filter(same.unary_$bang())
        .select(out.toArray(Column[]::new));
  }

  /**
   * @param eventDate a daily table's {@code event_date}
   * @return the first day of its period, as a date column
   */
  private static Column key(RollupPeriod period, Column eventDate) {
    return to_date(date_trunc(period.unit(), eventDate.cast("timestamp")));
  }

  /**
   * @param start the period's first day
   * @return the label columns of {@link RollupPeriod#labels()}
   */
  private static List<Column> labelColumns(RollupPeriod period, Column start) {
    return switch (period) {
      case WEEKLY ->
          List.of(
              org.apache
                  .spark
                  .sql
                  .functions
                  .expr("extract(YEAROFWEEK FROM " + period.keyColumn() + ")")
                  .cast("int")
                  .as("iso_year"),
              weekofyear(start).as("iso_week"));
      case MONTHLY -> List.of(year(start).as("year"), month(start).as("month"));
      case YEARLY -> List.of(year(start).as("year"));
    };
  }
}

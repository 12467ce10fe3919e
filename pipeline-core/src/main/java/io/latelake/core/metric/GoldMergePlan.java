package io.latelake.core.metric;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.current_timestamp;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;

import io.delta.tables.DeltaMergeBuilder;
import io.delta.tables.DeltaTable;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;

/**
 * The one MERGE plan of a metric's gold tables, used by every writer of them: the gold stream (each
 * micro-batch into {@code gold.<metric>}), the restatement of corrections (into {@code
 * gold.<metric>}) and the weekly cascade (into {@code gold.weekly_<metric>}).
 *
 * <p>Target alias {@code t}, source alias {@code s}. The key is the window column ({@code
 * window_start}, or {@code week_start} for the weekly table) and every group-by column, compared
 * null-safe ({@code <=>}): a NULL group-by value is a key like any other, so it matches its row
 * instead of inserting a second one. A matched row is updated only when a value column differs
 * (null-safe), so writing the same values twice changes nothing. When the source has an {@value
 * #ACTION} column, {@code DELETE} rows delete their match and only {@code UPSERT} rows update or
 * insert. Optionally the condition also bounds the target's window column by the source's smallest
 * and largest window, so Delta skips the files of other windows.
 *
 * <p>Column names come from a validated {@link MetricSpec} (lower-case identifiers) and are
 * back-quoted.
 */
public final class GoldMergePlan {
  /** Optional source column: {@code DELETE} removes the matched row, {@code UPSERT} writes. */
  public static final String ACTION = "_action";

  private final String window;
  private final List<String> groupBy;
  private final List<String> carried;
  private final List<String> values;

  private GoldMergePlan(
      String window, List<String> groupBy, List<String> carried, List<String> values) {
    this.window = window;
    this.groupBy = List.copyOf(groupBy);
    this.carried = List.copyOf(carried);
    this.values = List.copyOf(values);
  }

  /**
   * The plan of {@code gold.<metric>} ({@link GoldLayout}): key {@code window_start} and the
   * group-by columns, {@code window_end} copied along, the measures compared and written.
   */
  public static GoldMergePlan of(MetricSpec metric) {
    return new GoldMergePlan(
        "window_start", metric.groupBy(), List.of("window_end"), metric.measureNames());
  }

  /**
   * The plan of {@code gold.weekly_<metric>}: key {@code week_start} (date) and the group-by
   * columns, {@code iso_year} and {@code iso_week} copied along, the measures and {@code days}
   * compared and written.
   */
  public static GoldMergePlan weekly(MetricSpec metric) {
    return rollup(metric, "week_start", List.of("iso_year", "iso_week"));
  }

  /**
   * The plan of a calendar rollup of {@code gold.daily_<metric>} ({@code gold.weekly_}, {@code
   * monthly_}, {@code yearly_<metric>}): key {@code keyColumn} (a date) and the group-by columns,
   * {@code labels} copied along, the measures and {@code days} compared and written.
   */
  public static GoldMergePlan rollup(MetricSpec metric, String keyColumn, List<String> labels) {
    List<String> values = new ArrayList<>(metric.measureNames());
    values.add("days");
    return new GoldMergePlan(keyColumn, metric.groupBy(), labels, values);
  }

  /**
   * Columns a write sets besides the data: on an update, and on an insert.
   *
   * @param onUpdate set when a matched row changes
   * @param onInsert set on a new row
   */
  public record Stamps(Map<String, Column> onUpdate, Map<String, Column> onInsert) {
    /**
     * The gold stream: {@code updated_at} = the MERGE's time; a new row has {@code corrected_at}
     * null.
     */
    public static Stamps stream() {
      return new Stamps(
          Map.of("updated_at", current_timestamp()),
          Map.of(
              "updated_at",
              current_timestamp(),
              "corrected_at",
              lit(null).cast(DataTypes.TimestampType)));
    }

    /**
     * A restatement: a changed row gets {@code corrected_at} = {@code at} ({@code updated_at} stays
     * the stream's); a new row gets both.
     */
    public static Stamps correction(Timestamp at) {
      return new Stamps(
          Map.of("corrected_at", lit(at)), Map.of("updated_at", lit(at), "corrected_at", lit(at)));
    }

    /** A rollup (weekly cascade): {@code updated_at} = {@code at} on every write. */
    public static Stamps rollup(Timestamp at) {
      return new Stamps(Map.of("updated_at", lit(at)), Map.of("updated_at", lit(at)));
    }
  }

  /**
   * @return {@code t.window = s.window AND t.`g` <=> s.`g` ...}
   */
  public Column keyCondition() {
    Column on = col("t." + window).equalTo(col("s." + window));
    for (String g : groupBy) {
      on = on.and(col("t.`" + g + "`").eqNullSafe(col("s.`" + g + "`")));
    }
    return on;
  }

  /**
   * The key condition, with {@code pruneWindows} also bounding {@code t.<window>} by the smallest
   * and largest window of {@code source} (one Spark job over the source; none when it is empty).
   * Equivalent to the key condition for every source row; it lets Delta skip the target files of
   * other windows.
   */
  public Column condition(Dataset<Row> source, boolean pruneWindows) {
    if (!pruneWindows) {
      return keyCondition();
    }
    return condition(sizeAndWindowRange(source));
  }

  /**
   * One Spark job over {@code source}: its row count, and its smallest and largest window.
   *
   * @return a row (count long, min window, max window; both null when the source is empty)
   */
  public Row sizeAndWindowRange(Dataset<Row> source) {
    return source.agg(count(lit(1)), min(col(window)), max(col(window))).first();
  }

  /**
   * @param sizeAndRange what {@link #sizeAndWindowRange} returned for the source
   * @return the key condition bounded by the source's smallest and largest window (the key
   *     condition alone for an empty source)
   */
  public Column condition(Row sizeAndRange) {
    Column on = keyCondition();
    if (sizeAndRange.isNullAt(1)) {
      return on;
    }
    return col("t." + window)
        .geq(lit(sizeAndRange.get(1)))
        .and(col("t." + window).leq(lit(sizeAndRange.get(2))))
        .and(on);
  }

  /**
   * @return true when a value column differs between target and source (null-safe)
   */
  public Column changed() {
    Column same = lit(true);
    for (String v : values) {
      same = same.and(col("t.`" + v + "`").eqNullSafe(col("s.`" + v + "`")));
    }
    return same.unary_$bang();
  }

  /**
   * @return what an update sets: the copied-along columns, the values, then {@code stamps}
   */
  public Map<String, Column> update(Map<String, Column> stamps) {
    Map<String, Column> set = new LinkedHashMap<>();
    for (String c : carried) {
      set.put("`" + c + "`", col("s.`" + c + "`"));
    }
    for (String v : values) {
      set.put("`" + v + "`", col("s.`" + v + "`"));
    }
    set.putAll(stamps);
    return set;
  }

  /**
   * @return what an insert sets: the key columns, then as {@link #update}
   */
  public Map<String, Column> insert(Map<String, Column> stamps) {
    Map<String, Column> set = new LinkedHashMap<>();
    set.put("`" + window + "`", col("s.`" + window + "`"));
    for (String g : groupBy) {
      set.put("`" + g + "`", col("s.`" + g + "`"));
    }
    set.putAll(update(stamps));
    return set;
  }

  /**
   * MERGEs {@code source} into the Delta table at {@code path}: a matched row whose values changed
   * is updated, an unmatched row inserted; with an {@value #ACTION} column, {@code DELETE} rows
   * delete their match and only {@code UPSERT} rows update or insert. One commit; the caller
   * retries it on a conflict.
   *
   * @param source rows with the table's key, copied-along and value columns
   * @param condition {@link #keyCondition()} or {@link #condition}
   */
  public void execute(Dataset<Row> source, String path, Column condition, Stamps stamps) {
    DeltaMergeBuilder m =
        DeltaTable.forPath(source.sparkSession(), path).as("t").merge(source.as("s"), condition);
    if (Arrays.asList(source.columns()).contains(ACTION)) {
      Column upsert = col("s." + ACTION).equalTo("UPSERT");
      m =
          m.whenMatched(col("s." + ACTION).equalTo("DELETE"))
              .delete()
              .whenMatched(upsert.and(changed()))
              .update(update(stamps.onUpdate()))
              .whenNotMatched(upsert)
              .insert(insert(stamps.onInsert()));
    } else {
      m =
          m.whenMatched(changed())
              .update(update(stamps.onUpdate()))
              .whenNotMatched()
              .insert(insert(stamps.onInsert()));
    }
    m.execute();
  }
}

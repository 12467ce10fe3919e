package io.latelake.core.dedup;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.row_number;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.expressions.Window;

/**
 * The exact deduplication rule of the batch side (DESIGN.md semantics 9), in one place for every
 * job that needs it: {@code correct}, {@code rebuild}, {@code audit} (correction-jobs) and {@code
 * profile} (lateness-profiler).
 *
 * <p><b>Rule.</b> Of all copies of an {@code event_id} in bronze within the id horizon, the copy
 * with the earliest {@code enqueued_time} is the event (its first arrival); every other copy is a
 * redelivery, wherever its event time or arrival lies. Copies with equal enqueued times are ordered
 * by {@code ingested_at}, then the lowest {@code kafka_partition}, the lowest {@code kafka_offset},
 * then {@code source_file} and {@code payload} (nulls last throughout), so exactly one copy wins
 * and the choice does not depend on how Spark partitions the data. Columns of that list that an
 * input lacks (projections, test fixtures) are left out of the order.
 *
 * <p><b>Id horizon.</b> A copy is only seen when it is read: a caller reads bronze around the rows
 * it needs with {@link #eventTimeAround} (event time within the horizon before the first and after
 * the last needed instant), so two copies whose event times lie further apart than the horizon may
 * both count. The horizon is {@code lake.correction.dedup-horizon}.
 */
public final class ExactDedup {
  /** Tie-break columns after {@code enqueued_time}, in order. */
  public static final List<String> TIE_BREAK =
      List.of("ingested_at", "kafka_partition", "kafka_offset", "source_file", "payload");

  private ExactDedup() {}

  /**
   * @param rows rows with at least {@code event_id} and {@code enqueued_time}
   * @param column name of the new int column: 1 for the first arrival of its {@code event_id}, 2,
   *     3, ... for the redeliveries in arrival order
   * @return the rows with the copy number added (a row with a null {@code event_id} is numbered
   *     among the null ids; callers filter those out first)
   */
  public static Dataset<Row> withCopyNumber(Dataset<Row> rows, String column) {
    List<String> present = Arrays.asList(rows.columns());
    List<Column> order = new ArrayList<>();
    order.add(col("enqueued_time").asc_nulls_last());
    for (String c : TIE_BREAK) {
      if (present.contains(c)) {
        order.add(col(c).asc_nulls_last());
      }
    }
    return rows.withColumn(
        column,
        row_number()
            .over(Window.partitionBy(col("event_id")).orderBy(order.toArray(Column[]::new))));
  }

  /**
   * @return the first arrival of every {@code event_id} (same columns out)
   * @see #withCopyNumber
   */
  public static Dataset<Row> firstCopies(Dataset<Row> rows) {
    return withCopyNumber(rows, "_copy").filter(col("_copy").equalTo(1)).drop("_copy");
  }

  /**
   * The read predicate of the id horizon: {@code event_time >= from − horizon AND event_time < to +
   * horizon}. On a Delta table it skips data files by their {@code event_time} statistics.
   *
   * @param from first instant whose events are needed (UTC)
   * @param to end (exclusive) of the needed instants
   * @param horizon the id horizon
   */
  public static Column eventTimeAround(Instant from, Instant to, Duration horizon) {
    return col("event_time")
        .geq(lit(Timestamp.from(from.minus(horizon))))
        .and(col("event_time").lt(lit(Timestamp.from(to.plus(horizon)))));
  }
}

package io.latelake.correction;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.current_timestamp;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.when;

import java.time.Duration;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Where a gold row stands for its readers, from wall-clock time, so it stays true while a stream
 * is idle: {@code restated} once a correction changed it ({@code corrected_at} not null);
 * {@code settled} once now (UTC) ≥ {@code window_end} + the correction horizon
 * ({@code lake.correction.horizon}, at least the watermark delay); else {@code provisional}.
 */
public final class GoldStatus {
  private GoldStatus() {}

  /** @return the status expression for a given "now" */
  public static Column status(Column now, Duration horizon) {
    Column settledAt = col("window_end").plus(expr("INTERVAL '" + horizon.toMillis() / 1000.0
        + "' SECOND"));
    return when(col("corrected_at").isNotNull(), lit("restated"))
        .when(now.geq(settledAt), lit("settled"))
        .otherwise(lit("provisional"));
  }

  /** @return gold rows with a {@code status} string column computed at read time */
  public static Dataset<Row> withStatus(Dataset<Row> gold, Duration horizon) {
    return gold.withColumn("status", status(current_timestamp(), horizon));
  }
}

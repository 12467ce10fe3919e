package io.latelake.core.metric;

import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Layout of a {@code gold.<metric>} table, shared by the gold stream and the correction jobs so
 * both write the same columns and MERGE on the same key.
 *
 * <p>Columns: {@code window_start} timestamp (UTC, inclusive), {@code window_end} timestamp
 * (exclusive), the group-by columns, the measures (see {@link MetricAggregation#aggregate}), {@code
 * updated_at} timestamp (last stream write) and {@code corrected_at} timestamp (null until a
 * correction changed the row). Key: {@code window_start} and every group-by column, null-safe (the
 * MERGE of every writer: {@link GoldMergePlan}).
 */
public final class GoldLayout {
  private GoldLayout() {}

  /**
   * @param aggregate the schema of {@link MetricAggregation#aggregate} output
   * @return the gold table schema: the aggregate's columns (nullable), then {@code updated_at} and
   *     {@code corrected_at}
   */
  public static StructType tableSchema(StructType aggregate) {
    StructType s = new StructType();
    for (StructField f : aggregate.fields()) {
      s = s.add(f.name(), f.dataType(), true);
    }
    return s.add("updated_at", DataTypes.TimestampType, true)
        .add("corrected_at", DataTypes.TimestampType, true);
  }
}

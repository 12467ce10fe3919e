package io.latelake.core.event;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/** Types a configured payload field can be parsed into. */
public enum FieldType {
  STRING(DataTypes.StringType),
  LONG(DataTypes.LongType),
  DOUBLE(DataTypes.DoubleType),
  BOOLEAN(DataTypes.BooleanType),
  TIMESTAMP(DataTypes.TimestampType);

  private final DataType sparkType;

  FieldType(DataType sparkType) {
    this.sparkType = sparkType;
  }

  public DataType sparkType() {
    return sparkType;
  }

  /**
   * @return the type named {@code name} (case-insensitive), if any
   */
  public static Optional<FieldType> parse(String name) {
    return Arrays.stream(values()).filter(t -> t.name().equalsIgnoreCase(name.trim())).findFirst();
  }

  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }
}

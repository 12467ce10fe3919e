package io.latelake.core.event;

import static org.apache.spark.sql.functions.abs;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.not;
import static org.apache.spark.sql.functions.timestamp_millis;
import static org.apache.spark.sql.functions.timestamp_seconds;
import static org.apache.spark.sql.functions.trim;
import static org.apache.spark.sql.functions.try_to_timestamp;
import static org.apache.spark.sql.functions.when;

import java.util.Arrays;
import java.util.Optional;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.types.DataTypes;

/**
 * How an event time is written in the payload. All results are UTC timestamps; a value that
 * cannot be read gives {@code null} (never an exception, never a wrong year).
 *
 * <ul>
 *   <li>{@code iso-8601}: text such as {@code 2024-05-14T12:00:00Z} or with an offset.</li>
 *   <li>{@code epoch-seconds}: a number of seconds since 1970-01-01T00:00:00Z (fractions kept);
 *       accepted below 1e11 in absolute value.</li>
 *   <li>{@code epoch-millis}: a whole number of milliseconds; accepted below 1e14.</li>
 *   <li>{@code auto}: ISO-8601 text, or a number: milliseconds when its absolute value is at
 *       least 1e11 (so 1715680860000 is 2024-05-14T10:01:00Z, not year 56337), else seconds.</li>
 * </ul>
 */
public enum TimeFormat {
  ISO_8601("iso-8601"),
  EPOCH_SECONDS("epoch-seconds"),
  EPOCH_MILLIS("epoch-millis"),
  AUTO("auto");

  private static final String NUMBER = "^-?[0-9]+(\\.[0-9]+)?$";
  private static final double SECONDS_LIMIT = 1e11;
  private static final double MILLIS_LIMIT = 1e14;

  private final String configName;

  TimeFormat(String configName) {
    this.configName = configName;
  }

  public String configName() {
    return configName;
  }

  public static Optional<TimeFormat> parse(String name) {
    return Arrays.stream(values()).filter(f -> f.configName.equalsIgnoreCase(name.trim())).findFirst();
  }

  /**
   * @param raw the payload value as text (a JSON number arrives as its digits)
   * @return a timestamp column, null where {@code raw} is null or cannot be read
   */
  public Column parse(Column raw) {
    Column text = trim(raw);
    Column isNumber = text.rlike(NUMBER);
    Column number = text.try_cast(DataTypes.DoubleType);
    Column seconds = when(isNumber.and(abs(number).lt(lit(SECONDS_LIMIT))),
        timestamp_seconds(text.try_cast(DataTypes.createDecimalType(20, 6))));
    Column millis = when(text.rlike("^-?[0-9]+$").and(abs(number).lt(lit(MILLIS_LIMIT))),
        timestamp_millis(text.try_cast(DataTypes.LongType)));
    Column iso = when(not(isNumber), try_to_timestamp(text));
    return switch (this) {
      case ISO_8601 -> iso;
      case EPOCH_SECONDS -> seconds;
      case EPOCH_MILLIS -> millis;
      case AUTO -> when(not(isNumber), try_to_timestamp(text))
          .when(abs(number).geq(lit(SECONDS_LIMIT)), millis)
          .otherwise(seconds);
    };
  }
}

package io.latelake.bronze.parse;

import com.fasterxml.jackson.core.JsonToken;
import io.latelake.core.event.FieldType;
import io.latelake.core.event.TimeFormat;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.regex.Pattern;
import org.apache.spark.sql.catalyst.util.DateTimeUtils$;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Typed reads of one JSON value of a record ({@link EventParser}): times in a {@link TimeFormat} as
 * UTC microseconds, and the configured fields' types. Each returns null when the value is not of
 * the type, never a guess.
 */
final class EventValues {
  private EventValues() {}

  /** A JSON number, also when it arrives inside a string. */
  static final Pattern NUMBER = Pattern.compile("-?[0-9]+(\\.[0-9]+)?([eE][+-]?[0-9]+)?");

  private static final BigDecimal SECONDS_LIMIT = new BigDecimal("1e11");
  private static final BigDecimal MILLIS_LIMIT = new BigDecimal("1e14");
  private static final BigDecimal MICROS_LIMIT = new BigDecimal("1e17");
  private static final BigDecimal NANOS_LIMIT = new BigDecimal("1e20");
  private static final BigDecimal THOUSAND = BigDecimal.valueOf(1000);
  private static final BigDecimal MICROS_PER_SECOND = BigDecimal.valueOf(1_000_000);
  private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);
  private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

  /**
   * @return UTC microseconds, or null when the value cannot be read in this format
   */
  static Long readTime(JsonValue v, TimeFormat format) {
    String text;
    if (v.isNumber()) {
      text = v.text();
    } else if (v.token() == JsonToken.VALUE_STRING) {
      text = v.text().trim();
    } else {
      return null;
    }
    if (NUMBER.matcher(text).matches()) {
      BigDecimal n;
      try {
        n = new BigDecimal(text);
      } catch (NumberFormatException | ArithmeticException e) {
        return null;
      }
      return switch (format) {
        case ISO_8601 -> null;
        case EPOCH_SECONDS -> seconds(n);
        case EPOCH_MILLIS -> millis(n);
        case EPOCH_MICROS -> micros(n);
        case EPOCH_NANOS -> nanos(n);
        case AUTO -> {
          BigDecimal size = n.abs();
          if (size.compareTo(SECONDS_LIMIT) < 0) {
            yield seconds(n);
          } else if (size.compareTo(MILLIS_LIMIT) < 0) {
            yield millis(n);
          } else if (size.compareTo(MICROS_LIMIT) < 0) {
            yield micros(n);
          }
          yield nanos(n);
        }
      };
    }
    if (format != TimeFormat.ISO_8601 && format != TimeFormat.AUTO) {
      return null;
    }
    // Spark's own timestamp reading (what CAST(text AS TIMESTAMP) accepts), in UTC.
    scala.Option<Object> micros =
        DateTimeUtils$.MODULE$.stringToTimestamp(UTF8String.fromString(text), ZoneOffset.UTC);
    return micros.isDefined() ? (Long) micros.get() : null;
  }

  // Digits finer than a microsecond are cut off toward the past (FLOOR), as Spark does when it
  // reads a timestamp with more fraction digits than it keeps; never rounded, never via a double.

  private static Long seconds(BigDecimal n) {
    if (n.abs().compareTo(SECONDS_LIMIT) >= 0) {
      return null;
    }
    return n.multiply(MICROS_PER_SECOND).setScale(0, RoundingMode.FLOOR).longValueExact();
  }

  private static Long millis(BigDecimal n) {
    if (n.abs().compareTo(MILLIS_LIMIT) >= 0 || !whole(n)) {
      return null;
    }
    return n.longValue() * 1000L;
  }

  private static Long micros(BigDecimal n) {
    if (n.abs().compareTo(MICROS_LIMIT) >= 0 || !whole(n)) {
      return null;
    }
    return n.longValueExact();
  }

  private static Long nanos(BigDecimal n) {
    if (n.abs().compareTo(NANOS_LIMIT) >= 0 || !whole(n)) {
      return null;
    }
    return n.divide(THOUSAND, 0, RoundingMode.FLOOR).longValueExact();
  }

  private static boolean whole(BigDecimal n) {
    return n.signum() == 0 || n.stripTrailingZeros().scale() <= 0;
  }

  /**
   * @return the value as a long when it is a whole number within range, else null
   */
  static Long wholeNumber(String text) {
    try {
      BigDecimal n = new BigDecimal(text.trim());
      if (n.signum() != 0 && n.stripTrailingZeros().scale() > 0
          || n.compareTo(LONG_MIN) < 0
          || n.compareTo(LONG_MAX) > 0) {
        return null;
      }
      return n.longValueExact();
    } catch (NumberFormatException | ArithmeticException e) {
      return null;
    }
  }

  /**
   * @return the typed value, or null when the value is not of the type
   */
  static Object readField(JsonValue v, FieldType type) {
    boolean numeric =
        v.isNumber()
            || v.token() == JsonToken.VALUE_STRING && NUMBER.matcher(v.text().trim()).matches();
    return switch (type) {
      case STRING -> v.token() == JsonToken.VALUE_STRING ? v.text() : null;
      case LONG -> numeric ? wholeNumber(v.text()) : null;
      case DOUBLE -> {
        if (!numeric) {
          yield null;
        }
        double d = Double.parseDouble(v.text().trim());
        yield Double.isFinite(d) ? d : null;
      }
      case BOOLEAN ->
          switch (v.token()) {
            case VALUE_TRUE -> Boolean.TRUE;
            case VALUE_FALSE -> Boolean.FALSE;
            case VALUE_STRING ->
                switch (v.text().trim().toLowerCase(Locale.ROOT)) {
                  case "true" -> Boolean.TRUE;
                  case "false" -> Boolean.FALSE;
                  default -> null;
                };
            default -> null;
          };
      case TIMESTAMP -> readTime(v, TimeFormat.AUTO);
    };
  }

  static String describe(TimeFormat f) {
    return switch (f) {
      case ISO_8601 -> "an ISO-8601 timestamp";
      case EPOCH_SECONDS -> "a number of epoch seconds below 1e11";
      case EPOCH_MILLIS -> "a whole number of epoch milliseconds below 1e14";
      case EPOCH_MICROS -> "a whole number of epoch microseconds below 1e17";
      case EPOCH_NANOS -> "a whole number of epoch nanoseconds below 1e20";
      case AUTO ->
          "an ISO-8601 timestamp or a number of epoch seconds (below 1e11), milliseconds "
              + "(from 1e11), microseconds (from 1e14) or nanoseconds (from 1e17, below 1e20)";
    };
  }
}

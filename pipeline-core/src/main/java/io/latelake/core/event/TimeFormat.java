package io.latelake.core.event;

import java.util.Arrays;
import java.util.Optional;

/**
 * How an event time is written in the payload. All results are UTC timestamps; a value that cannot
 * be read is INVALID_EVENT_TIME (never an exception, never a wrong year). Reading is done by
 * bronze-ingest's {@code EventParser}.
 *
 * <ul>
 *   <li>{@code iso-8601}: text such as {@code 2024-05-14T12:00:00Z} or with an offset (what Spark's
 *       {@code CAST(text AS TIMESTAMP)} accepts, read in UTC).
 *   <li>{@code epoch-seconds}: a number of seconds since 1970-01-01T00:00:00Z (fractions kept to
 *       the microsecond), a JSON number or a string holding one, exponent form included ({@code
 *       1.796011199228E9}); accepted below 1e11 in absolute value.
 *   <li>{@code epoch-millis}: a whole number of milliseconds; accepted below 1e14.
 *   <li>{@code epoch-micros}: a whole number of microseconds; accepted below 1e17.
 *   <li>{@code epoch-nanos}: a whole number of nanoseconds; accepted below 1e20; the digits below
 *       the microsecond are cut off (Spark keeps microseconds).
 *   <li>{@code auto}: ISO-8601 text, or a number by its absolute value: seconds below 1e11,
 *       milliseconds from 1e11, microseconds from 1e14, nanoseconds from 1e17 (so 1715680860000 is
 *       2024-05-14T10:01:00Z, not year 56337); each unit reaches about the year 5138.
 * </ul>
 *
 * <p>Numbers are read exactly (never through a double); finer digits than a microsecond are cut off
 * toward the past, not rounded, so 12:04:59.999999999 stays in the window that ends at 12:05.
 */
public enum TimeFormat {
  ISO_8601("iso-8601"),
  EPOCH_SECONDS("epoch-seconds"),
  EPOCH_MILLIS("epoch-millis"),
  EPOCH_MICROS("epoch-micros"),
  EPOCH_NANOS("epoch-nanos"),
  AUTO("auto");

  private final String configName;

  TimeFormat(String configName) {
    this.configName = configName;
  }

  public String configName() {
    return configName;
  }

  public static Optional<TimeFormat> parse(String name) {
    return Arrays.stream(values())
        .filter(f -> f.configName.equalsIgnoreCase(name.trim()))
        .findFirst();
  }
}

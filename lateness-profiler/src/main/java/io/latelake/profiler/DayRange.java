package io.latelake.profiler;

import io.latelake.core.config.LakeConfigException;
import java.time.Clock;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;

/**
 * An inclusive range of UTC arrival days (an arrival day is the UTC date of {@code enqueued_time}).
 * Validated before any Spark work; its dates reach SQL only as {@link LocalDate#toString()} of a
 * parsed date, never as user text.
 *
 * @param from first day, inclusive
 * @param to last day, inclusive, not before {@code from}
 */
public record DayRange(LocalDate from, LocalDate to) {
  /** Upper bound of days in one range, so a typo such as 1014-01-01 is caught. */
  public static final int MAX_DAYS = 36_600;

  public DayRange {
    if (to.isBefore(from)) {
      throw new LakeConfigException("Invalid value '" + from + ".." + to + "' for option '--days': "
          + "the last day is before the first");
    }
    if (ChronoUnit.DAYS.between(from, to) >= MAX_DAYS) {
      throw new LakeConfigException("Invalid value '" + from + ".." + to + "' for option '--days': "
          + "more than " + MAX_DAYS + " days");
    }
  }

  /**
   * Parses {@code YYYY-MM-DD} or {@code YYYY-MM-DD..YYYY-MM-DD} (ISO dates, UTC days).
   *
   * @param text the option value
   * @return the range
   * @throws LakeConfigException (exit 2) naming {@code --days} and the value when it is not a day
   *     or a range of days, or the range is reversed
   */
  public static DayRange parse(String text) {
    String t = text == null ? "" : text.trim();
    int dots = t.indexOf("..");
    String a = dots < 0 ? t : t.substring(0, dots).trim();
    String b = dots < 0 ? t : t.substring(dots + 2).trim();
    try {
      return new DayRange(LocalDate.parse(a), LocalDate.parse(b));
    } catch (DateTimeParseException e) {
      throw new LakeConfigException("Invalid value '" + text + "' for option '--days': expected "
          + "a UTC day YYYY-MM-DD or a range YYYY-MM-DD..YYYY-MM-DD");
    }
  }

  /**
   * @param days number of days, at least 1
   * @param clock the clock giving today (UTC)
   * @return the last {@code days} UTC days, today included
   */
  public static DayRange lastDays(int days, Clock clock) {
    LocalDate today = LocalDate.now(clock.withZone(ZoneOffset.UTC));
    return new DayRange(today.minusDays(days - 1L), today);
  }

  /** @return number of days in the range */
  public long days() {
    return ChronoUnit.DAYS.between(from, to) + 1;
  }

  /** @return a SQL predicate {@code column BETWEEN DATE'from' AND DATE'to'} on validated dates */
  String predicate(String column) {
    return column + " >= DATE'" + from + "' AND " + column + " <= DATE'" + to + "'";
  }

  @Override
  public String toString() {
    return from + ".." + to;
  }
}

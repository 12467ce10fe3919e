package io.latelake.core.time;

import io.latelake.core.config.LakeConfigException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.regex.Pattern;

/**
 * The one parser of every date, day-range and instant option ({@code --from}, {@code --to}, {@code
 * --lookback-days}, {@code --since}, {@code --timestamp}, {@code --days}), run before any Spark
 * work. Every day must lie in {@link DayRange#FIRST_DAY}..{@link DayRange#LAST_DAY}; every error is
 * a {@link LakeConfigException} (exit 2), worded "Invalid value '&lt;text&gt;' for option
 * '&lt;option&gt;': &lt;why&gt;" for a bad value and "Invalid date range|options: ..." for options
 * that do not go together. Only parsed values ({@link LocalDate}, {@link Instant}, {@link
 * DayRange}) ever reach a predicate; raw argument text never does.
 */
public final class DateArgs {
  private static final Pattern DATE = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");

  /**
   * A timestamp as Spark SQL prints one in a UTC session ({@code DESCRIBE HISTORY}, a query's
   * timestamp column): {@code yyyy-MM-dd HH:mm[:ss[.fraction]]}.
   */
  private static final Pattern SQL_TIMESTAMP =
      Pattern.compile("\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?");

  private DateArgs() {}

  /**
   * @param option the option name, for the message (e.g. {@code --from})
   * @param text the argument
   * @return the date
   * @throws LakeConfigException unless the text is exactly an ISO date {@code yyyy-MM-dd} between
   *     1900-01-01 and 9999-12-31
   */
  public static LocalDate date(String option, String text) {
    if (text == null || !DATE.matcher(text).matches()) {
      throw LakeConfigException.invalid(option, text, "expected a date yyyy-MM-dd (UTC)");
    }
    LocalDate d;
    try {
      d = LocalDate.parse(text);
    } catch (DateTimeParseException e) {
      throw LakeConfigException.invalid(option, text, "is not a calendar date");
    }
    checkBounds(option, text, d, d);
    return d;
  }

  /**
   * @param option the option name
   * @param text an ISO date ({@code 2024-05-14}, meaning 00:00 UTC), an ISO instant ({@code
   *     2024-05-14T10:00:00Z}), or a timestamp as Spark SQL prints it in latelake's UTC sessions
   *     ({@code 2024-05-14 10:00:00.123}, e.g. copied from {@code DESCRIBE HISTORY}), read as UTC
   * @return the instant (UTC)
   * @throws LakeConfigException when the text is none of these
   */
  public static Instant instant(String option, String text) {
    if (text != null && DATE.matcher(text).matches()) {
      return date(option, text).atStartOfDay(ZoneOffset.UTC).toInstant();
    }
    Instant i;
    try {
      i =
          text != null && SQL_TIMESTAMP.matcher(text).matches()
              ? java.time.LocalDateTime.parse(text.replace(' ', 'T')).toInstant(ZoneOffset.UTC)
              : Instant.parse(text == null ? "" : text);
    } catch (DateTimeParseException e) {
      throw LakeConfigException.invalid(
          option,
          text,
          "expected a date yyyy-MM-dd or an instant such as 2024-05-14T10:00:00Z or"
              + " 2024-05-14 10:00:00 (UTC)");
    }
    LocalDate d = LocalDate.ofInstant(i, ZoneOffset.UTC);
    checkBounds(option, text, d, d);
    return i;
  }

  /**
   * {@link #instant} for a point in the past, such as {@code correct --since} (rows ingested since
   * then: none can have been ingested after {@code now}).
   *
   * @param now the current time (UTC)
   * @throws LakeConfigException when the text is neither a date nor an instant, or is after {@code
   *     now}
   */
  public static Instant pastInstant(String option, String text, Instant now) {
    Instant i = instant(option, text);
    if (i.isAfter(now)) {
      throw LakeConfigException.invalid(
          option, text, "is in the future (now: " + now.truncatedTo(ChronoUnit.SECONDS) + ")");
    }
    return i;
  }

  /**
   * The range of a command: {@code --from}/{@code --to} when given (both or neither), else the
   * {@code lookbackDays} days ending on {@code today}.
   *
   * @throws LakeConfigException on a bad date, only one of the two, or from after to
   */
  public static DayRange range(
      String from, String to, Integer lookbackDays, int defaultLookback, LocalDate today) {
    if (from == null && to == null) {
      int n = lookbackDays == null ? defaultLookback : lookbackDays;
      if (n < 1 || n > 3660) {
        throw LakeConfigException.invalid("--lookback-days", n, "must be between 1 and 3660");
      }
      return DayRange.lastDays(n, today);
    }
    if (from == null || to == null) {
      throw new LakeConfigException(
          "Invalid date range: give both --from and --to (got --from '"
              + from
              + "', --to '"
              + to
              + "'), or neither to use the lookback");
    }
    if (lookbackDays != null) {
      throw new LakeConfigException(
          "Invalid options: --lookback-days cannot be combined with " + "--from/--to");
    }
    LocalDate f = date("--from", from);
    LocalDate t = date("--to", to);
    if (f.isAfter(t)) {
      throw LakeConfigException.invalid("--to", to, "is before --from '" + from + "'");
    }
    return new DayRange(f, t);
  }

  /**
   * Parses a day or a range of days, {@code YYYY-MM-DD} or {@code YYYY-MM-DD..YYYY-MM-DD} (ISO
   * dates; spaces around the parts are ignored): the {@code --days} of {@code profile} and {@code
   * report}.
   *
   * @param option the option name, for messages (e.g. {@code --days})
   * @param text the option value
   * @return the range
   * @throws LakeConfigException when it is not a day or a range of days, the range is reversed or
   *     longer than {@value DayRange#MAX_DAYS} days, or a day is outside the bounds
   */
  public static DayRange days(String option, String text) {
    String t = text == null ? "" : text.trim();
    int dots = t.indexOf("..");
    String a = dots < 0 ? t : t.substring(0, dots).trim();
    String b = dots < 0 ? t : t.substring(dots + 2).trim();
    if (!DATE.matcher(a).matches() || !DATE.matcher(b).matches()) {
      throw LakeConfigException.invalid(
          option, text, "expected a UTC day YYYY-MM-DD or a range YYYY-MM-DD..YYYY-MM-DD");
    }
    LocalDate from;
    LocalDate to;
    try {
      from = LocalDate.parse(a);
      to = LocalDate.parse(b);
    } catch (DateTimeParseException e) {
      throw LakeConfigException.invalid(option, text, "is not a calendar date");
    }
    if (to.isBefore(from)) {
      throw LakeConfigException.invalid(
          option, from + ".." + to, "the last day is before the first");
    }
    if (ChronoUnit.DAYS.between(from, to) >= DayRange.MAX_DAYS) {
      throw LakeConfigException.invalid(
          option, from + ".." + to, "more than " + DayRange.MAX_DAYS + " days");
    }
    checkBounds(option, text, from, to);
    return new DayRange(from, to);
  }

  /**
   * {@link #days} for arrival days, which have begun: the {@code --days} of {@code profile} and
   * {@code report}.
   *
   * @param today the current UTC day
   * @throws LakeConfigException as {@link #days} does, and when the range's first day is after
   *     {@code today}
   */
  public static DayRange daysBegun(String option, String text, LocalDate today) {
    DayRange range = days(option, text);
    if (range.from().isAfter(today)) {
      throw LakeConfigException.invalid(
          option, text, "the first day is in the future (today: " + today + " UTC)");
    }
    return range;
  }

  /** The one bounds rule of every day: {@link DayRange#FIRST_DAY}..{@link DayRange#LAST_DAY}. */
  private static void checkBounds(String option, String text, LocalDate from, LocalDate to) {
    if (from.isBefore(DayRange.FIRST_DAY) || to.isAfter(DayRange.LAST_DAY)) {
      throw LakeConfigException.invalid(
          option,
          text,
          "must lie between " + DayRange.FIRST_DAY + " and " + DayRange.LAST_DAY + " (UTC)");
    }
  }
}

package io.latelake.correction;

import io.latelake.core.config.LakeConfigException;
import io.latelake.core.time.DayRange;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.regex.Pattern;

/**
 * Parses and checks date and time arguments before any Spark work. Only parsed values ({@link
 * LocalDate}, {@link Instant}) ever reach a predicate; raw argument text never does.
 */
public final class DateArgs {
  private static final Pattern DATE = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");

  /** The days accepted: the same bounds as every day option ({@link DayRange#FIRST_DAY}). */
  private static final LocalDate MAX = DayRange.LAST_DAY;

  private static final LocalDate MIN = DayRange.FIRST_DAY;

  private DateArgs() {}

  /**
   * @param option the option name, for the message (e.g. {@code --from})
   * @param text the argument
   * @return the date
   * @throws LakeConfigException "Invalid value '&lt;text&gt;' for key '&lt;option&gt;': ..." unless
   *     the text is exactly an ISO date {@code yyyy-MM-dd} between 1900 and 9999
   */
  public static LocalDate date(String option, String text) {
    if (text == null || !DATE.matcher(text).matches()) {
      throw LakeConfigException.invalid(option, text, "expected a date yyyy-MM-dd (UTC)");
    }
    try {
      LocalDate d = LocalDate.parse(text);
      if (d.isBefore(MIN) || d.isAfter(MAX)) {
        throw LakeConfigException.invalid(option, text, "must be between " + MIN + " and " + MAX);
      }
      return d;
    } catch (DateTimeParseException e) {
      throw LakeConfigException.invalid(option, text, "is not a calendar date");
    }
  }

  /**
   * @param option the option name
   * @param text an ISO date ({@code 2024-05-14}, meaning 00:00 UTC) or an ISO instant ({@code
   *     2024-05-14T10:00:00Z})
   * @return the instant (UTC)
   * @throws LakeConfigException when the text is neither
   */
  public static Instant instant(String option, String text) {
    if (text != null && DATE.matcher(text).matches()) {
      return date(option, text).atStartOfDay(ZoneOffset.UTC).toInstant();
    }
    try {
      Instant i = Instant.parse(text == null ? "" : text);
      LocalDate d = LocalDate.ofInstant(i, ZoneOffset.UTC);
      if (d.isBefore(MIN) || d.isAfter(MAX)) {
        throw LakeConfigException.invalid(option, text, "must be between " + MIN + " and " + MAX);
      }
      return i;
    } catch (DateTimeParseException e) {
      throw LakeConfigException.invalid(
          option,
          text,
          "expected a date yyyy-MM-dd or an instant such as 2024-05-14T10:00:00Z (UTC)");
    }
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
}

package io.latelake.core.time;

import io.latelake.core.config.LakeConfigException;
import java.time.Clock;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An inclusive range of days: the event dates of {@code rebuild}, {@code cascade} and {@code audit}
 * (UTC, or the local dates of {@code lake.correction.rollup-time-zone}), the arrival days of {@code
 * profile} and {@code report} (UTC dates of {@code enqueued_time}). Validated before any Spark
 * work; its dates reach SQL only as {@link LocalDate#toString()} of a parsed date, never as user
 * text.
 *
 * @param from first day, inclusive
 * @param to last day, inclusive, not before {@code from}
 */
public record DayRange(LocalDate from, LocalDate to) {
  /** Upper bound of days in one parsed range, so a typo such as 1014-01-01 is caught. */
  public static final int MAX_DAYS = 36_600;

  /**
   * The first day any option accepts (also {@code --from}, {@code --to}, {@code --since} and {@code
   * --timestamp} of the correction commands): keeps predicates and Spark dates in range.
   */
  public static final LocalDate FIRST_DAY = LocalDate.of(1900, 1, 1);

  /** The last day any option accepts. */
  public static final LocalDate LAST_DAY = LocalDate.of(9999, 12, 31);

  private static final Pattern COLUMN = Pattern.compile("[a-z][a-z0-9_]*");

  /**
   * @throws NullPointerException when a day is null
   * @throws IllegalArgumentException when {@code to} is before {@code from} (user input is checked
   *     with its option's name before a range is built: {@link #parse})
   */
  public DayRange {
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    if (to.isBefore(from)) {
      throw new IllegalArgumentException(
          "Invalid day range " + from + ".." + to + ": the last day is before the first");
    }
  }

  /**
   * Parses the {@code --days} option of {@code profile} and {@code report}: see {@link
   * #parse(String, String)}.
   */
  public static DayRange parse(String text) {
    return parse("--days", text);
  }

  /**
   * Parses {@code YYYY-MM-DD} or {@code YYYY-MM-DD..YYYY-MM-DD} (ISO dates).
   *
   * @param option the option name, for messages (e.g. {@code --days})
   * @param text the option value
   * @return the range
   * @throws LakeConfigException (exit 2) naming the option and the value when it is not a day or a
   *     range of days, the range is reversed or longer than {@value #MAX_DAYS} days, or a day is
   *     outside {@link #FIRST_DAY}..{@link #LAST_DAY}
   */
  public static DayRange parse(String option, String text) {
    String t = text == null ? "" : text.trim();
    int dots = t.indexOf("..");
    String a = dots < 0 ? t : t.substring(0, dots).trim();
    String b = dots < 0 ? t : t.substring(dots + 2).trim();
    LocalDate from;
    LocalDate to;
    try {
      from = LocalDate.parse(a);
      to = LocalDate.parse(b);
    } catch (DateTimeParseException e) {
      throw new LakeConfigException(
          "Invalid value '"
              + text
              + "' for option '"
              + option
              + "': expected a UTC day YYYY-MM-DD or a range YYYY-MM-DD..YYYY-MM-DD");
    }
    if (to.isBefore(from)) {
      throw new LakeConfigException(
          "Invalid value '"
              + from
              + ".."
              + to
              + "' for option '"
              + option
              + "': the last day is before the first");
    }
    if (ChronoUnit.DAYS.between(from, to) >= MAX_DAYS) {
      throw new LakeConfigException(
          "Invalid value '"
              + from
              + ".."
              + to
              + "' for option '"
              + option
              + "': more than "
              + MAX_DAYS
              + " days");
    }
    if (from.isBefore(FIRST_DAY) || to.isAfter(LAST_DAY)) {
      throw new LakeConfigException(
          "Invalid value '"
              + text
              + "' for option '"
              + option
              + "': days must be between "
              + FIRST_DAY
              + " and "
              + LAST_DAY);
    }
    return new DayRange(from, to);
  }

  /**
   * {@link #parse(String)} for days that have begun: the {@code --days} of {@code profile} and
   * {@code report} are arrival days, and none has arrived after {@code today}.
   *
   * @param today the current UTC day
   * @throws LakeConfigException (exit 2) as {@link #parse(String, String)} does, and when the
   *     range's first day is after {@code today}
   */
  public static DayRange parseBegun(String text, LocalDate today) {
    DayRange range = parse("--days", text);
    if (range.from().isAfter(today)) {
      throw new LakeConfigException(
          "Invalid value '"
              + text
              + "' for option '--days': the first day is in the future (today: "
              + today
              + " UTC)");
    }
    return range;
  }

  /**
   * @param days number of days, at least 1
   * @param today the last day
   * @return the {@code days} days ending on {@code today}, today included
   * @throws IllegalArgumentException when {@code days} is below 1
   */
  public static DayRange lastDays(int days, LocalDate today) {
    if (days < 1) {
      throw new IllegalArgumentException("Invalid day count " + days + ": at least 1");
    }
    return new DayRange(today.minusDays(days - 1L), today);
  }

  /**
   * @param days number of days, at least 1
   * @param clock the clock giving today (UTC)
   * @return the last {@code days} UTC days, today included
   */
  public static DayRange lastDays(int days, Clock clock) {
    return lastDays(days, LocalDate.now(clock.withZone(ZoneOffset.UTC)));
  }

  /**
   * @return number of days in the range
   */
  public long days() {
    return ChronoUnit.DAYS.between(from, to) + 1;
  }

  /**
   * @param column a column name ({@code [a-z][a-z0-9_]*})
   * @return {@code column >= DATE'yyyy-MM-dd' AND column <= DATE'yyyy-MM-dd'}, built from the
   *     parsed dates' ISO form only (for partition filters and Delta {@code replaceWhere})
   * @throws IllegalArgumentException on any other column name
   */
  public String predicate(String column) {
    if (column == null || !COLUMN.matcher(column).matches()) {
      throw new IllegalArgumentException("Invalid column name '" + column + "'");
    }
    return column + " >= DATE'" + from + "' AND " + column + " <= DATE'" + to + "'";
  }

  /**
   * @return {@code from..to}, e.g. {@code 2024-05-14..2024-05-16}
   */
  @Override
  public String toString() {
    return from + ".." + to;
  }
}

package io.latelake.core.time;

import io.latelake.core.config.LakeConfigException;
import java.time.Clock;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An inclusive range of days: the event dates of {@code rebuild}, {@code cascade} and {@code audit}
 * (UTC, or the local dates of {@code lake.correction.rollup-time-zone}), the arrival days of {@code
 * profile} and {@code report} (UTC dates of {@code enqueued_time}). Validated before any Spark
 * work; its dates reach SQL only as {@link LocalDate#toString()} of a parsed date, never as user
 * text ({@link DateArgs} parses every day option).
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
   *     with its option's name before a range is built: {@link DateArgs})
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
   * Parses the {@code --days} option: {@link DateArgs#days} (the one parser of day options).
   *
   * @throws LakeConfigException (exit 2) naming {@code --days} and the value
   */
  public static DayRange parse(String text) {
    return DateArgs.days("--days", text);
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

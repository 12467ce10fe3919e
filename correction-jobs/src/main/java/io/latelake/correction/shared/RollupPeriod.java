package io.latelake.correction.shared;

import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.temporal.TemporalAdjusters;
import java.util.List;

/**
 * A calendar rollup of the daily totals: ISO weeks, calendar months or calendar years of the daily
 * table's local dates. Months and years are not fixed lengths, so they cannot be Spark {@code
 * window()}s (which are fixed intervals aligned to 1970-01-01 UTC): each is the sum of its whole
 * local days (case C39: February 2024 has 29 days).
 */
public enum RollupPeriod {
  /**
   * {@code gold.weekly_<metric>}: {@code week_start} (Monday), {@code iso_year}, {@code iso_week}.
   */
  WEEKLY("weekly", "week_start", List.of("iso_year", "iso_week")),
  /** {@code gold.monthly_<metric>}: {@code month_start} (the 1st), {@code year}, {@code month}. */
  MONTHLY("monthly", "month_start", List.of("year", "month")),
  /** {@code gold.yearly_<metric>}: {@code year_start} (January 1st), {@code year}. */
  YEARLY("yearly", "year_start", List.of("year"));

  /**
   * The table property of a daily or rollup table naming the time zone of its local days (a table
   * without it was built in UTC).
   */
  public static final String ZONE_PROPERTY = "latelake.rollup.time-zone";

  private final String configName;
  private final String keyColumn;
  private final List<String> labels;

  RollupPeriod(String configName, String keyColumn, List<String> labels) {
    this.configName = configName;
    this.keyColumn = keyColumn;
    this.labels = labels;
  }

  /**
   * @return the period of a {@code lake.correction.rollups} entry (weekly, monthly, yearly)
   */
  public static java.util.Optional<RollupPeriod> parse(String name) {
    for (RollupPeriod p : values()) {
      if (p.configName.equals(name)) {
        return java.util.Optional.of(p);
      }
    }
    return java.util.Optional.empty();
  }

  /**
   * @return weekly, monthly or yearly
   */
  public String configName() {
    return configName;
  }

  /**
   * @return the period's unit in words, also Spark's {@code date_trunc} unit: week, month or year
   */
  public String unit() {
    return switch (this) {
      case WEEKLY -> "week";
      case MONTHLY -> "month";
      case YEARLY -> "year";
    };
  }

  /**
   * @return the table's name under gold without the metric, e.g. {@code monthly_}
   */
  public String tablePrefix() {
    return configName + "_";
  }

  /**
   * @return the key date column: {@code week_start}, {@code month_start} or {@code year_start}
   */
  public String keyColumn() {
    return keyColumn;
  }

  /**
   * @return the int columns copied along with the key ({@code iso_year, iso_week}; {@code year,
   *     month}; {@code year})
   */
  public List<String> labels() {
    return labels;
  }

  /**
   * @return the job name of a cascade of this period in {@code monitoring.rollup_runs}: {@code
   *     cascade} (weekly, as before monthly and yearly existed), {@code cascade-monthly}, {@code
   *     cascade-yearly}
   */
  public String job() {
    return this == WEEKLY ? "cascade" : "cascade-" + configName;
  }

  /**
   * @return the first day of the period holding {@code day}
   */
  public LocalDate first(LocalDate day) {
    return switch (this) {
      case WEEKLY -> day.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
      case MONTHLY -> day.withDayOfMonth(1);
      case YEARLY -> day.withDayOfYear(1);
    };
  }

  /**
   * @return the last day of the period holding {@code day} (inclusive)
   */
  public LocalDate last(LocalDate day) {
    return switch (this) {
      case WEEKLY -> day.with(TemporalAdjusters.nextOrSame(DayOfWeek.SUNDAY));
      case MONTHLY -> day.with(TemporalAdjusters.lastDayOfMonth());
      case YEARLY -> day.with(TemporalAdjusters.lastDayOfYear());
    };
  }
}

package io.latelake.core.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latelake.core.config.LakeConfigException;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class DayRangeTest {
  private static final LocalDate D14 = LocalDate.of(2024, 5, 14);
  private static final LocalDate D16 = LocalDate.of(2024, 5, 16);

  @Test
  void parsesADayOrARange() {
    assertThat(DayRange.parse("2024-05-14")).isEqualTo(new DayRange(D14, D14));
    assertThat(DayRange.parse(" 2024-05-14 .. 2024-05-16 ")).isEqualTo(new DayRange(D14, D16));
    assertThat(DayRange.parse("2024-05-14..2024-05-16").days()).isEqualTo(3L);
    assertThat(DayRange.parse("2024-05-14..2024-05-16")).hasToString("2024-05-14..2024-05-16");
  }

  @Test
  void badTextNamesTheOptionAndTheValue() {
    assertThatThrownBy(() -> DateArgs.days("--days", "2024-13-01"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage("Invalid value '2024-13-01' for option '--days': is not a calendar date");
    assertThatThrownBy(() -> DateArgs.days("--days", "2024-5-1"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '2024-5-1' for option '--days': expected a UTC day "
                + "YYYY-MM-DD or a range YYYY-MM-DD..YYYY-MM-DD");
    assertThatThrownBy(() -> DateArgs.days("--range", "2024-05-16..2024-05-14"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '2024-05-16..2024-05-14' for option '--range': the last day "
                + "is before the first");
    assertThatThrownBy(() -> DayRange.parse("1014-01-01..2024-05-14"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '1014-01-01..2024-05-14' for option '--days': more than "
                + "36600 days");
    // the bounds of every day option (also the correction commands' --from/--to)
    assertThatThrownBy(() -> DayRange.parse("1899-12-31"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '1899-12-31' for option '--days': must lie between 1900-01-01 "
                + "and 9999-12-31 (UTC)");
    // the same words for an instant option and for a day that is not in the calendar
    assertThatThrownBy(() -> DateArgs.instant("--since", "0001-01-01T00:00:00Z"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '0001-01-01T00:00:00Z' for option '--since': must lie between"
                + " 1900-01-01 and 9999-12-31 (UTC)");
    assertThatThrownBy(() -> DayRange.parse("2026-02-30"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage("Invalid value '2026-02-30' for option '--days': is not a calendar date");
    assertThatThrownBy(() -> DateArgs.instant("--since", "2026-02-30"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage("Invalid value '2026-02-30' for option '--since': is not a calendar date");
    assertThat(DayRange.parse("1900-01-01").from()).isEqualTo(DayRange.FIRST_DAY);
    assertThatThrownBy(() -> DayRange.parse(null))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'null' for option '--days': expected a UTC day YYYY-MM-DD or "
                + "a range YYYY-MM-DD..YYYY-MM-DD");
  }

  @Test
  void aReversedRangeCannotBeBuilt() {
    assertThatThrownBy(() -> new DayRange(D16, D14))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid day range 2024-05-16..2024-05-14: the last day is before the first");
  }

  @Test
  void lastDaysEndToday() {
    Clock clock = Clock.fixed(Instant.parse("2024-05-16T23:59:59Z"), ZoneOffset.UTC);
    assertThat(DayRange.lastDays(3, clock)).isEqualTo(new DayRange(D14, D16));
    assertThat(DayRange.lastDays(1, D16)).isEqualTo(new DayRange(D16, D16));
    assertThatThrownBy(() -> DayRange.lastDays(0, D16))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid day count 0: at least 1");
  }

  @Test
  void predicateUsesTheParsedDatesAndAValidColumn() {
    assertThat(new DayRange(D14, D16).predicate("event_date"))
        .isEqualTo("event_date >= DATE'2024-05-14' AND event_date <= DATE'2024-05-16'");
    assertThatThrownBy(() -> new DayRange(D14, D16).predicate("x; DROP"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid column name 'x; DROP'");
  }
}

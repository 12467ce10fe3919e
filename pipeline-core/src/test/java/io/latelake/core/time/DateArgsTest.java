package io.latelake.core.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latelake.core.config.LakeConfigException;
import java.time.Instant;
import java.time.LocalDate;
import org.junit.jupiter.api.Test;

class DateArgsTest {
  private static final LocalDate TODAY = LocalDate.of(2024, 5, 20);

  @Test
  void anInjectedDateIsRefusedWithTheOptionAndValue() {
    assertThatThrownBy(() -> DateArgs.range("2024-01-01' OR '1'='1", "2024-01-02", null, 7, TODAY))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '2024-01-01' OR '1'='1' for option '--from': expected a date "
                + "yyyy-MM-dd (UTC)");
  }

  @Test
  void aNonCalendarDateAndAReversedRangeAreRefused() {
    assertThatThrownBy(() -> DateArgs.date("--to", "2024-02-30"))
        .hasMessage("Invalid value '2024-02-30' for option '--to': is not a calendar date");
    assertThatThrownBy(() -> DateArgs.range("2024-05-02", "2024-05-01", null, 7, TODAY))
        .hasMessage("Invalid value '2024-05-01' for option '--to': is before --from '2024-05-02'");
    assertThatThrownBy(() -> DateArgs.range("2024-05-02", null, null, 7, TODAY))
        .hasMessage(
            "Invalid date range: give both --from and --to (got --from '2024-05-02', "
                + "--to 'null'), or neither to use the lookback");
  }

  @Test
  void theReplaceWherePredicateIsBuiltFromParsedDates() {
    DayRange r = DateArgs.range("2024-05-01", "2024-05-03", null, 7, TODAY);
    assertThat(r.predicate("event_date"))
        .isEqualTo("event_date >= DATE'2024-05-01' AND event_date <= DATE'2024-05-03'");
    assertThat(r.days()).isEqualTo(3);
    assertThatThrownBy(() -> r.predicate("x' OR 1=1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid column name 'x' OR 1=1'");
  }

  @Test
  void theLookbackEndsToday() {
    assertThat(DateArgs.range(null, null, null, 7, TODAY))
        .isEqualTo(new DayRange(LocalDate.of(2024, 5, 14), TODAY));
    assertThat(DateArgs.range(null, null, 1, 7, TODAY)).isEqualTo(new DayRange(TODAY, TODAY));
    assertThatThrownBy(() -> DateArgs.range(null, null, 0, 7, TODAY))
        .hasMessage("Invalid value '0' for option '--lookback-days': must be between 1 and 3660");
  }

  @Test
  void sinceTakesADateOrAnInstant() {
    assertThat(DateArgs.instant("--since", "2024-05-14"))
        .isEqualTo(Instant.parse("2024-05-14T00:00:00Z"));
    assertThat(DateArgs.instant("--since", "2024-05-14T10:03:00Z"))
        .isEqualTo(Instant.parse("2024-05-14T10:03:00Z"));
    // as DESCRIBE HISTORY prints a commit's time in latelake's UTC sessions
    assertThat(DateArgs.instant("--timestamp", "2026-12-06 19:10:11.922"))
        .isEqualTo(Instant.parse("2026-12-06T19:10:11.922Z"));
    assertThat(DateArgs.instant("--timestamp", "2026-12-06 19:10"))
        .isEqualTo(Instant.parse("2026-12-06T19:10:00Z"));
    assertThatThrownBy(() -> DateArgs.instant("--since", "yesterday"))
        .hasMessage(
            "Invalid value 'yesterday' for option '--since': expected a date yyyy-MM-dd or "
                + "an instant such as 2024-05-14T10:00:00Z or 2024-05-14 10:00:00 (UTC)");
    assertThatThrownBy(() -> DateArgs.instant("--timestamp", "2026-12-06 25:10:00"))
        .hasMessage(
            "Invalid value '2026-12-06 25:10:00' for option '--timestamp': expected a date"
                + " yyyy-MM-dd or an instant such as 2024-05-14T10:00:00Z or 2024-05-14 10:00:00"
                + " (UTC)");
  }

  @Test
  void sinceInTheFutureIsRefused() {
    Instant now = Instant.parse("2024-05-15T08:30:12.5Z");
    assertThat(DateArgs.pastInstant("--since", "2024-05-15", now))
        .isEqualTo(Instant.parse("2024-05-15T00:00:00Z"));
    assertThatThrownBy(() -> DateArgs.pastInstant("--since", "9999-12-31", now))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '9999-12-31' for option '--since': is in the future "
                + "(now: 2024-05-15T08:30:12Z)");
    assertThatThrownBy(() -> DateArgs.pastInstant("--since", "2024-05-15T08:31:00Z", now))
        .hasMessage(
            "Invalid value '2024-05-15T08:31:00Z' for option '--since': is in the future "
                + "(now: 2024-05-15T08:30:12Z)");
  }
}

package io.latelake.correction.correct;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The closed/deferred split of correct, without Spark. */
class WindowPlannerTest {
  static final Duration FIVE = Duration.ofMinutes(5);

  static Instant t(String hhmm) {
    return Instant.parse("2024-05-14T" + hhmm + ":00Z");
  }

  @Test
  void aWindowEndingExactlyAtTheWatermarkIsClosedOneEndingAfterItIsDeferred() {
    WindowPlanner.Plan p =
        WindowPlanner.plan(
            List.of(t("10:15"), t("10:00"), t("10:10"), t("10:00")), FIVE, Optional.of(t("10:15")));

    assertThat(p.closed()).containsExactly(t("10:00"), t("10:10"));
    assertThat(p.deferred()).containsExactly(t("10:15"));
    assertThat(p.start()).isEqualTo(t("10:00"));
    assertThat(p.end()).isEqualTo(t("10:15"));
    assertThat(p.touched()).isEqualTo(3);
  }

  @Test
  void theBronzeReadSpansAreTheClosedWindowsWidenedByTheHorizonAndJoinedWhereTheyMeet() {
    WindowPlanner.Plan p =
        WindowPlanner.plan(
            List.of(t("10:00"), t("10:10"), t("12:15"), t("14:40"), t("23:00")),
            FIVE,
            Optional.of(t("15:00")));

    // 10:00 and 10:10 overlap; 12:15's span starts where theirs ends; 14:40's starts after it
    assertThat(p.readSpans(FIVE, Duration.ofHours(1)))
        .containsExactly(
            new WindowPlanner.Span(t("09:00"), t("13:20")),
            new WindowPlanner.Span(t("13:40"), t("15:45")));
    assertThat(p.deferred()).containsExactly(t("23:00"));
    assertThat(
            WindowPlanner.plan(List.of(t("10:00")), FIVE, Optional.empty())
                .readSpans(FIVE, Duration.ofHours(1)))
        .isEmpty();
    // at most 2 spans: of the gaps 2 h 35 min (11:05-13:40) and 6 h 15 min (15:45-22:00), the
    // larger one is kept
    WindowPlanner.Plan late =
        WindowPlanner.plan(
            List.of(t("10:00"), t("14:40"), t("23:00")), FIVE, Optional.of(t("23:59")));
    assertThat(late.readSpans(FIVE, Duration.ofHours(1), 2))
        .containsExactly(
            new WindowPlanner.Span(t("09:00"), t("15:45")),
            new WindowPlanner.Span(t("22:00"), Instant.parse("2024-05-15T00:05:00Z")));
    // a plan built with its closed windows out of order reads the same spans
    assertThat(
            new WindowPlanner.Plan(List.of(t("14:40"), t("10:00")), List.of(), t("14:45"))
                .readSpans(FIVE, Duration.ofHours(1)))
        .containsExactly(
            new WindowPlanner.Span(t("09:00"), t("11:05")),
            new WindowPlanner.Span(t("13:40"), t("15:45")));
    assertThat(late.readSpans(FIVE, Duration.ofHours(1), 1))
        .containsExactly(new WindowPlanner.Span(t("09:00"), Instant.parse("2024-05-15T00:05:00Z")));
  }

  @Test
  void withoutAWatermarkEveryWindowIsDeferred() {
    WindowPlanner.Plan p =
        WindowPlanner.plan(List.of(t("10:05"), t("10:00")), FIVE, Optional.empty());

    assertThat(p.closed()).isEmpty();
    assertThat(p.deferred()).containsExactly(t("10:00"), t("10:05"));
    assertThat(p.end()).isNull();
  }

  @Test
  void nothingTouchedPlansNothing() {
    WindowPlanner.Plan p = WindowPlanner.plan(List.of(), FIVE, Optional.of(t("10:00")));

    assertThat(p.closed()).isEmpty();
    assertThat(p.deferred()).isEmpty();
    assertThat(p.touched()).isZero();
  }

  @Test
  void everyWindowBeforeTheWatermarkIsClosedWhateverItsLength() {
    WindowPlanner.Plan p =
        WindowPlanner.plan(
            List.of(t("09:00"), t("10:00")), Duration.ofHours(1), Optional.of(t("10:59")));

    assertThat(p.closed()).containsExactly(t("09:00"));
    assertThat(p.deferred()).containsExactly(t("10:00"));
    assertThat(p.end()).isEqualTo(t("10:00"));
  }
}

package io.latelake.correction.shared;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TouchedWindowsTest {
  private static final Duration FIVE_MINUTES = Duration.ofMinutes(5);

  private static Timestamp at(String hhmm) {
    return Timestamp.from(Instant.parse("2024-05-14T" + hhmm + ":00Z"));
  }

  private static List<String> runs(List<Timestamp> starts, int max) {
    List<String> out = new ArrayList<>();
    for (TouchedWindows.Run r : TouchedWindows.runs(starts, FIVE_MINUTES, max)) {
      out.add(
          r.first().toInstant().toString().substring(11, 16)
              + "-"
              + r.last().toInstant().toString().substring(11, 16));
    }
    return out;
  }

  @Test
  void adjacentWindowsShareARunAndAGapStartsANewOne() {
    // any order, duplicates: 10:00, 10:05 and 10:10 are adjacent; 10:20 follows a gap of one window
    List<Timestamp> starts =
        List.of(at("10:10"), at("10:00"), at("10:20"), at("10:05"), at("10:05"), at("12:00"));
    assertThat(runs(starts, 64)).containsExactly("10:00-10:10", "10:20-10:20", "12:00-12:00");
    assertThat(runs(List.of(), 64)).isEmpty();
  }

  @Test
  void windowsKnownOnTheDriverGiveTheSameRunsAndTheirCount() {
    TouchedWindows w =
        TouchedWindows.ofStarts(
            List.of(
                at("10:10").toInstant(),
                at("10:00").toInstant(),
                at("10:05").toInstant(),
                at("10:05").toInstant(),
                at("12:00").toInstant()),
            FIVE_MINUTES);
    assertThat(w.rows()).isEqualTo(4);
    assertThat(w.runs())
        .containsExactly(
            new TouchedWindows.Run(at("10:00"), at("10:10")),
            new TouchedWindows.Run(at("12:00"), at("12:00")));
  }

  @Test
  void beyondTheMostRunsTheSmallestGapsAreJoined() {
    // from one run's last start to the next run's first: 15, 65, 15 and 35 minutes
    List<Timestamp> starts =
        List.of(at("10:00"), at("10:15"), at("11:20"), at("11:35"), at("12:10"));
    assertThat(runs(starts, 5))
        .containsExactly("10:00-10:00", "10:15-10:15", "11:20-11:20", "11:35-11:35", "12:10-12:10");
    // the smallest gaps are joined first; of two equal gaps, the later one
    assertThat(runs(starts, 4))
        .containsExactly("10:00-10:00", "10:15-10:15", "11:20-11:35", "12:10-12:10");
    assertThat(runs(starts, 3)).containsExactly("10:00-10:15", "11:20-11:35", "12:10-12:10");
    assertThat(runs(starts, 2)).containsExactly("10:00-10:15", "11:20-12:10");
    assertThat(runs(starts, 1)).containsExactly("10:00-12:10");
    assertThatThrownBy(() -> runs(starts, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("at most 0 ranges: must be at least 1");
  }
}

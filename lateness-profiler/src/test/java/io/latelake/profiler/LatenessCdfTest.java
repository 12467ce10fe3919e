package io.latelake.profiler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The completeness formula without Spark. */
class LatenessCdfTest {
  // lateness quantiles: 0% 0 s, 25% 10 s, 50% 10 s, 75% 60 s, 100% 600 s
  private final LatenessCdf cdf =
      new LatenessCdf(new double[] {0, 0.25, 0.5, 0.75, 1.0}, new double[] {0, 10, 10, 60, 600});

  @Test
  void shareReadsTheQuantilesBackAndInterpolatesBetweenThem() {
    assertThat(cdf.share(-1)).isEqualTo(0.0);
    assertThat(cdf.share(0)).isEqualTo(0.0);
    assertThat(cdf.share(5)).isEqualTo(0.125);
    assertThat(cdf.share(10)).isEqualTo(0.5); // ties: the largest level at that value
    assertThat(cdf.share(35)).isEqualTo(0.625);
    assertThat(cdf.share(600)).isEqualTo(1.0);
    assertThat(cdf.share(1e9)).isEqualTo(1.0);
  }

  @Test
  void windowCompletenessAveragesOverTheWindow() {
    assertThat(cdf.windowCompleteness(5, 0)).isEqualTo(0.125);
    // window of 600 s seen 600 s after its end: every event is ≥ 600 s old
    assertThat(cdf.windowCompleteness(600, 600)).isEqualTo(1.0);
    // a 10 s window seen at its end: midpoints (k + 0.5) / 32 * 10 s, all below 10 s → mean of
    // 0.25 * a / 10 over them = 0.25 * 0.5 = 0.125
    assertThat(cdf.windowCompleteness(0, 10)).isEqualTo(0.125);
    // quantiles 0% 0 s, 50% 60 s, 100% 600 s; a 300 s window seen at its end: events (k + 0.5)
    // / 32 * 300 s old, F = a / 120 below 60 s and 0.5 + 0.5 (a - 60) / 540 above; the mean over
    // the 32 midpoints is 0.5390625
    assertThat(
            new LatenessCdf(new double[] {0, 0.5, 1.0}, new double[] {0, 60, 600})
                .windowCompleteness(0, 300))
        .isCloseTo(0.5390625, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(cdf.delayFor(0.75)).isEqualTo(60.0);
    assertThat(cdf.delayFor(0.6)).isEqualTo(60.0);
  }

  @Test
  void rejectsUnorderedQuantiles() {
    assertThatThrownBy(() -> new LatenessCdf(new double[] {0, 1}, new double[] {5, 4}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot build a lateness CDF: levels must increase and values must not "
                + "decrease (at index 1)");
    assertThatThrownBy(() -> new LatenessCdf(new double[] {0}, new double[] {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot build a lateness CDF from 1 levels and 0 values");
  }
}

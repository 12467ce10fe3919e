package io.latelake.profiler;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Labels of the report. */
class ChartsTest {
  @Test
  void humanDurations() {
    assertThat(Charts.human(1.735)).isEqualTo("1.74 s");
    assertThat(Charts.human(0.1)).isEqualTo("0.1 s");
    assertThat(Charts.human(0.296)).isEqualTo("0.296 s");
    assertThat(Charts.human(600)).isEqualTo("10 min");
    assertThat(Charts.human(7200)).isEqualTo("2 h");
    assertThat(Charts.human(172800)).isEqualTo("2 d");
    assertThat(Charts.human(15562900)).isEqualTo("15562900 s");
    assertThat(Charts.human(45)).isEqualTo("45 s");
  }
}

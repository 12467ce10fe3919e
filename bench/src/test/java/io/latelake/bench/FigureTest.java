package io.latelake.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class FigureTest {
  @Test
  void aThroughputFigureIsTheMedianOfThePerRepeatRatios() {
    Figure f =
        Figure.of(
            "dedup",
            "dedup",
            "s",
            List.of(4.0, 5.0, 10.0),
            List.of(2.0, 4.0, 3.0),
            true,
            0.6,
            "n",
            true,
            false);

    // ratios reference / ours: 0.5, 0.8, 0.3
    assertThat(f.ratio()).isEqualTo(0.5);
    assertThat(f.ours()).isEqualTo(5.0);
    assertThat(f.reference()).isEqualTo(3.0);
    assertThat(f.pass()).isFalse();
    assertThat(f.resultText()).isEqualTo("FAIL");
    assertThat(f.targetText()).isEqualTo("≥ 0.60×");
  }

  @Test
  void aBoundRowSaysWhetherTheTargetItBoundsIsWithinReach() {
    Figure out =
        Figure.of(
            "profile-bound",
            "profile",
            "s",
            List.of(6.0),
            List.of(1.0),
            false,
            2.0,
            "n",
            true,
            true);
    Figure in =
        Figure.of(
            "dedup-bound", "dedup", "s", List.of(3.0), List.of(2.4), true, 0.6, "n", true, true);

    assertThat(out.ratio()).isEqualTo(6.0);
    assertThat(out.resultText()).isEqualTo("out of reach");
    assertThat(out.pass()).isTrue();
    assertThat(out.json()).contains("\"kind\":\"bound\"");
    assertThat(in.ratio()).isCloseTo(0.8, within(1e-9));
    assertThat(in.resultText()).isEqualTo("reachable");
  }
}

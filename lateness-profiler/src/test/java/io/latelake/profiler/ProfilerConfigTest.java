package io.latelake.profiler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latelake.core.config.LakeConfigException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Which keys the profiler compares its figures with (no Spark). */
class ProfilerConfigTest {
  @Test
  void comparesWithGoldsWatermarkDelayAndTheOneCorrectionHorizon() {
    ProfilerConfig cfg =
        Fixtures.profiler(
            "lake.silver.watermark-delay=3 minutes",
            "lake.gold.watermark-delay=7 minutes",
            "lake.correction.horizon=2 hours");
    assertThat(cfg.watermarkDelay()).isEqualTo(Duration.ofMinutes(7));
    assertThat(cfg.watermarkDelaySeconds()).isEqualTo(420.0);
    assertThat(cfg.correctionHorizon()).isEqualTo(Duration.ofHours(2));
    assertThat(cfg.correctionHorizonSeconds()).isEqualTo(7200.0);
  }

  @Test
  void defaults() {
    ProfilerConfig cfg = Fixtures.profiler();
    assertThat(cfg.watermarkDelay()).isEqualTo(Duration.ofMinutes(10));
    assertThat(cfg.correctionHorizon()).isEqualTo(Duration.ofHours(1));
    assertThat(cfg.dedupHorizon()).isEqualTo(Duration.ofDays(7));
    assertThat(cfg.watermarkCoverage()).containsExactly(0.99, 0.999);
    assertThat(cfg.correctionCoverage()).isEqualTo(0.9999);
    assertThat(cfg.dropMaxShare()).isEqualTo(0.0);
  }

  @Test
  void aWhatIfWatermarkDelayOverridesGoldsUpToTheHorizon() {
    assertThat(Fixtures.profiler("lake.profiler.watermark-delay=1 hour").watermarkDelay())
        .isEqualTo(Duration.ofHours(1));
    assertThatThrownBy(() -> Fixtures.profiler("lake.profiler.watermark-delay=61 minutes"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '61 minutes' for key 'lake.profiler.watermark-delay': must "
                + "not be longer than lake.correction.horizon (PT1H)");
  }

  @Test
  void decimalsAreCheckedWithTheirKey() {
    assertThatThrownBy(() -> Fixtures.profiler("lake.profiler.drop-max-share=much"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'much' for key 'lake.profiler.drop-max-share': expected a " + "number");
    assertThatThrownBy(() -> Fixtures.profiler("lake.profiler.drop-max-share=1.5"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '1.5' for key 'lake.profiler.drop-max-share': must be between "
                + "0 and 1 (0: off)");
    assertThatThrownBy(() -> Fixtures.profiler("lake.profiler.correction-coverage=1"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '1.0' for key 'lake.profiler.correction-coverage': must be a "
                + "share strictly between 0 and 1");
    assertThatThrownBy(() -> Fixtures.profiler("lake.profiler.watermark-coverage=[0.9, x]"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '[0.9, x]' for key 'lake.profiler.watermark-coverage': "
                + "expected a list of numbers");
    assertThatThrownBy(() -> Fixtures.profiler("lake.profiler.rules=[{metric=p99_s, above=x}]"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'x' for key 'lake.profiler.rules[0].above': expected a " + "number");
  }
}

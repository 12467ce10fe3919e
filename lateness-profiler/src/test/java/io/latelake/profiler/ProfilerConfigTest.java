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
  void theReplayTriesSilversDelayAndTheCandidatesOnceEachInOrder() {
    ProfilerConfig cfg =
        Fixtures.profiler(
            "lake.silver.watermark-delay=1 minute",
            "lake.profiler.candidate-delays=[10 minutes, 60 seconds, 5 s]",
            "lake.profiler.target-drop-share=0.01");
    assertThat(cfg.replayDelays())
        .containsExactly(Duration.ofSeconds(5), Duration.ofMinutes(1), Duration.ofMinutes(10));
    assertThat(cfg.targetDropShare()).isEqualTo(0.01);
    assertThat(Fixtures.profiler().targetDropShare()).isEqualTo(0.001);
    assertThatThrownBy(() -> Fixtures.profiler("lake.profiler.candidate-delays=[1 minute, soon]"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '[1 minute, soon]' for key 'lake.profiler.candidate-delays': "
                + "expected a list of durations such as [1 second, 5 minutes]");
    assertThatThrownBy(() -> Fixtures.profiler("lake.profiler.candidate-delays=[0 s]"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '[0 s]' for key 'lake.profiler.candidate-delays': "
                + "each duration must be positive");
    assertThatThrownBy(() -> Fixtures.profiler("lake.profiler.target-drop-share=1"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '1.0' for key 'lake.profiler.target-drop-share': must be a share at "
                + "least 0 and below 1");
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

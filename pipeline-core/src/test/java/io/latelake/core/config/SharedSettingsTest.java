package io.latelake.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The keys several jobs read, and the decimal reads of {@link Settings}. */
class SharedSettingsTest {
  private static Config load(String... sets) {
    return ConfigLoader.load(Optional.empty(), List.of(sets));
  }

  @Test
  void defaults() {
    Config c = load();
    assertThat(SharedSettings.goldWatermarkDelay(c)).isEqualTo(Duration.ofMinutes(10));
    assertThat(SharedSettings.correctionHorizon(c)).isEqualTo(Duration.ofHours(1));
    assertThat(SharedSettings.dedupHorizon(c)).isEqualTo(Duration.ofDays(7));
  }

  @Test
  void theCorrectionHorizonIsAtLeastTheGoldWatermarkDelay() {
    assertThat(SharedSettings.correctionHorizon(load("lake.correction.horizon=10 minutes")))
        .isEqualTo(Duration.ofMinutes(10));
    assertThatThrownBy(
            () -> SharedSettings.correctionHorizon(load("lake.correction.horizon=9 minutes")))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '9 minutes' for key 'lake.correction.horizon': must be at "
                + "least lake.gold.watermark-delay (PT10M), or a settled window could still be open");
    assertThat(
            SharedSettings.correctionHorizon(
                load(
                    "lake.correction.horizon=1 second",
                    "lake.gold.watermark-delay=100 milliseconds")))
        .isEqualTo(Duration.ofSeconds(1));
    assertThatThrownBy(() -> SharedSettings.correctionHorizon(load("lake.correction.horizon=0s")))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '0s' for key 'lake.correction.horizon': must be a positive "
                + "duration");
  }

  @Test
  void theDedupHorizonIsAtLeastTheGoldWatermarkDelay() {
    assertThatThrownBy(
            () -> SharedSettings.dedupHorizon(load("lake.correction.dedup-horizon=5 minutes")))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '5 minutes' for key 'lake.correction.dedup-horizon': must be "
                + "at least lake.gold.watermark-delay (PT10M): the stream's own dedup already spans "
                + "that much");
  }

  @Test
  void numbersAreReadFromNumbersAndNumericStrings() {
    Settings s =
        Settings.of(
            load(
                "lake.correction.audit-tolerance=0.25",
                "lake.profiler.drop-max-share=\"1e-3\"",
                "lake.profiler.watermark-coverage=[0.5, 1, 2]"));
    assertThat(s.number("lake.correction.audit-tolerance")).isEqualTo(0.25);
    assertThat(s.number("lake.profiler.drop-max-share")).isEqualTo(0.001);
    assertThat(s.numbers("lake.profiler.watermark-coverage")).containsExactly(0.5, 1.0, 2.0);
  }

  @Test
  void aNumberThatIsNotOneNamesKeyAndValue() {
    Settings s =
        Settings.of(
            load(
                "lake.correction.audit-tolerance=lots",
                "lake.profiler.drop-max-share=\"NaN\"",
                "lake.profiler.watermark-coverage=[0.5, high]",
                "lake.profiler.correction-coverage=[0.5]"));
    assertThatThrownBy(() -> s.number("lake.correction.audit-tolerance"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'lots' for key 'lake.correction.audit-tolerance': expected a "
                + "number");
    assertThatThrownBy(() -> s.number("lake.profiler.drop-max-share"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'NaN' for key 'lake.profiler.drop-max-share': expected a "
                + "finite number");
    assertThatThrownBy(() -> s.number("lake.profiler.correction-coverage"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '[0.5]' for key 'lake.profiler.correction-coverage': expected "
                + "a number");
    assertThatThrownBy(() -> s.numbers("lake.profiler.watermark-coverage"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '[0.5, high]' for key 'lake.profiler.watermark-coverage': "
                + "expected a list of numbers");
    assertThatThrownBy(() -> s.number("lake.profiler.nothing"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage("Missing required key 'lake.profiler.nothing'");
  }
}

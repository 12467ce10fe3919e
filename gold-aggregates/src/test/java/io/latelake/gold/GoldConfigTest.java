package io.latelake.gold;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import io.latelake.core.config.ConfigLoader;
import io.latelake.core.config.LakeConfigException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code lake.gold} read into {@link GoldConfig}: the delay fixed or {@code auto}, and errors. */
class GoldConfigTest {
  private static Config config(String... sets) {
    List<String> all =
        new ArrayList<>(
            List.of(
                "lake.event.fields=[{name=page, type=string}]",
                "lake.gold.metrics={page_5m={window=\"5 minutes\", group-by=[page], measures=["
                    + "{name=events, function=count}]}}"));
    all.addAll(List.of(sets));
    return ConfigLoader.load(Optional.empty(), all);
  }

  @Test
  void aFixedDelayIsTheDelayOfEveryStart() {
    GoldConfig c = GoldConfig.fromConfig(config("lake.gold.watermark-delay=\"90 seconds\""));
    assertThat(c.watermarkDelay()).isEqualTo(Duration.ofSeconds(90));
    assertThat(c.delaySetting().auto()).isEmpty();
    assertThat(c.metrics()).extracting(m -> m.name()).containsExactly("page_5m");
    assertThat(c.metrics().get(0).queryName()).isEqualTo("gold_page_5m");
    // nothing to resolve: the same config (no Spark needed)
    assertThat(c.resolved(null, null)).isSameAs(c);
  }

  @Test
  void autoStartsFromItsFallbackUntilResolved() {
    GoldConfig c =
        GoldConfig.fromConfig(
            config(
                "lake.gold.watermark-delay=auto", "lake.gold.auto-delay.fallback=\"2 minutes\""));
    assertThat(c.delaySetting().auto()).isPresent();
    assertThat(c.watermarkDelay()).isEqualTo(Duration.ofMinutes(2));
  }

  @Test
  void aBadDelayNamesItsKey() {
    assertThatThrownBy(() -> GoldConfig.fromConfig(config("lake.gold.watermark-delay=\"soon\"")))
        .isInstanceOf(LakeConfigException.class)
        .hasMessageContaining("lake.gold.watermark-delay")
        .hasMessageContaining("soon");
  }
}

package io.latelake.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import io.latelake.core.config.ConfigLoader;
import io.latelake.core.config.LakeConfigException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code latelake run} hands {@code lake.sources} and their idle timeouts to its silver and gold
 * queries.
 */
class RunMainSourcesTest {
  @TempDir Path tmp;

  private Config config(String sources, String... more) {
    List<String> sets =
        new java.util.ArrayList<>(
            List.of(
                "lake.root=\"" + tmp + "\"",
                "lake.bronze.source=files",
                "lake.bronze.files.path=\"" + tmp + "\"",
                "lake.gold.metrics.events_5m={window=\"5 minutes\", group-by=[source], "
                    + "measures=[{name=events, function=count}]}",
                "lake.sources=" + sources));
    sets.addAll(List.of(more));
    return ConfigLoader.load(Optional.empty(), sets);
  }

  @Test
  void silverAndGoldGetTheListedSources() {
    RunMain.Layers layers = new RunMain().prepare(config("[fast, slow]"));
    assertThat(layers.silver().sources().listed()).containsExactly("fast", "slow");
    assertThat(layers.gold().sources().listed()).containsExactly("fast", "slow");
    assertThat(new RunMain().prepare(config("[]")).silver().sources().listed()).isEmpty();
  }

  @Test
  void silverAndGoldGetTheIdleTimeouts() {
    RunMain.Layers layers =
        new RunMain()
            .prepare(
                config(
                    "[fast, slow]",
                    "lake.sources-idle-after=\"20 minutes\"",
                    "lake.sources-idle-after-per-source={fast=off}"));
    java.util.Map<String, java.time.Duration> expected =
        java.util.Map.of("slow", java.time.Duration.ofMinutes(20));
    assertThat(layers.silver().sources().idleAfter()).isEqualTo(expected);
    assertThat(layers.gold().sources().idleAfter()).isEqualTo(expected);
  }

  @Test
  void aBadListStopsTheRunBeforeSpark() {
    assertThatThrownBy(() -> new RunMain().prepare(config("[fast, fast]")))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '[fast, fast]' for key 'lake.sources': a source must not be listed "
                + "twice");
  }
}

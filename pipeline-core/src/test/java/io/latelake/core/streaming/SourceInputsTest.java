package io.latelake.core.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latelake.core.config.ConfigLoader;
import io.latelake.core.config.LakeConfigException;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SourceInputsTest {
  private static List<String> sources(String value) {
    return SourceInputs.fromConfig(
        ConfigLoader.load(Optional.empty(), List.of("lake.sources=" + value)));
  }

  @Test
  void defaultIsEmptyAndAListKeepsItsOrder() {
    assertThat(SourceInputs.fromConfig(ConfigLoader.load(Optional.empty(), List.of()))).isEmpty();
    assertThat(sources("[slow, fast]")).containsExactly("slow", "fast");
  }

  @Test
  void aSourceListedTwiceIsRefused() {
    assertThatThrownBy(() -> sources("[a, b, a]"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '[a, b, a]' for key 'lake.sources': a source must not be listed twice");
  }

  @Test
  void theNameOfTheOtherSourcesRowsCannotBeListed() {
    assertThatThrownBy(() -> sources("[a, \"(unlisted)\"]"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '[a, (unlisted)]' for key 'lake.sources': '(unlisted)' is the name of"
                + " the other sources' rows");
  }

  @Test
  void aBlankSourceIsRefused() {
    assertThatThrownBy(() -> sources("[a, \"\"]"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage("Invalid value '[a, ]' for key 'lake.sources': entries must not be empty");
  }
}

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
  void slotsBeyondTheListAreSpareInputs() {
    SourceWatermarks w =
        SourceWatermarks.fromConfig(
            ConfigLoader.load(
                Optional.empty(), List.of("lake.sources=[a, b]", "lake.sources-slots=4")));
    assertThat(w.listed()).containsExactly("a", "b");
    assertThat(w.inputs()).containsExactly("a", "b", "(spare 1)", "(spare 2)");
    assertThat(w.inputCount()).isEqualTo(5);
    assertThat(w.idleAfter("(spare 2)")).contains(java.time.Duration.ZERO);
    assertThat(w.idleAfter("b")).isEmpty();
    assertThat(SourceWatermarks.of(List.of()).inputCount()).isEqualTo(1);
    assertThat(SourceWatermarks.of(List.of("a", "b")).inputCount()).isEqualTo(3);
  }

  @Test
  void slotsNeedAListedSourceAndSpareNamesCannotBeListed() {
    assertThatThrownBy(
            () ->
                SourceWatermarks.fromConfig(
                    ConfigLoader.load(Optional.empty(), List.of("lake.sources-slots=2"))))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '2' for key 'lake.sources-slots': slots hold the sources listed in"
                + " lake.sources, which is empty (one watermark for all sources); list at least"
                + " one source");
    assertThatThrownBy(() -> sources("[a, \"(spare 1)\"]"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '[a, (spare 1)]' for key 'lake.sources': '(spare 1)': names starting"
                + " '(spare ' are those of spare slots");
  }

  @Test
  void aRefusalNamesWhatKeepsTheCheckpoint() {
    String tail =
        " (file latelake-sources; none: []). Spark records one input per listed source or spare"
            + " slot, plus one, and refuses a checkpoint whose number of inputs changed. ";
    String rebuild =
        " this stream on a new checkpoint (move the checkpoint aside and delete its output table,"
            + " then the layers that read it)";
    assertThat(
            SourceCheckpoints.refusal(
                    "silver_events",
                    "/c",
                    List.of("a", "b"),
                    new SourceWatermarks(List.of("a"), java.util.Map.of(), 2))
                .getMessage())
        .isEqualTo(
            "Cannot start stream silver_events: lake.sources is [a] in lake.sources-slots = 3"
                + " but its checkpoint /c was built with [a, b]"
                + tail
                + "Set lake.sources-slots = 2 to keep this checkpoint (a source takes a spare slot;"
                + " a removed one leaves its slot spare), restore lake.sources = [a, b], or rebuild"
                + rebuild);
    assertThat(
            SourceCheckpoints.refusal(
                    "gold_m", "/c", List.of("a", "b"), SourceWatermarks.of(List.of("a", "b", "c")))
                .getMessage())
        .contains(
            "It has 2 slots, fewer than the 3 sources listed: replace a listed source, restore"
                + " lake.sources = [a, b], or rebuild this stream");
    assertThat(
            SourceCheckpoints.refusal(
                    "gold_m", "/c", List.of("a", "(spare 1)"), SourceWatermarks.none())
                .getMessage())
        .contains("Restore lake.sources = [a] with lake.sources-slots = 2, or rebuild this stream");
  }

  @Test
  void aBlankSourceIsRefused() {
    assertThatThrownBy(() -> sources("[a, \"\"]"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage("Invalid value '[a, ]' for key 'lake.sources': entries must not be empty");
  }
}

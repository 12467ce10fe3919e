package io.latelake.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.latelake.core.cli.Launcher;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the whole bench at a tiny size (2,000 events, one repeat, one micro-batch) so that it cannot
 * rot: every figure row is printed and written with positive times. No figure is asserted against
 * its target — times are the machine's, not latelake's.
 */
class BenchSmokeTest {
  private static final List<String> FIGURES =
      List.of(
          "ingest-vs-from-json",
          "ingest-vs-bare-copy",
          "dedup",
          "dedup-bound",
          "dedup-state-rows",
          "dedup-rocksdb",
          "dedup-rocksdb-state-rows",
          "publish",
          "publish-bound",
          "publish-4x-table",
          "publish-4x-in-range",
          "fast-path",
          "fast-path-bound",
          "fast-path-merge-bound",
          "correction",
          "correction-bound",
          "correction-history",
          "correction-history-spread",
          "correction-history-bound",
          "correction-growth",
          "profile",
          "profile-bound",
          "profile-history",
          "profile-growth",
          "scale-out",
          "scale-out-bound");

  @TempDir Path tmp;

  @Test
  void everyFigureIsMeasuredAndWritten() throws Exception {
    System.setProperty("spark.master", "local[2]");
    System.setProperty("spark.ui.enabled", "false");
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    Path results = tmp.resolve("results");
    int rc =
        Launcher.execute(
            new BenchMain(),
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            "--events",
            "2000",
            "--repeats",
            "1",
            "--slices",
            "1",
            // The warm-up is a second pass over every pair (+60 s here); the measured pass
            // below runs the same code.
            "--warm-up",
            "0",
            // correct and profile over 1 and 4 days of bronze history
            "--history-days",
            "1",
            "--work",
            tmp.resolve("work").toString(),
            "--results",
            results.toString());

    // The table, for whoever reads the test's output file.
    System.out.println(out);
    assertThat(rc).as("exit code; stderr: %s", err).isZero();
    List<Path> files;
    try (Stream<Path> s = Files.list(results)) {
      files = s.toList();
    }
    assertThat(files)
        .singleElement()
        .satisfies(
            f -> assertThat(f.getFileName().toString()).startsWith("bench-").endsWith(".json"));
    JsonNode json = new ObjectMapper().readTree(files.get(0).toFile());
    assertThat(json.get("events").asLong()).isEqualTo(2000);
    assertThat(json.get("warm_up_events").asLong()).isZero();
    assertThat(out.toString())
        .contains("2,000 events (1 micro-batches), local[2], median of the repeats, no warm-up");
    List<String> names = new ArrayList<>();
    for (JsonNode f : json.get("figures")) {
      String name = f.get("figure").asText();
      names.add(name);
      assertThat(f.get("reference").asDouble()).as("reference of %s", name).isPositive();
      if (f.get("unit").asText().equals("s")) {
        assertThat(f.get("ours").asDouble()).as("ours of %s", name).isPositive();
      } else {
        assertThat(f.get("ours").asDouble()).as("state rows of %s", name).isNotNegative();
      }
      assertThat(f.get("ratio").asDouble()).as("ratio of %s", name).isNotNegative();
      assertThat(f.get("target").asText()).as("target of %s", name).matches("[≥≤] [0-9.]+×");
      assertThat(f.get("pass").isBoolean()).isTrue();
      assertThat(f.get("kind").asText())
          .as("kind of %s", name)
          .isEqualTo(name.endsWith("-bound") ? "bound" : "target");
      assertThat(out.toString()).contains(name);
    }
    // Amdahl on two cores: between no gain and twice the throughput
    assertThat(json.get("figures").get(FIGURES.indexOf("scale-out-bound")).get("ratio").asDouble())
        .isBetween(1.0, 2.0);
    assertThat(names).containsExactlyElementsOf(FIGURES);
    // Spark's warehouse folder in the work folder, not in the current one
    assertThat(tmp.resolve("work/warehouse")).isDirectory();
    assertThat(json.get("figures").get(FIGURES.indexOf("publish-4x-in-range")).get("note").asText())
        .endsWith("; the 1x lake's rows identical");
    assertThat(json.get("figures").get(FIGURES.indexOf("correction")).get("note").asText())
        .contains("output identical");
    assertThat(json.get("figures").get(FIGURES.indexOf("correction-history")).get("note").asText())
        .contains("over 1 days of bronze history")
        .endsWith("; output identical");
    assertThat(
            json.get("figures")
                .get(FIGURES.indexOf("correction-history-spread"))
                .get("note")
                .asText())
        .contains("over the same 1 days of history")
        .endsWith("; output identical");
    assertThat(json.get("figures").get(FIGURES.indexOf("publish-bound")).get("note").asText())
        .endsWith("; its rows identical to gold's");
    assertThat(json.get("figures").get(FIGURES.indexOf("dedup-bound")).get("note").asText())
        .endsWith("; its rows identical to silver's");
    assertThat(json.get("figures").get(FIGURES.indexOf("dedup-rocksdb")).get("note").asText())
        .endsWith("; its rows identical to silver's");
    assertThat(json.get("figures").get(FIGURES.indexOf("profile-bound")).get("note").asText())
        .endsWith(
            "; counts identical to the profile's, percentiles of both within percentile_approx's"
                + " rank error");
    assertThat(json.get("figures").get(FIGURES.indexOf("profile-history")).get("note").asText())
        .contains("over 1 days of bronze history");
    assertThat(json.get("figures").get(FIGURES.indexOf("profile-growth")).get("note").asText())
        .contains("over 4 vs 1 days of history")
        .containsPattern("a plain scan of all of bronze grew [0-9]+\\.[0-9]{2}×$");
    assertThat(json.get("figures").get(FIGURES.indexOf("correction-growth")).get("note").asText())
        .contains("over 4 vs 1 days of history")
        .containsPattern("the full recompute grew [0-9]+\\.[0-9]{2}×$");
  }
}

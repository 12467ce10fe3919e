package io.latelake.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigRenderOptions;
import com.typesafe.config.ConfigResolveOptions;
import com.typesafe.config.ConfigValue;
import io.latelake.core.config.ConfigChecks;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/configuration-reference.md} is generated from the two places a key is declared: its
 * name, default and comment from {@code conf/application.conf} (the file that declares every {@code
 * lake.*} key), its check from the one config reader that reads it ({@link ConfigChecks}, recorded
 * while {@link ConfigKeysTest#readAll} runs in each of its modes). This test fails when the page
 * and the two differ, when a key has no comment (its own or its group's), when no reader checks a
 * key, and when two readers check one key differently; it rewrites the page when run with {@code
 * -Dlatelake.write-config-reference=true}:
 *
 * <pre>
 * mvn -q -pl bundle test -Dtest=ConfigReferenceTest -Dlatelake.write-config-reference=true
 * </pre>
 */
class ConfigReferenceTest {
  private static final Path REPO =
      Path.of(System.getProperty("latelake.repo", "..")).toAbsolutePath().normalize();
  private static final Path REFERENCE = REPO.resolve("docs/configuration-reference.md");

  /** One key: its path, default as HOCON, and comment. */
  record Key(String path, String value, String doc) {}

  /**
   * @return every key under {@code lake} in {@code conf}, in path order: the leaves, and the empty
   *     objects and lists (maps to fill in, such as {@code lake.gold.metrics})
   */
  static List<Key> keys(Config conf) {
    List<Key> out = new ArrayList<>();
    walk("lake", conf.getValue("lake"), "", out);
    return out;
  }

  /**
   * @return per key, what the config readers check it as, over {@link ConfigKeysTest#MODES}
   */
  static Map<String, Set<String>> checks() {
    Map<String, Set<String>> out = new TreeMap<>();
    for (List<String> mode : ConfigKeysTest.MODES) {
      ConfigChecks.record(
              () ->
                  ConfigKeysTest.readAll(
                      io.latelake.core.config.ConfigLoader.load(java.util.Optional.empty(), mode)))
          .forEach((k, v) -> out.computeIfAbsent(k, x -> new java.util.TreeSet<>()).addAll(v));
    }
    return out;
  }

  private static void walk(String path, ConfigValue v, String groupDoc, List<Key> out) {
    String own = String.join(" ", v.origin().comments()).replaceAll("\\s+", " ").trim();
    if (v instanceof ConfigObject o && !o.isEmpty()) {
      // a group's comment documents its keys that have none of their own (one level)
      Map<String, ConfigValue> sorted = new TreeMap<>(o);
      for (Map.Entry<String, ConfigValue> e : sorted.entrySet()) {
        String key = e.getKey().matches("[A-Za-z0-9_-]+") ? e.getKey() : "\"" + e.getKey() + "\"";
        walk(path + "." + key, e.getValue(), own, out);
      }
      return;
    }
    String doc = own.isEmpty() ? groupDoc : own;
    out.add(new Key(path, v.render(ConfigRenderOptions.concise()), doc));
  }

  /** The reference page for {@code conf}, with each key's check from {@code checks}. */
  static String markdown(Config conf, Map<String, Set<String>> checks) {
    StringBuilder md = new StringBuilder();
    md.append("# Configuration reference\n\n")
        .append("Every `lake.*` key with its default and what it does, generated from\n")
        .append("`conf/application.conf` (the one place a key's name, default and comment are\n")
        .append(
            "declared; shipped inside the jar) and, in the column \"checked as\", from the one\n")
        .append("config reader that reads and checks the key, by `ConfigReferenceTest`, which\n")
        .append("fails the build when this page and the two differ, when no reader checks a key,\n")
        .append("and when two readers check a key differently. A value outside its check stops\n")
        .append("the job before Spark starts (exit 2), naming the key. Further rules (ranges of\n")
        .append(
            "numbers, keys that must agree) are in the description. How settings are layered,\n")
        .append("secrets, the event schema and metrics:\n")
        .append("[configuration.md](configuration.md). A key without a comment of its own shows\n")
        .append("its group's comment. Defaults that an environment variable overrides\n")
        .append("(`${?VAR}` in the file): see configuration.md.\n\n")
        .append("| key | checked as | default | description |\n")
        .append("| --- | --- | --- | --- |\n");
    for (Key k : keys(conf)) {
      md.append("| `")
          .append(k.path())
          .append("` | ")
          .append(
              markdownText(String.join("; ", checks.getOrDefault(k.path(), Set.of("NOT CHECKED")))))
          .append(" | `")
          .append(k.value().replace("|", "\\|"))
          .append("` | ")
          .append(markdownText(k.doc()))
          .append(" |\n");
    }
    return md.toString();
  }

  /** {@code text} for a table cell: {@code |} escaped, {@code <} escaped outside code spans. */
  private static String markdownText(String text) {
    String[] parts = text.replace("|", "\\|").split("`", -1);
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < parts.length; i++) {
      out.append(i > 0 ? "`" : "").append(i % 2 == 0 ? parts[i].replace("<", "&lt;") : parts[i]);
    }
    return out.toString();
  }

  private static Config applicationConf() {
    return ConfigFactory.parseFile(
            REPO.resolve("conf/application.conf").toFile(),
            com.typesafe.config.ConfigParseOptions.defaults().setAllowMissing(false))
        .resolve(
            ConfigResolveOptions.defaults()
                .setUseSystemEnvironment(false)
                .setAllowUnresolved(true));
  }

  @Test
  void everyKeyIsCheckedByOneReader() {
    Map<String, Set<String>> checks = checks();
    List<String> notOne =
        keys(applicationConf()).stream()
            .map(Key::path)
            .filter(k -> checks.getOrDefault(k, Set.of()).size() != 1)
            .map(k -> k + " " + checks.getOrDefault(k, Set.of()))
            .toList();
    assertThat(notOne).as("keys checked by no reader, or by readers that disagree").isEmpty();
  }

  @Test
  void theReferencePageIsGeneratedFromTheDefaultsFileAndTheChecks() throws IOException {
    String generated = markdown(applicationConf(), checks());
    if (Boolean.getBoolean("latelake.write-config-reference")) {
      Files.writeString(REFERENCE, generated, StandardCharsets.UTF_8);
    }
    assertThat(Files.readString(REFERENCE, StandardCharsets.UTF_8))
        .as(
            "docs/configuration-reference.md is out of date: regenerate it with mvn -q -pl"
                + " bundle test -Dtest=ConfigReferenceTest"
                + " -Dlatelake.write-config-reference=true")
        .isEqualTo(generated);
  }

  @Test
  void everyKeyIsDocumented() {
    assertThat(keys(applicationConf()))
        .as("keys without a comment of their own or of their group in conf/application.conf")
        .filteredOn(k -> k.doc().isBlank())
        .isEmpty();
  }
}

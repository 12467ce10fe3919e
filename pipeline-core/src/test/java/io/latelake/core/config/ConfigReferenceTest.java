package io.latelake.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigRenderOptions;
import com.typesafe.config.ConfigResolveOptions;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/configuration-reference.md} is generated from {@code conf/application.conf}, the one
 * file that declares every {@code lake.*} key with its default and its comment: this test fails
 * when the two differ (or a key has no comment, its own or its group's), and rewrites the file when
 * run with {@code -Dlatelake.write-config-reference=true}:
 *
 * <pre>
 * mvn -q -pl pipeline-core test -Dtest=ConfigReferenceTest -Dlatelake.write-config-reference=true
 * </pre>
 */
class ConfigReferenceTest {
  private static final Path REPO =
      Path.of(System.getProperty("latelake.repo", "..")).toAbsolutePath().normalize();
  private static final Path REFERENCE = REPO.resolve("docs/configuration-reference.md");

  /** One key: its path, kind, default as HOCON, and comment. */
  record Key(String path, String kind, String value, String doc) {}

  /**
   * @return every key under {@code lake} in {@code conf}, in path order: the leaves, and the empty
   *     objects and lists (maps to fill in, such as {@code lake.gold.metrics})
   */
  static List<Key> keys(Config conf) {
    List<Key> out = new ArrayList<>();
    walk("lake", conf.getValue("lake"), "", out);
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
    out.add(new Key(path, kind(v), v.render(ConfigRenderOptions.concise()), doc));
  }

  private static String kind(ConfigValue v) {
    if (v.valueType() == ConfigValueType.STRING) {
      String s = (String) v.unwrapped();
      try {
        ConfigFactory.parseMap(Map.of("d", s)).getDuration("d");
        return "duration";
      } catch (RuntimeException e) {
        return "string";
      }
    }
    return v.valueType().name().toLowerCase(java.util.Locale.ROOT);
  }

  /** The reference page for {@code conf}. */
  static String markdown(Config conf) {
    StringBuilder md = new StringBuilder();
    md.append("# Configuration reference\n\n")
        .append("Every `lake.*` key with its default and what it does, generated from\n")
        .append("`conf/application.conf` (the one place a key is declared; shipped inside the\n")
        .append(
            "jar) by `ConfigReferenceTest`, which fails the build when this page and the file\n")
        .append("differ. How settings are layered, secrets, the event schema and metrics:\n")
        .append("[configuration.md](configuration.md). A key without a comment of its own shows\n")
        .append("its group's comment. Defaults that an environment variable overrides\n")
        .append("(`${?VAR}` in the file): see configuration.md.\n\n")
        .append("| key | kind | default | description |\n")
        .append("| --- | --- | --- | --- |\n");
    for (Key k : keys(conf)) {
      md.append("| `")
          .append(k.path())
          .append("` | ")
          .append(k.kind())
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
  void theReferencePageIsGeneratedFromTheDefaultsFile() throws IOException {
    String generated = markdown(applicationConf());
    if (Boolean.getBoolean("latelake.write-config-reference")) {
      Files.writeString(REFERENCE, generated, StandardCharsets.UTF_8);
    }
    assertThat(Files.readString(REFERENCE, StandardCharsets.UTF_8))
        .as(
            "docs/configuration-reference.md is out of date: regenerate it with mvn -q -pl"
                + " pipeline-core test -Dtest=ConfigReferenceTest"
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

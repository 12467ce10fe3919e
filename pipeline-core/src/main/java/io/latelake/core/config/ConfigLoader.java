package io.latelake.core.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigRenderOptions;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads the effective configuration: defaults ({@code conf/application.conf}, shipped in the jar)
 * &lt; a config file &lt; {@code key=value} overrides. Environment variables take part through
 * {@code ${?VAR}} substitutions in the files. Unknown keys under {@code lake.} are rejected.
 *
 * <p>Throws {@link LakeConfigException} for a missing or unparseable file, a malformed override, an
 * override outside {@code lake.}, an unknown key and invalid {@code lake.spark.conf} settings,
 * always naming the key or file. Secret values are masked in every message ({@link Secrets}).
 */
public final class ConfigLoader {
  private static final Logger LOG = LoggerFactory.getLogger(ConfigLoader.class);
  private static final String DEFAULTS_RESOURCE = "io/latelake/application.conf";

  /** Subtrees whose keys are user-chosen names, validated by their own typed config. */
  private static final List<String> OPEN_SUBTREES =
      List.of(
          "lake.gold.metrics",
          "lake.bronze.kafka.properties",
          "lake.spark.conf",
          "lake.sources-idle-after-per-source");

  /**
   * Keys that were replaced, with the key that now holds their concept. Setting one fails like any
   * unknown key, with the new key as the suggestion.
   */
  static final Map<String, String> REPLACED =
      Map.of("lake.profiler.correction-horizon", "lake.correction.horizon");

  private ConfigLoader() {}

  /**
   * @return the shipped defaults, unresolved
   */
  public static Config defaults() {
    Config defaults =
        ConfigFactory.parseResources(
            ConfigLoader.class.getClassLoader(),
            DEFAULTS_RESOURCE,
            ConfigParseOptions.defaults().setAllowMissing(false));
    return defaults;
  }

  /**
   * Loads and checks the effective configuration.
   *
   * @param file optional HOCON file ({@code --config})
   * @param overrides {@code key=value} strings ({@code --set}), later ones win
   * @return the resolved config (whole tree; read {@code lake.*})
   * @throws LakeConfigException on a missing file, a parse error, a bad override or unknown key
   */
  public static Config load(Optional<Path> file, List<String> overrides) {
    Config defaults = defaults();
    Config fromFile = ConfigFactory.empty();
    if (file.isPresent()) {
      Path path = file.get();
      if (!Files.isRegularFile(path)) {
        throw new LakeConfigException(
            "Cannot read config file '" + path + "': no such file (--config)");
      }
      try {
        fromFile =
            ConfigFactory.parseFile(
                path.toFile(), ConfigParseOptions.defaults().setAllowMissing(false));
      } catch (ConfigException e) {
        if (Secrets.defaults().isSecretValue(e.getMessage())) {
          int line = e.origin() == null ? -1 : e.origin().lineNumber();
          throw new LakeConfigException(
              "Cannot parse config file '"
                  + path
                  + "' at line "
                  + line
                  + " (parser message hidden: it quotes a value that looks like a secret)");
        }
        throw new LakeConfigException(
            "Cannot parse config file '" + path + "': " + e.getMessage(), e);
      }
    }
    Config fromOverrides = ConfigFactory.empty();
    for (String override : overrides) {
      fromOverrides = parseOverride(override).withFallback(fromOverrides);
    }
    Config merged;
    try {
      merged = fromOverrides.withFallback(fromFile).withFallback(defaults).resolve();
    } catch (ConfigException e) {
      throw new LakeConfigException("Cannot resolve configuration: " + e.getMessage(), e);
    }
    rejectUnknownKeys(merged, defaults.resolve());
    SparkConfOptions.fromConfig(merged);
    Secrets.remember(merged);
    return merged;
  }

  /**
   * Parses one {@code --set key=value}. Only keys under {@code lake.} can be set; the value is
   * never echoed when the key or the value is a secret ({@link Secrets}), nor is the parser's
   * message, which may quote it.
   */
  private static Config parseOverride(String override) {
    int eq = override.indexOf('=');
    String key = eq <= 0 ? override : override.substring(0, eq).trim();
    String value = eq <= 0 ? "" : override.substring(eq + 1);
    Secrets secrets = Secrets.defaults();
    boolean secret = secrets.isSecretKey(key) || secrets.isSecretValue(value);
    String shown =
        eq <= 0 ? (secret ? Secrets.MASK : override) : key + "=" + (secret ? Secrets.MASK : value);
    if (eq <= 0) {
      throw new LakeConfigException(
          "Invalid override '"
              + shown
              + "' for --set: expected key=value, e.g. "
              + "lake.silver.watermark-delay=\"5 minutes\"");
    }
    List<String> path;
    try {
      path = ConfigUtil.splitPath(key);
    } catch (ConfigException e) {
      throw new LakeConfigException(
          "Invalid override '"
              + shown
              + "' for --set: the key is not "
              + "a valid path (quote a name that holds dots, e.g. lake.spark.conf.\"spark.x.y\"="
              + "value)",
          secret ? null : e);
    }
    if (!path.get(0).equals("lake")) {
      throw new LakeConfigException(
          "Invalid override '"
              + shown
              + "' for --set: only keys "
              + "under lake. can be set; a Spark setting goes under lake.spark.conf, e.g. --set "
              + "'lake.spark.conf.\""
              + key.replace("\"", "")
              + "\"=...'");
    }
    try {
      return ConfigFactory.parseString(
          key + " = " + value, ConfigParseOptions.defaults().setOriginDescription("--set " + key));
    } catch (ConfigException e) {
      String why =
          secret
              ? "the value is not valid HOCON (parser message hidden: the key or "
                  + "value holds a secret)"
              : e.getMessage();
      throw new LakeConfigException(
          "Invalid override '" + shown + "' for --set: " + why, secret ? null : e);
    }
  }

  private static void rejectUnknownKeys(Config merged, Config defaults) {
    if (!merged.hasPath("lake")) {
      return;
    }
    List<String> known = new ArrayList<>();
    for (Map.Entry<String, ConfigValue> e : defaults.getConfig("lake").entrySet()) {
      known.add("lake." + e.getKey());
    }
    for (Map.Entry<String, ConfigValue> e : merged.getConfig("lake").entrySet()) {
      String key = "lake." + e.getKey();
      if (OPEN_SUBTREES.stream().anyMatch(p -> key.startsWith(p + "."))) {
        continue;
      }
      if (!defaults.hasPathOrNull(key)) {
        String hint =
            REPLACED.containsKey(key)
                ? "; did you mean '" + REPLACED.get(key) + "'? It replaced this key"
                : closest(key, known).map(k -> "; did you mean '" + k + "'?").orElse("");
        throw new LakeConfigException(
            "Unknown key '"
                + key
                + "' (set in "
                + e.getValue().origin().description()
                + ")"
                + hint);
      }
    }
  }

  public static Optional<String> closest(String key, List<String> known) {
    return known.stream()
        .min(Comparator.comparingInt(k -> distance(k, key)))
        .filter(k -> distance(k, key) <= Math.max(3, key.length() / 4));
  }

  /** Levenshtein distance. */
  private static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }

  /**
   * Renders the {@code lake} subtree as sorted {@code key = value} lines with secrets masked.
   *
   * @param config the effective config
   * @return one line per key, sorted
   */
  public static String describe(Config config) {
    Secrets secrets = Secrets.fromConfig(config);
    Map<String, String> sorted = new TreeMap<>();
    Set<Map.Entry<String, ConfigValue>> entries = config.getConfig("lake").entrySet();
    for (Map.Entry<String, ConfigValue> e : entries) {
      String key = "lake." + e.getKey();
      String value = e.getValue().render(ConfigRenderOptions.concise());
      if (secrets.isSecretKey(String.join(".", ConfigUtil.splitPath(key)))
          || secrets.isSecretValue(value)) {
        value = Secrets.MASK;
      }
      sorted.put(key, value);
    }
    StringBuilder sb = new StringBuilder();
    sorted.forEach((k, v) -> sb.append("  ").append(k).append(" = ").append(v).append('\n'));
    return sb.toString();
  }

  /**
   * Logs one INFO line (the lake's root and how many settings) and the effective config at DEBUG,
   * sorted, secrets masked ({@link #describe}): a scheduled command's log stays short.
   */
  public static void logEffective(Config config) {
    int settings = config.getConfig("lake").entrySet().size();
    LOG.info(
        "Configuration: lake.root = {}, {} settings (each one, sorted and secrets masked, at DEBUG:"
            + " logger {})",
        config.hasPath("lake.root")
            ? (Secrets.fromConfig(config).isSecretValue(config.getString("lake.root"))
                ? Secrets.MASK
                : config.getString("lake.root"))
            : "(not set)",
        settings,
        ConfigLoader.class.getName());
    if (LOG.isDebugEnabled()) {
      LOG.debug("Effective configuration:\n{}", describe(config));
    }
  }
}

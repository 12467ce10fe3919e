package io.latelake.core.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigValueType;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Typed, validated reads of single keys. Every method throws {@link LakeConfigException} naming the
 * key and the value when the value is missing or of the wrong shape.
 */
public final class Settings {
  private final Config config;
  private final String prefix;

  /**
   * @param config a resolved config
   * @param prefix the full path of {@code config} inside the effective config (for messages)
   */
  public Settings(Config config, String prefix) {
    this.config = config;
    this.prefix = prefix;
  }

  /** Settings of the whole effective config. */
  public static Settings of(Config root) {
    return new Settings(root, "");
  }

  /** Records that {@code path} was read as {@code check} ({@link ConfigChecks}). */
  private void checked(String path, String check) {
    ConfigChecks.checked(key(path), check);
  }

  public String key(String path) {
    return prefix.isEmpty() ? path : prefix + "." + path;
  }

  public Settings sub(String path) {
    require(path);
    try {
      Settings v = new Settings(config.getConfig(path), key(path));
      checked(path, "object");
      return v;
    } catch (ConfigException.WrongType e) {
      throw LakeConfigException.invalid(key(path), raw(path), "expected an object { ... }");
    }
  }

  public boolean has(String path) {
    return config.hasPath(path);
  }

  public Config raw() {
    return config;
  }

  private void require(String path) {
    if (!config.hasPath(path)) {
      throw new LakeConfigException("Missing required key '" + key(path) + "'");
    }
  }

  private String raw(String path) {
    try {
      return Secrets.defaults().mask(key(path), config.getValue(path).unwrapped());
    } catch (ConfigException e) {
      return "<missing>";
    }
  }

  /** A non-blank string. */
  public String string(String path) {
    String v = nonBlank(path);
    checked(path, "text, not blank");
    return v;
  }

  private String nonBlank(String path) {
    require(path);
    String v = scalarText(path);
    if (v.isEmpty()) {
      throw LakeConfigException.invalid(key(path), v, "must not be empty");
    }
    return v;
  }

  /**
   * @return the boolean at {@code path}
   * @throws LakeConfigException naming the key unless it is true or false
   */
  public boolean bool(String path) {
    require(path);
    try {
      boolean v = config.getBoolean(path);
      checked(path, "true | false");
      return v;
    } catch (com.typesafe.config.ConfigException e) {
      throw LakeConfigException.invalid(key(path), raw(path), "expected true or false");
    }
  }

  /** A string that may be empty. */
  public String optionalString(String path) {
    if (!config.hasPath(path)) {
      return "";
    }
    String v = scalarText(path);
    checked(path, "text");
    return v;
  }

  /** The trimmed text of a present value that is no object or list. */
  private String scalarText(String path) {
    ConfigValueType type = config.getValue(path).valueType();
    if (type == ConfigValueType.OBJECT || type == ConfigValueType.LIST) {
      throw LakeConfigException.invalid(key(path), raw(path), "expected a string");
    }
    return config.getString(path).trim();
  }

  /** A string from a fixed set, case-insensitive; returned lower-case. */
  public String oneOf(String path, Set<String> allowed) {
    String v = nonBlank(path).toLowerCase(Locale.ROOT);
    if (!allowed.contains(v)) {
      throw LakeConfigException.invalid(
          key(path),
          config.getString(path),
          "expected one of " + allowed.stream().sorted().toList());
    }
    checked(path, String.join(" | ", allowed.stream().sorted().toList()));
    return v;
  }

  /** A positive HOCON duration ("10 minutes"). */
  public Duration positiveDuration(String path) {
    Duration d = nonNegativeDuration(path);
    if (d.isZero() || d.isNegative()) {
      throw LakeConfigException.invalid(key(path), raw(path), "must be a positive duration");
    }
    checked(path, "duration > 0");
    return d;
  }

  /** A non-negative HOCON duration. */
  public Duration duration(String path) {
    Duration d = nonNegativeDuration(path);
    checked(path, "duration ≥ 0");
    return d;
  }

  private Duration nonNegativeDuration(String path) {
    require(path);
    try {
      Duration d = config.getDuration(path);
      if (d.isNegative()) {
        throw LakeConfigException.invalid(key(path), raw(path), "must not be negative");
      }
      return d;
    } catch (ConfigException.BadValue | ConfigException.WrongType e) {
      throw LakeConfigException.invalid(
          key(path), raw(path), "expected a duration such as '10 minutes', '30 s' or '250 ms'");
    }
  }

  /**
   * A list of positive HOCON durations ({@code [1 second, 5 minutes]}).
   *
   * @throws LakeConfigException "expected a list of durations" when an entry is not a duration,
   *     "each duration must be positive" for a zero or negative entry
   */
  public List<Duration> positiveDurations(String path) {
    require(path);
    List<Duration> v;
    try {
      v = config.getDurationList(path);
    } catch (ConfigException.WrongType | ConfigException.BadValue e) {
      throw LakeConfigException.invalid(
          key(path), raw(path), "expected a list of durations such as [1 second, 5 minutes]");
    }
    if (v.stream().anyMatch(d -> d.isZero() || d.isNegative())) {
      throw LakeConfigException.invalid(key(path), raw(path), "each duration must be positive");
    }
    checked(path, "list of durations > 0");
    return List.copyOf(v);
  }

  /** A whole number within [min, max]. */
  public int intBetween(String path, int min, int max) {
    return (int) longBetween(path, min, max);
  }

  /** A long within [min, max]. */
  public long longBetween(String path, long min, long max) {
    require(path);
    try {
      long v = config.getLong(path);
      if (v < min || v > max) {
        throw LakeConfigException.invalid(
            key(path), raw(path), "must be between " + min + " and " + max);
      }
      checked(path, ConfigChecks.range(min, max));
      return v;
    } catch (ConfigException.WrongType e) {
      throw LakeConfigException.invalid(key(path), raw(path), "expected a whole number");
    }
  }

  /**
   * A finite decimal number: a HOCON number, or a string holding one ({@code 0.5}, {@code "1e-3"}).
   * The one place where decimals are read; range checks are the caller's, with its own message.
   *
   * @throws LakeConfigException "expected a number" when the value is not a number, "expected a
   *     finite number" for NaN or an infinity
   */
  public double number(String path) {
    require(path);
    double v;
    try {
      v = config.getDouble(path);
    } catch (ConfigException.WrongType | ConfigException.BadValue e) {
      throw LakeConfigException.invalid(key(path), raw(path), "expected a number");
    }
    if (!Double.isFinite(v)) {
      throw LakeConfigException.invalid(key(path), raw(path), "expected a finite number");
    }
    checked(path, "number");
    return v;
  }

  /**
   * A list of finite decimal numbers (see {@link #number}).
   *
   * @throws LakeConfigException "expected a list of numbers" when the value is not a list of
   *     numbers, "expected finite numbers" when an entry is NaN or an infinity
   */
  public List<Double> numbers(String path) {
    require(path);
    List<Double> v;
    try {
      v = config.getDoubleList(path);
    } catch (ConfigException.WrongType | ConfigException.BadValue e) {
      throw LakeConfigException.invalid(key(path), raw(path), "expected a list of numbers");
    }
    if (v.stream().anyMatch(d -> !Double.isFinite(d))) {
      throw LakeConfigException.invalid(key(path), raw(path), "expected finite numbers");
    }
    checked(path, "list of numbers");
    return List.copyOf(v);
  }

  /** A list of non-blank strings. */
  public List<String> strings(String path) {
    require(path);
    try {
      List<String> v = config.getStringList(path);
      for (String s : v) {
        if (s.isBlank()) {
          throw LakeConfigException.invalid(key(path), v, "entries must not be empty");
        }
      }
      checked(path, "list of texts, none blank");
      return List.copyOf(v);
    } catch (ConfigException.WrongType e) {
      throw LakeConfigException.invalid(key(path), raw(path), "expected a list of strings");
    }
  }

  /** A list of objects. */
  public List<? extends Config> objects(String path) {
    require(path);
    try {
      List<? extends Config> v = config.getConfigList(path);
      checked(path, "list of objects");
      return v;
    } catch (ConfigException.WrongType e) {
      throw LakeConfigException.invalid(key(path), raw(path), "expected a list of objects");
    }
  }

  /**
   * An option map such as Kafka consumer properties or Spark settings ({@link OptionMap}).
   *
   * @return the options sorted by name; empty when the key is missing
   * @throws LakeConfigException naming the key and (masked) value when the value is not an object,
   *     or an option's value is null, an empty object or a list holding objects or lists
   */
  public Map<String, String> optionMap(String path) {
    if (!config.hasPath(path)) {
      return Map.of();
    }
    Map<String, String> v = OptionMap.read(key(path), config.getValue(path), raw(path));
    checked(path, "object of options");
    return v;
  }
}

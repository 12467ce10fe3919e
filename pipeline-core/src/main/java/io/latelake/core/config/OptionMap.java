package io.latelake.core.config;

import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** Reads an object of options (Kafka consumer properties, Spark settings) into a flat map. */
final class OptionMap {
  private OptionMap() {}

  /**
   * An option map such as Kafka consumer properties or Spark settings: an object whose keys are
   * option names. Keys come unquoted from the parsed object tree ({@code "security.protocol" = x}
   * and {@code security { protocol = x }} both give {@code security.protocol}); a list of scalars
   * becomes comma-separated text, as Kafka and Spark read lists.
   *
   * @param key the value's full key (for messages)
   * @param value the value at the key
   * @param shown the value as an error message shows it (secrets masked)
   * @return the options sorted by name
   * @throws LakeConfigException naming the key and (masked) value when the value is not an object,
   *     or an option's value is null, an empty object or a list holding objects or lists
   */
  static Map<String, String> read(String key, ConfigValue value, String shown) {
    if (value.valueType() != ConfigValueType.OBJECT) {
      throw LakeConfigException.invalid(
          key,
          shown,
          "expected an object of options, e.g. { \"security.protocol\" = \"SASL_SSL\" }, not "
              + value.valueType().name().toLowerCase(Locale.ROOT));
    }
    Map<String, String> out = new TreeMap<>();
    flatten(key, "", (ConfigObject) value, out);
    return Collections.unmodifiableMap(new LinkedHashMap<>(out));
  }

  private static void flatten(
      String where, String prefix, ConfigObject object, Map<String, String> out) {
    for (Map.Entry<String, ConfigValue> e : object.entrySet()) {
      String name = prefix + e.getKey();
      String full = where + ".\"" + name + "\"";
      ConfigValue v = e.getValue();
      switch (v.valueType()) {
        case OBJECT -> {
          ConfigObject child = (ConfigObject) v;
          if (child.isEmpty()) {
            throw LakeConfigException.invalid(full, "{}", "expected a value, not an empty object");
          }
          flatten(where, name + ".", child, out);
        }
        case NULL -> throw LakeConfigException.invalid(full, "null", "expected a value");
        case LIST -> {
          List<Object> items = ((ConfigList) v).unwrapped();
          if (items.stream().anyMatch(i -> i == null || i instanceof Map || i instanceof List)) {
            throw LakeConfigException.invalid(
                full,
                Secrets.defaults().mask(full, items),
                "expected a value or a list of plain values");
          }
          out.put(name, items.stream().map(String::valueOf).collect(Collectors.joining(",")));
        }
        default -> out.put(name, String.valueOf(v.unwrapped()));
      }
    }
  }
}

package io.latelake.bronze;

import io.latelake.core.config.ConfigLoader;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.config.Secrets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;
import org.apache.spark.sql.kafka010.KafkaSourceProvider$;

/**
 * Validates the Kafka settings of a stream and turns them into the options of Spark's Kafka source.
 *
 * <p>Each entry of an option map is either a Kafka consumer property (a name kafka-clients' {@link
 * ConsumerConfig#configNames()} knows; its value is checked with Kafka's own type and validator,
 * and it is passed as {@code kafka.<name>}) or one of the Spark Kafka source's own options in
 * {@link #SOURCE_OPTIONS} (passed as it is). Anything else is a configuration error, as are the
 * options latelake sets itself and the consumer properties Spark's source refuses.
 *
 * <p>{@value #ISOLATION_LEVEL} defaults to {@code read_committed}: records of aborted or open
 * transactions never reach a table; offsets taken by transaction markers are gaps, not losses.
 */
public final class KafkaOptions {
  /** The consumer property that decides whether aborted transactions are read. */
  public static final String ISOLATION_LEVEL = ConsumerConfig.ISOLATION_LEVEL_CONFIG;

  /** Its default for latelake's streams (Kafka's own default is read_uncommitted). */
  public static final String READ_COMMITTED = "read_committed";

  /** Spark Kafka source options a user may set (names as Spark's KafkaSourceProvider has them). */
  public static final Set<String> SOURCE_OPTIONS = sourceOptions();

  /** Options latelake sets itself, with the key that controls each (lower case, as Spark). */
  private static final Map<String, String> OWNED =
      Map.ofEntries(
          Map.entry("bootstrap.servers", "lake.bronze.kafka.bootstrap-servers"),
          Map.entry("subscribe", "lake.bronze.kafka.topics"),
          Map.entry("subscribepattern", "lake.bronze.kafka.topics"),
          Map.entry("assign", "lake.bronze.kafka.topics"),
          Map.entry("startingoffsets", "lake.bronze.kafka.starting-offsets"),
          Map.entry("maxoffsetspertrigger", "lake.bronze.kafka.max-offsets-per-trigger"),
          Map.entry("failondataloss", "nothing: bronze always fails rather than skip offsets"),
          Map.entry("includeheaders", "nothing: bronze reads no headers"));

  /** Consumer properties Spark's Kafka source sets itself and refuses (KafkaSourceProvider). */
  private static final Set<String> SPARK_REFUSES =
      Set.of(
          "auto.offset.reset",
          "key.deserializer",
          "value.deserializer",
          "enable.auto.commit",
          "interceptor.classes");

  private KafkaOptions() {}

  /**
   * @param key the config key of the map, for messages (e.g. {@code lake.bronze.kafka.properties})
   * @param options option names (unquoted) and values
   * @return the Spark Kafka source options: consumer properties as {@code kafka.<name>}, {@code
   *     kafka.isolation.level=read_committed} unless the map sets it, source options as given
   * @throws LakeConfigException naming the key (and the masked value) of the first bad option
   */
  public static Map<String, String> sourceOptions(String key, Map<String, String> options) {
    Map<String, String> out = new LinkedHashMap<>();
    out.put("kafka." + ISOLATION_LEVEL, READ_COMMITTED);
    ConfigDef consumer = ConsumerConfig.configDef();
    for (Map.Entry<String, String> e : options.entrySet()) {
      String name = e.getKey();
      String value = e.getValue();
      String full = key + ".\"" + name + "\"";
      String lower = name.toLowerCase(Locale.ROOT);
      String owned = OWNED.get(lower.startsWith("kafka.") ? lower.substring(6) : lower);
      if (owned != null) {
        throw new LakeConfigException(
            "Invalid key '" + full + "': latelake sets this option " + "itself; set " + owned);
      }
      if (SPARK_REFUSES.contains(name)) {
        throw new LakeConfigException(
            "Invalid key '"
                + full
                + "': Spark's Kafka source manages "
                + "this consumer property itself and does not accept it");
      }
      ConfigDef.ConfigKey def = consumer.configKeys().get(name);
      if (def != null) {
        check(full, name, value, def);
        out.put("kafka." + name, value);
      } else if (SOURCE_OPTIONS.contains(lower)) {
        out.put(name, value);
      } else {
        throw unknown(full, name);
      }
    }
    return out;
  }

  /**
   * @param consumerOptions Spark Kafka source options as {@link #sourceOptions} returns them
   * @return the {@code kafka.}-prefixed properties an admin client also knows, without prefix
   */
  public static Map<String, Object> adminProperties(Map<String, String> consumerOptions) {
    Map<String, Object> out = new LinkedHashMap<>();
    Set<String> admin = AdminClientConfig.configNames();
    consumerOptions.forEach(
        (k, v) -> {
          if (k.startsWith("kafka.") && admin.contains(k.substring(6))) {
            out.put(k.substring(6), v);
          }
        });
    return out;
  }

  /**
   * @param key the config key, e.g. {@code lake.bronze.kafka.topics[0]}
   * @param topic a topic name
   * @throws LakeConfigException when Kafka would refuse the name
   */
  public static void requireLegalTopic(String key, String topic) {
    try {
      Topic.validate(topic);
    } catch (InvalidTopicException e) {
      throw LakeConfigException.invalid(
          key,
          topic,
          "not a legal Kafka topic name (1 to "
              + 249
              + " characters of "
              + Topic.LEGAL_CHARS
              + ", not '.' or '..')");
    }
  }

  private static void check(String full, String name, String value, ConfigDef.ConfigKey def) {
    try {
      Object parsed = ConfigDef.parseType(name, value, def.type);
      if (def.validator != null) {
        def.validator.ensureValid(name, parsed);
      }
    } catch (ConfigException e) {
      String why =
          Secrets.defaults().isSecretKey(full)
              ? "not a valid "
                  + def.type.name().toLowerCase(Locale.ROOT)
                  + " for this Kafka property"
              : kafkaReason(e, name, value);
      throw LakeConfigException.invalid(full, value, why);
    }
  }

  /** Kafka's reason without its own "Invalid value X for configuration Y:" preamble. */
  private static String kafkaReason(ConfigException e, String name, String value) {
    String msg = String.valueOf(e.getMessage());
    String preamble = "Invalid value " + value + " for configuration " + name + ":";
    return "Kafka refuses it: "
        + (msg.startsWith(preamble) ? msg.substring(preamble.length()).trim() : msg);
  }

  private static LakeConfigException unknown(String full, String name) {
    List<String> known = new java.util.ArrayList<>(ConsumerConfig.configNames());
    known.addAll(SOURCE_OPTIONS);
    String bare = name.startsWith("kafka.") ? name.substring(6) : name;
    Optional<String> hint = ConfigLoader.closest(bare, known);
    return new LakeConfigException(
        "Unknown Kafka option '"
            + name
            + "' ("
            + full
            + "): neither "
            + "a Kafka consumer property nor a Spark Kafka source option"
            + hint.map(h -> "; did you mean '" + h + "'?").orElse(""));
  }

  private static Set<String> sourceOptions() {
    KafkaSourceProvider$ p = KafkaSourceProvider$.MODULE$;
    Set<String> out = new TreeSet<>();
    for (String option :
        List.of(
            p.MIN_PARTITIONS_OPTION_KEY(),
            p.MAX_RECORDS_PER_PARTITION_OPTION_KEY(),
            p.MIN_OFFSET_PER_TRIGGER(),
            p.MAX_TRIGGER_DELAY(),
            p.FETCH_OFFSET_NUM_RETRY(),
            p.FETCH_OFFSET_RETRY_INTERVAL_MS(),
            p.CONSUMER_POLL_TIMEOUT(),
            "groupIdPrefix")) {
      out.add(option.toLowerCase(Locale.ROOT));
    }
    return Set.copyOf(out);
  }
}

package io.latelake.core.config;

import com.typesafe.config.Config;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.hadoop.conf.ConfigRedactor;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.ConfigDef;

/**
 * Decides which configuration values are secrets and masks them, in the effective-configuration log
 * and in every error message.
 *
 * <p>A value is masked when
 *
 * <ul>
 *   <li>its key or the value itself matches Spark's redaction regex ({@value
 *       #SPARK_REDACTION_REGEX}, Spark's default of {@code spark.redaction.regex}) or the {@code
 *       spark.redaction.regex} configured under {@code lake.spark.conf}, as Spark itself redacts;
 *   <li>its key (or its last dotted part) is a Kafka client property of type {@code PASSWORD}
 *       ({@code sasl.jaas.config}, {@code ssl.keystore.key}, {@code ssl.key.password}, ...: read
 *       from kafka-clients' own config definitions);
 *   <li>Hadoop's {@link ConfigRedactor} considers its key sensitive ({@code
 *       hadoop.security.sensitive-config-keys}: {@code fs.azure.account.key.*}, {@code
 *       fs.s3a.secret.key}, ...);
 *   <li>its key contains one of {@link #CREDENTIAL_FRAGMENTS} (credentials named neither by Spark,
 *       Kafka nor Hadoop's defaults, e.g. {@code basic.auth.user.info}, {@code
 *       fs.gs.auth.service.account.private.key}, {@code fs.gs.encryption.key}).
 * </ul>
 *
 * <p>Spark masks with the same rule: every session latelake builds gets {@link
 * #sparkRedactionRegex(String)} as {@code spark.redaction.regex} (Spark's event log, web UI and its
 * REST API, the History Server) and {@link #sparkStringRedactionRegex(String)} as {@code
 * spark.redaction.string.regex} (texts Spark redacts, such as query plans).
 */
public final class Secrets {
  /** What a masked value is shown as. */
  public static final String MASK = "******";

  /** Spark's default {@code spark.redaction.regex} (checked against Spark in the tests). */
  public static final String SPARK_REDACTION_REGEX = "(?i)secret|password|token|access[.]?key";

  /** The Spark setting whose configured regex widens the masking. */
  public static final String SPARK_REDACTION_KEY = "spark.redaction.regex";

  /** Key fragments that name credentials besides Spark's, Kafka's and Hadoop's own lists. */
  public static final List<String> CREDENTIAL_FRAGMENTS =
      List.of(
          "private.key",
          "private-key",
          "user.info",
          "jaas",
          "credential",
          "sas.token",
          "auth.info",
          "encryption.key");

  private static final Pattern SPARK_DEFAULT = Pattern.compile(SPARK_REDACTION_REGEX);
  private static final Set<String> KAFKA_PASSWORDS = kafkaPasswordKeys();
  private static final ConfigRedactor HADOOP = new ConfigRedactor(new Configuration(false));

  /** Hadoop's default sensitive-key patterns, comma-separated (what {@link #HADOOP} uses). */
  private static final String HADOOP_SENSITIVE_KEYS =
      CommonConfigurationKeysPublic.HADOOP_SECURITY_SENSITIVE_CONFIG_KEYS_DEFAULT;

  private static final Secrets DEFAULT = new Secrets(null);

  /** Inner credentials of composite values such as a JAAS config: {@code password="..."}. */
  private static final Pattern INNER =
      Pattern.compile("(?i)(?:password|secret|token|key)\\s*=\\s*\"([^\"]+)\"");

  /** Secret values of the configurations loaded in this process, longest first. */
  private static volatile List<String> known = List.of();

  private final Pattern configured;

  private Secrets(Pattern configured) {
    this.configured = configured;
  }

  /**
   * @return the masking rules without a configured {@code spark.redaction.regex}
   */
  public static Secrets defaults() {
    return DEFAULT;
  }

  /**
   * @param config the effective config
   * @return the masking rules, widened by {@code lake.spark.conf."spark.redaction.regex"} when set
   * @throws LakeConfigException when the configured regex is not a valid regular expression
   */
  public static Secrets fromConfig(Config config) {
    String path = "lake.spark.conf";
    if (!config.hasPath(path)) {
      return DEFAULT;
    }
    String value = Settings.of(config).optionMap(path).get(SPARK_REDACTION_KEY);
    if (value == null) {
      return DEFAULT;
    }
    try {
      return new Secrets(Pattern.compile(value));
    } catch (PatternSyntaxException e) {
      throw new LakeConfigException(
          "Invalid value '"
              + value
              + "' for key '"
              + path
              + ".\""
              + SPARK_REDACTION_KEY
              + "\"': not a regular expression ("
              + e.getDescription()
              + ")");
    }
  }

  /**
   * One regular expression for Spark's {@code spark.redaction.regex} that matches every key this
   * class masks: Spark's default, the {@code spark.redaction.regex} under {@code lake.spark.conf},
   * the Kafka client's password keys, {@link #CREDENTIAL_FRAGMENTS}, Hadoop's sensitive-key
   * patterns ({@code hadoop.security.sensitive-config-keys}'s default), and values holding a JAAS
   * login module. Spark looks for the pattern anywhere in a key and in its value ({@code
   * Utils.redact}), as {@link #isSecretKey} does, so a key this class masks is masked by Spark too.
   *
   * @param sparkOwn a {@code spark.redaction.regex} that Spark's own configuration (spark-submit
   *     {@code --conf}, {@code spark-defaults.conf}) sets, or null; it is kept in the alternation
   * @return the regex, case-insensitive
   */
  public String sparkRedactionRegex(String sparkOwn) {
    List<String> parts = new ArrayList<>();
    parts.add("(?:" + SPARK_REDACTION_REGEX + ")");
    if (configured != null) {
      parts.add("(?:" + configured.pattern() + ")");
    }
    if (sparkOwn != null && !sparkOwn.isBlank()) {
      parts.add("(?:" + sparkOwn + ")");
    }
    KAFKA_PASSWORDS.stream().map(Pattern::quote).forEach(parts::add);
    CREDENTIAL_FRAGMENTS.stream().map(Pattern::quote).forEach(parts::add);
    for (String hadoop : HADOOP_SENSITIVE_KEYS.split(",")) {
      if (!hadoop.isBlank()) {
        parts.add("(?:" + hadoop.trim() + ")");
      }
    }
    parts.add("(?i:loginmodule)");
    return "(?i)" + String.join("|", parts);
  }

  /**
   * A regular expression for Spark's {@code spark.redaction.string.regex} that matches each secret
   * value of the configurations loaded in this process (see {@link #remember}), literally.
   *
   * @param sparkOwn a {@code spark.redaction.string.regex} that Spark's own configuration sets, or
   *     null; it is kept in the alternation
   * @return the regex, empty when there is neither a remembered secret nor {@code sparkOwn}
   */
  public static Optional<String> sparkStringRedactionRegex(String sparkOwn) {
    List<String> parts = new ArrayList<>();
    if (sparkOwn != null && !sparkOwn.isBlank()) {
      parts.add("(?:" + sparkOwn + ")");
    }
    known.stream().map(Pattern::quote).forEach(parts::add);
    return parts.isEmpty() ? Optional.empty() : Optional.of(String.join("|", parts));
  }

  /**
   * @param key a config key or option name, quoted HOCON path parts allowed
   * @return whether values under this key are secrets
   */
  public boolean isSecretKey(String key) {
    String k = key.replace("\"", "");
    if (SPARK_DEFAULT.matcher(k).find() || (configured != null && configured.matcher(k).find())) {
      return true;
    }
    String lower = k.toLowerCase(Locale.ROOT);
    for (String password : KAFKA_PASSWORDS) {
      if (lower.equals(password) || lower.endsWith("." + password)) {
        return true;
      }
    }
    if (CREDENTIAL_FRAGMENTS.stream().anyMatch(lower::contains)) {
      return true;
    }
    // ConfigRedactor matches its patterns anywhere in the key; try the key and its Hadoop part.
    int hadoop = k.indexOf("fs.");
    String hadoopKey = hadoop >= 0 ? k.substring(hadoop) : k;
    return !"x".equals(HADOOP.redact(k, "x")) || !"x".equals(HADOOP.redact(hadoopKey, "x"));
  }

  /**
   * @param text a value as the user wrote it
   * @return whether the value itself looks like a credential (Spark also redacts on values)
   */
  public boolean isSecretValue(String text) {
    return text != null
        && (SPARK_DEFAULT.matcher(text).find()
            || (configured != null && configured.matcher(text).find())
            || text.toLowerCase(Locale.ROOT).contains("loginmodule"));
  }

  /**
   * @param key the key the value belongs to
   * @param value the value
   * @return {@link #MASK} when the key or the value is secret, else the value as text
   */
  public String mask(String key, Object value) {
    String text = String.valueOf(value);
    return isSecretKey(key) || isSecretValue(text) ? MASK : text;
  }

  /**
   * Remembers the secret values of a loaded configuration (and the credentials inside composite
   * values such as a JAAS config), so that {@link #redact(String)} can hide them in the text of
   * errors raised by Spark or Kafka.
   *
   * @param config the effective config
   */
  public static void remember(Config config) {
    if (!config.hasPath("lake")) {
      return;
    }
    Secrets secrets = fromConfig(config);
    Set<String> values = new TreeSet<>(known);
    for (var e : config.getConfig("lake").entrySet()) {
      String key = String.join(".", com.typesafe.config.ConfigUtil.splitPath("lake." + e.getKey()));
      String value = String.valueOf(e.getValue().unwrapped());
      if (secrets.isSecretKey(key) || secrets.isSecretValue(value)) {
        values.add(value);
        var inner = INNER.matcher(value);
        while (inner.find()) {
          values.add(inner.group(1));
        }
      }
    }
    values.removeIf(v -> v.length() < 4);
    known =
        values.stream()
            .sorted(java.util.Comparator.comparingInt(String::length).reversed())
            .toList();
  }

  /**
   * @param text any text, e.g. an exception's message
   * @return the text with every remembered secret value replaced by {@link #MASK}
   */
  public static String redact(String text) {
    String out = text;
    for (String secret : known) {
      if (out != null && out.contains(secret)) {
        out = out.replace(secret, MASK);
      }
    }
    return out;
  }

  /**
   * @param error an exception
   * @return whether its message, or a cause's, holds a remembered secret value
   */
  public static boolean revealsSecret(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String text = String.valueOf(t);
      if (!text.equals(redact(text))) {
        return true;
      }
    }
    return false;
  }

  private static Set<String> kafkaPasswordKeys() {
    Set<String> out = new TreeSet<>();
    for (ConfigDef def : List.of(ConsumerConfig.configDef(), AdminClientConfig.configDef())) {
      def.configKeys()
          .forEach(
              (name, key) -> {
                if (key.type == ConfigDef.Type.PASSWORD) {
                  out.add(name.toLowerCase(Locale.ROOT));
                }
              });
    }
    return Set.copyOf(out);
  }
}

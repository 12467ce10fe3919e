package io.latelake.core.event;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import io.latelake.core.config.ConfigChecks;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.config.Settings;
import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Typed view of {@code lake.event}: which payload field is the event id and of which JSON type,
 * which is the event time and how it is written, which further fields become columns, the earliest
 * plausible event time and the future-skew tolerance.
 *
 * @param sourceName bronze {@code source} for inputs without a topic
 * @param idField payload field of the event id
 * @param idType JSON type the event id must have: {@link FieldType#STRING} (JSON strings only) or
 *     {@link FieldType#LONG} (JSON whole numbers only, kept as their decimal text)
 * @param timeField payload field of the event time
 * @param timeFormat how the event time is written
 * @param fields further fields parsed into columns
 * @param minEventTime earliest plausible event time (UTC); earlier ones are {@link
 *     ErrorCode#EVENT_TIME_BEFORE_MIN}
 * @param futureSkewTolerance how far event time may run ahead of enqueued time
 */
public record EventSchema(
    String sourceName,
    String idField,
    FieldType idType,
    String timeField,
    TimeFormat timeFormat,
    List<FieldSpec> fields,
    Instant minEventTime,
    Duration futureSkewTolerance)
    implements Serializable {

  /**
   * Column names latelake's tables use itself; a payload field must not take one of them: bronze's
   * fixed columns ({@link BronzeRows#LEADING_COLUMNS}, {@code error}, {@code error_detail}),
   * silver's {@code lateness_s}, gold's window and stamp columns.
   */
  public static final Set<String> RESERVED =
      Stream.concat(
              BronzeRows.LEADING_COLUMNS.stream(),
              Stream.of(
                  "error",
                  "error_detail",
                  "lateness_s",
                  "window_start",
                  "window_end",
                  "updated_at",
                  "corrected_at"))
          .collect(Collectors.toUnmodifiableSet());

  private static final Set<String> FIELD_KEYS = Set.of("name", "type", "blank-as-null");

  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  /**
   * Reads and validates {@code lake.event}.
   *
   * @throws LakeConfigException naming the key and value of the first problem
   */
  public static EventSchema fromConfig(Config root) {
    Settings s = Settings.of(root).sub("lake.event");
    String idField = identifier(s, "id-field", s.string("id-field"));
    String timeField = identifier(s, "time-field", s.string("time-field"));
    if (idField.equals(timeField)) {
      throw LakeConfigException.invalid(
          s.key("time-field"), timeField, "must differ from lake.event.id-field");
    }
    String formatName = s.string("time-format");
    TimeFormat format =
        TimeFormat.parse(formatName)
            .orElseThrow(
                () ->
                    LakeConfigException.invalid(
                        s.key("time-format"),
                        formatName,
                        "expected one of iso-8601, epoch-seconds, epoch-millis, epoch-micros, epoch-nanos, auto"));
    ConfigChecks.describe(
        s.key("time-format"),
        "iso-8601 | epoch-seconds | epoch-millis | epoch-micros | epoch-nanos | auto");
    List<FieldSpec> fields = new ArrayList<>();
    Set<String> seen = new HashSet<>(Set.of(idField, timeField));
    List<? extends Config> list = s.objects("fields");
    for (int i = 0; i < list.size(); i++) {
      Settings f = new Settings(list.get(i), s.key("fields") + "[" + i + "]");
      for (String k : list.get(i).root().keySet()) {
        if (!FIELD_KEYS.contains(k)) {
          throw new LakeConfigException(
              "Unknown key '" + f.key(k) + "': a field has only name, type and blank-as-null");
        }
      }
      String name = identifier(f, "name", f.string("name"));
      if (RESERVED.contains(name)) {
        throw LakeConfigException.invalid(
            f.key("name"),
            name,
            "is a column latelake writes itself; reserved names are "
                + RESERVED.stream().sorted().toList());
      }
      if (!seen.add(name)) {
        throw LakeConfigException.invalid(f.key("name"), name, "is declared twice");
      }
      String typeName = f.string("type");
      FieldType type =
          FieldType.parse(typeName)
              .orElseThrow(
                  () ->
                      LakeConfigException.invalid(
                          f.key("type"),
                          typeName,
                          "expected one of string, long, double, boolean, timestamp"));
      fields.add(new FieldSpec(name, type, blankAsNull(f, list.get(i))));
    }
    String idTypeName = s.string("id-type");
    FieldType idType =
        FieldType.parse(idTypeName)
            .filter(t -> t == FieldType.STRING || t == FieldType.LONG)
            .orElseThrow(
                () ->
                    LakeConfigException.invalid(
                        s.key("id-type"),
                        idTypeName,
                        "expected string (JSON strings only) or long (JSON whole numbers only)"));
    ConfigChecks.describe(s.key("id-type"), "string | long");
    return new EventSchema(
        s.string("source-name"),
        idField,
        idType,
        timeField,
        format,
        List.copyOf(fields),
        minEventTime(s),
        s.duration("future-skew-tolerance"));
  }

  private static boolean blankAsNull(Settings f, Config field) {
    if (!field.hasPath("blank-as-null")) {
      return false;
    }
    try {
      return field.getBoolean("blank-as-null");
    } catch (ConfigException.WrongType e) {
      throw LakeConfigException.invalid(
          f.key("blank-as-null"),
          field.getValue("blank-as-null").unwrapped(),
          "expected true or false");
    }
  }

  private static Instant minEventTime(Settings s) {
    String v = s.string("min-event-time");
    Instant t;
    try {
      t = Instant.parse(v);
    } catch (DateTimeParseException e) {
      throw LakeConfigException.invalid(
          s.key("min-event-time"),
          v,
          "expected an ISO-8601 UTC instant such as 2000-01-01T00:00:00Z");
    }
    if (!t.isAfter(Instant.EPOCH)) {
      // Spark's event-time watermark starts at the epoch: an event at or before it would be
      // dropped by silver's first micro-batch without passing through any count.
      throw LakeConfigException.invalid(
          s.key("min-event-time"),
          v,
          "must be after 1970-01-01T00:00:00Z, where Spark's event-time watermark starts");
    }
    ConfigChecks.describe(s.key("min-event-time"), "ISO-8601 UTC instant after 1970-01-01");
    return t;
  }

  private static String identifier(Settings s, String key, String value) {
    if (!IDENTIFIER.matcher(value).matches()) {
      throw LakeConfigException.invalid(
          s.key(key), value, "must be a plain identifier (letters, digits, underscore)");
    }
    ConfigChecks.describe(s.key(key), "identifier (letters, digits, underscore)");
    return value;
  }

  /**
   * @return names of the parsed extra fields, in configured order
   */
  public List<String> fieldNames() {
    return fields.stream().map(FieldSpec::name).toList();
  }

  /**
   * @return the declared type of a field, if the field is configured
   */
  public java.util.Optional<FieldType> typeOf(String name) {
    return fields.stream().filter(f -> f.name().equals(name)).map(FieldSpec::type).findFirst();
  }
}

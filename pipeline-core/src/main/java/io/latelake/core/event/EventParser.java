package io.latelake.core.event;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.IOException;
import java.io.Serializable;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.catalyst.util.DateTimeUtils$;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Reads one received record in a single pass: UTF-8 check, JSON parse (Jackson streaming, duplicate
 * keys and trailing values refused), event id, event time, configured fields and the payload's
 * enqueued time, with the first reason the record is not a valid event and a one-sentence detail.
 * Used by {@link BronzeRows} as a Spark UDF; plain Java, so tests can call {@link #parse} directly.
 *
 * <p>Result ({@link #resultSchema()}): {@code utf8} boolean (payload is valid UTF-8), {@code
 * event_id} string, {@code event_time_us} long (UTC microseconds since the epoch), {@code
 * enqueued_time_us} long (from the payload field, when configured), one column per configured field
 * ({@code f0, f1, ...}; timestamps as UTC microseconds), {@code error} string ({@link ErrorCode}
 * name, null when valid so far; FUTURE_EVENT_TIME is decided by the caller), {@code error_detail}
 * string.
 *
 * <p>Numbers are read as JSON parsers read them: {@code 1.796011199228E9} is a number of epoch
 * seconds, {@code 1e400} is a number too large for any time (not "Infinity"). A UTF-8 byte-order
 * mark before the object is skipped.
 */
public final class EventParser implements Serializable {
  private static final long serialVersionUID = 1L;

  /** A JSON number, also when it arrives inside a string. */
  private static final Pattern NUMBER = Pattern.compile("-?[0-9]+(\\.[0-9]+)?([eE][+-]?[0-9]+)?");

  private static final BigDecimal SECONDS_LIMIT = new BigDecimal("1e11");
  private static final BigDecimal MILLIS_LIMIT = new BigDecimal("1e14");
  private static final BigDecimal MICROS_LIMIT = new BigDecimal("1e17");
  private static final BigDecimal NANOS_LIMIT = new BigDecimal("1e20");
  private static final BigDecimal THOUSAND = BigDecimal.valueOf(1000);
  private static final BigDecimal MICROS_PER_SECOND = BigDecimal.valueOf(1_000_000);
  private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);
  private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

  /** Longest raw value quoted in a detail. */
  private static final int QUOTE_LIMIT = 80;

  private final EventSchema schema;
  private final String enqueuedTimeField;
  private final long minEventMicros;
  private final Map<String, Integer> slots;
  private transient JsonFactory json;

  /**
   * @param schema the configured event schema
   * @param enqueuedTimeField payload field holding the enqueued time, if the source reads it from
   *     the payload
   */
  public EventParser(EventSchema schema, Optional<String> enqueuedTimeField) {
    this.schema = schema;
    this.enqueuedTimeField = enqueuedTimeField.orElse(null);
    this.minEventMicros = ChronoUnit.MICROS.between(Instant.EPOCH, schema.minEventTime());
    Map<String, Integer> s = new HashMap<>();
    s.putIfAbsent(schema.idField(), s.size());
    s.putIfAbsent(schema.timeField(), s.size());
    for (FieldSpec f : schema.fields()) {
      s.putIfAbsent(f.name(), s.size());
    }
    enqueuedTimeField.ifPresent(f -> s.putIfAbsent(f, s.size()));
    this.slots = Map.copyOf(s);
  }

  /**
   * @return the schema of {@link #parse}'s result
   */
  public StructType resultSchema() {
    StructType t =
        new StructType()
            .add("utf8", DataTypes.BooleanType)
            .add("event_id", DataTypes.StringType)
            .add("event_time_us", DataTypes.LongType)
            .add("enqueued_time_us", DataTypes.LongType);
    for (int i = 0; i < schema.fields().size(); i++) {
      FieldType type = schema.fields().get(i).type();
      t = t.add("f" + i, type == FieldType.TIMESTAMP ? DataTypes.LongType : type.sparkType());
    }
    return t.add("error", DataTypes.StringType).add("error_detail", DataTypes.StringType);
  }

  /** A JSON value as the parser saw it: its token and its text (numbers keep their digits). */
  private record Value(JsonToken token, String text) {
    String kind() {
      return switch (token) {
        case START_OBJECT -> "a JSON object";
        case START_ARRAY -> "a JSON array";
        case VALUE_TRUE, VALUE_FALSE -> "the boolean " + text;
        case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "the number " + quote(text);
        case VALUE_STRING ->
            text.isBlank() ? "a blank string" : "the string \"" + quote(text) + "\"";
        default -> "null";
      };
    }

    boolean isNumber() {
      return token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT;
    }
  }

  /** Builds the result row while the checks run; the first error found wins. */
  private final class Result {
    final Object[] cells = new Object[4 + schema.fields().size() + 2];

    Row error(ErrorCode code, String detail) {
      cells[cells.length - 2] = code.name();
      cells[cells.length - 1] = detail;
      return RowFactory.create(cells);
    }

    Row valid() {
      return RowFactory.create(cells);
    }
  }

  /**
   * @param payload the raw record bytes (null for a record without value)
   * @return one row of {@link #resultSchema()}
   */
  public Row parse(byte[] payload) {
    Result r = new Result();
    r.cells[0] = Boolean.TRUE;
    if (payload == null) {
      return r.error(ErrorCode.MALFORMED, "The record has no payload.");
    }
    int bad = firstInvalidUtf8(payload);
    if (bad >= 0) {
      r.cells[0] = Boolean.FALSE;
      return r.error(
          ErrorCode.MALFORMED,
          "The payload is not valid UTF-8 text (invalid byte at "
              + "offset "
              + bad
              + "); its bytes are kept in payload_bytes.");
    }
    int nul = indexOfNul(payload);
    if (nul >= 0) {
      // UTF-8 JSON never holds a raw NUL byte (JSON escapes it as \u0000); UTF-16 and UTF-32 text
      // of ASCII characters is full of them, and Jackson would detect and accept that encoding.
      return r.error(
          ErrorCode.MALFORMED,
          "The payload holds a NUL byte (offset "
              + nul
              + "): it looks like UTF-16 or UTF-32 text, and input must be UTF-8.");
    }
    Value[] values = new Value[slots.size()];
    String problem = readObject(payload, values);
    if (problem != null) {
      return r.error(ErrorCode.MALFORMED, problem);
    }

    // Event id
    Value id = values[slots.get(schema.idField())];
    if (isAbsent(id)) {
      return r.error(
          ErrorCode.MISSING_EVENT_ID,
          "Event id field '" + schema.idField() + "' is absent, null or blank.");
    }
    if (schema.idType() == FieldType.STRING) {
      if (id.token() != JsonToken.VALUE_STRING) {
        return r.error(
            ErrorCode.INVALID_EVENT_ID,
            "Event id field '"
                + schema.idField()
                + "' holds "
                + id.kind()
                + ", but lake.event.id-type is string.");
      }
      int lone = unpairedSurrogate(id.text());
      if (lone >= 0) {
        return r.error(
            ErrorCode.INVALID_EVENT_ID,
            String.format(
                "Event id field '%s' holds an unpaired UTF-16 surrogate (\\u%04x at character "
                    + "%d), which has no UTF-8 form: distinct ids would be stored alike.",
                schema.idField(), (int) id.text().charAt(lone), lone));
      }
      r.cells[1] = id.text();
    } else {
      Long n = id.token() == JsonToken.VALUE_NUMBER_INT ? wholeNumber(id.text()) : null;
      if (n == null) {
        return r.error(
            ErrorCode.INVALID_EVENT_ID,
            "Event id field '"
                + schema.idField()
                + "' holds "
                + id.kind()
                + ", but lake.event.id-type is long (a JSON whole number).");
      }
      r.cells[1] = Long.toString(n);
    }

    // Event time
    Value time = values[slots.get(schema.timeField())];
    if (isAbsent(time)) {
      return r.error(
          ErrorCode.MISSING_EVENT_TIME,
          "Event time field '" + schema.timeField() + "' is absent, null or blank.");
    }
    Long eventMicros = readTime(time, schema.timeFormat());
    if (eventMicros == null) {
      return r.error(
          ErrorCode.INVALID_EVENT_TIME,
          "Event time field '"
              + schema.timeField()
              + "' holds "
              + time.kind()
              + ", which is not "
              + describe(schema.timeFormat())
              + " (lake.event.time-format = "
              + schema.timeFormat().configName()
              + ").");
    }
    r.cells[2] = eventMicros;
    if (eventMicros < minEventMicros) {
      return r.error(
          ErrorCode.EVENT_TIME_BEFORE_MIN,
          "Event time "
              + instant(eventMicros)
              + " is before lake.event.min-event-time "
              + schema.minEventTime()
              + ".");
    }

    // Configured fields: all are read; the first that cannot be read gives the detail.
    String invalidField = null;
    for (int i = 0; i < schema.fields().size(); i++) {
      FieldSpec f = schema.fields().get(i);
      Value v = values[slots.get(f.name())];
      if (v == null || v.token() == JsonToken.VALUE_NULL) {
        continue;
      }
      if (v.token() == JsonToken.VALUE_STRING && f.blankAsNull() && v.text().isBlank()) {
        continue;
      }
      Object typed = readField(v, f.type());
      if (typed == null) {
        if (invalidField == null) {
          invalidField =
              "Field '"
                  + f.name()
                  + "' holds "
                  + v.kind()
                  + ", which is not a "
                  + f.type().configName()
                  + (v.token() == JsonToken.VALUE_STRING && v.text().isBlank()
                      ? " (add blank-as-null = true to the field to read blanks as null)."
                      : ".");
        }
      } else {
        r.cells[4 + i] = typed;
      }
    }

    // Enqueued time from the payload (replays of captured data)
    if (enqueuedTimeField != null) {
      Value enq = values[slots.get(enqueuedTimeField)];
      Long enqMicros = isAbsent(enq) ? null : readTime(enq, TimeFormat.AUTO);
      r.cells[3] = enqMicros;
      if (invalidField != null) {
        return r.error(ErrorCode.INVALID_FIELD, invalidField);
      }
      if (enqMicros == null) {
        return r.error(
            ErrorCode.INVALID_ENQUEUED_TIME,
            "Enqueued time field '"
                + enqueuedTimeField
                + "' "
                + (isAbsent(enq)
                    ? "is absent, null or blank."
                    : "holds " + enq.kind() + ", which is not " + describe(TimeFormat.AUTO) + "."));
      }
    } else if (invalidField != null) {
      return r.error(ErrorCode.INVALID_FIELD, invalidField);
    }
    return r.valid();
  }

  private static boolean isAbsent(Value v) {
    return v == null
        || v.token() == JsonToken.VALUE_NULL
        || (v.token() == JsonToken.VALUE_STRING && v.text().isBlank());
  }

  private static int indexOfNul(byte[] payload) {
    for (int i = 0; i < payload.length; i++) {
      if (payload[i] == 0) {
        return i;
      }
    }
    return -1;
  }

  /**
   * @return the index of the first surrogate char without its pair, -1 when there is none
   */
  static int unpairedSurrogate(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Reads the payload as exactly one JSON object, keeping the values of the wanted fields.
   *
   * @return null when the payload is one JSON object, else the sentence saying why not
   */
  private String readObject(byte[] payload, Value[] values) {
    if (json == null) {
      json = JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
    }
    try (JsonParser p = json.createParser(payload)) {
      JsonToken first = p.nextToken();
      if (first == null) {
        return "The payload is empty.";
      }
      if (first != JsonToken.START_OBJECT) {
        if (first.isStructStart()) {
          p.skipChildren();
        }
        return "The payload is " + new Value(first, p.getText()).kind() + ", not a JSON object.";
      }
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        Integer slot = slots.get(p.currentName());
        JsonToken v = p.nextToken();
        if (slot == null) {
          p.skipChildren();
        } else if (v.isStructStart()) {
          values[slot] = new Value(v, null);
          p.skipChildren();
        } else {
          values[slot] = new Value(v, p.getText());
        }
      }
      if (t != JsonToken.END_OBJECT) {
        return "The payload is not a complete JSON object.";
      }
      JsonToken after = p.nextToken();
      if (after != null) {
        return "The payload holds more than one JSON value: "
            + new Value(after, p.getText()).kind()
            + " follows the first object.";
      }
      return null;
    } catch (JsonProcessingException e) {
      String what = e.getOriginalMessage();
      if (what != null && what.startsWith("Duplicate field")) {
        return "The payload is ambiguous JSON: "
            + what.replace("Duplicate field", "the key")
            + " occurs twice in one object.";
      }
      // Jackson's message up to its explanation: "Unrecognized token 'x'", "Unexpected
      // end-of-input".
      String head = what == null ? "a syntax error" : what.split("[:\\n]", 2)[0];
      long at = e.getLocation() == null ? -1 : e.getLocation().getByteOffset();
      return "The payload is not valid JSON: "
          + quote(head)
          + (at >= 0 ? " at byte " + at : "")
          + ".";
    } catch (IOException e) {
      return "The payload cannot be read as JSON: " + quote(String.valueOf(e.getMessage())) + ".";
    }
  }

  /**
   * @return UTC microseconds, or null when the value cannot be read in this format
   */
  static Long readTime(Value v, TimeFormat format) {
    String text;
    if (v.isNumber()) {
      text = v.text();
    } else if (v.token() == JsonToken.VALUE_STRING) {
      text = v.text().trim();
    } else {
      return null;
    }
    if (NUMBER.matcher(text).matches()) {
      BigDecimal n;
      try {
        n = new BigDecimal(text);
      } catch (NumberFormatException | ArithmeticException e) {
        return null;
      }
      return switch (format) {
        case ISO_8601 -> null;
        case EPOCH_SECONDS -> seconds(n);
        case EPOCH_MILLIS -> millis(n);
        case EPOCH_MICROS -> micros(n);
        case EPOCH_NANOS -> nanos(n);
        case AUTO -> {
          BigDecimal size = n.abs();
          if (size.compareTo(SECONDS_LIMIT) < 0) {
            yield seconds(n);
          } else if (size.compareTo(MILLIS_LIMIT) < 0) {
            yield millis(n);
          } else if (size.compareTo(MICROS_LIMIT) < 0) {
            yield micros(n);
          }
          yield nanos(n);
        }
      };
    }
    if (format != TimeFormat.ISO_8601 && format != TimeFormat.AUTO) {
      return null;
    }
    // Spark's own timestamp reading (what CAST(text AS TIMESTAMP) accepts), in UTC.
    scala.Option<Object> micros =
        DateTimeUtils$.MODULE$.stringToTimestamp(UTF8String.fromString(text), ZoneOffset.UTC);
    return micros.isDefined() ? (Long) micros.get() : null;
  }

  // Digits finer than a microsecond are cut off toward the past (FLOOR), as Spark does when it
  // reads a timestamp with more fraction digits than it keeps; never rounded, never via a double.

  private static Long seconds(BigDecimal n) {
    if (n.abs().compareTo(SECONDS_LIMIT) >= 0) {
      return null;
    }
    return n.multiply(MICROS_PER_SECOND).setScale(0, RoundingMode.FLOOR).longValueExact();
  }

  private static Long millis(BigDecimal n) {
    if (n.abs().compareTo(MILLIS_LIMIT) >= 0 || !whole(n)) {
      return null;
    }
    return n.longValue() * 1000L;
  }

  private static Long micros(BigDecimal n) {
    if (n.abs().compareTo(MICROS_LIMIT) >= 0 || !whole(n)) {
      return null;
    }
    return n.longValueExact();
  }

  private static Long nanos(BigDecimal n) {
    if (n.abs().compareTo(NANOS_LIMIT) >= 0 || !whole(n)) {
      return null;
    }
    return n.divide(THOUSAND, 0, RoundingMode.FLOOR).longValueExact();
  }

  private static boolean whole(BigDecimal n) {
    return n.signum() == 0 || n.stripTrailingZeros().scale() <= 0;
  }

  /**
   * @return the value as a long when it is a whole number within range, else null
   */
  private static Long wholeNumber(String text) {
    try {
      BigDecimal n = new BigDecimal(text.trim());
      if (n.signum() != 0 && n.stripTrailingZeros().scale() > 0
          || n.compareTo(LONG_MIN) < 0
          || n.compareTo(LONG_MAX) > 0) {
        return null;
      }
      return n.longValueExact();
    } catch (NumberFormatException | ArithmeticException e) {
      return null;
    }
  }

  /**
   * @return the typed value, or null when the value is not of the type
   */
  private static Object readField(Value v, FieldType type) {
    boolean numeric =
        v.isNumber()
            || v.token() == JsonToken.VALUE_STRING && NUMBER.matcher(v.text().trim()).matches();
    return switch (type) {
      case STRING -> v.token() == JsonToken.VALUE_STRING ? v.text() : null;
      case LONG -> numeric ? wholeNumber(v.text()) : null;
      case DOUBLE -> {
        if (!numeric) {
          yield null;
        }
        double d = Double.parseDouble(v.text().trim());
        yield Double.isFinite(d) ? d : null;
      }
      case BOOLEAN ->
          switch (v.token()) {
            case VALUE_TRUE -> Boolean.TRUE;
            case VALUE_FALSE -> Boolean.FALSE;
            case VALUE_STRING ->
                switch (v.text().trim().toLowerCase(Locale.ROOT)) {
                  case "true" -> Boolean.TRUE;
                  case "false" -> Boolean.FALSE;
                  default -> null;
                };
            default -> null;
          };
      case TIMESTAMP -> readTime(v, TimeFormat.AUTO);
    };
  }

  private static String describe(TimeFormat f) {
    return switch (f) {
      case ISO_8601 -> "an ISO-8601 timestamp";
      case EPOCH_SECONDS -> "a number of epoch seconds below 1e11";
      case EPOCH_MILLIS -> "a whole number of epoch milliseconds below 1e14";
      case EPOCH_MICROS -> "a whole number of epoch microseconds below 1e17";
      case EPOCH_NANOS -> "a whole number of epoch nanoseconds below 1e20";
      case AUTO ->
          "an ISO-8601 timestamp or a number of epoch seconds (below 1e11), milliseconds "
              + "(from 1e11), microseconds (from 1e14) or nanoseconds (from 1e17, below 1e20)";
    };
  }

  private static String instant(long micros) {
    return Instant.EPOCH.plus(micros, ChronoUnit.MICROS).toString();
  }

  private static String quote(String s) {
    return s.length() <= QUOTE_LIMIT ? s : s.substring(0, QUOTE_LIMIT) + "…";
  }

  /**
   * @return the offset of the first byte that breaks UTF-8, or -1 when all of it is UTF-8
   */
  static int firstInvalidUtf8(byte[] b) {
    int i = 0;
    while (i < b.length && b[i] >= 0) {
      i++;
    }
    if (i == b.length) {
      return -1;
    }
    ByteBuffer in = ByteBuffer.wrap(b);
    CoderResult result =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(in, CharBuffer.allocate(b.length), true);
    return result.isError() ? in.position() : -1;
  }
}

package io.latelake.bronze.parse;

import com.fasterxml.jackson.core.JsonToken;
import io.latelake.core.event.ErrorCode;
import io.latelake.core.event.EventSchema;
import io.latelake.core.event.FieldSpec;
import io.latelake.core.event.FieldType;
import io.latelake.core.event.TimeFormat;
import java.io.Serializable;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Reads one received record in a single pass: UTF-8 check, JSON parse (Jackson streaming, duplicate
 * keys and trailing values refused), event id, event time, configured fields and the payload's
 * enqueued time, with the first reason the record is not a valid event and a one-sentence detail.
 * Used by {@link BronzeParse} as a Spark UDF; plain Java, so tests can call {@link #parse}
 * directly.
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

  private final EventSchema schema;
  private final String enqueuedTimeField;
  private final long minEventMicros;
  private final JsonObjectReader reader;

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
    this.reader = new JsonObjectReader(s);
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
    int bad = PayloadText.firstInvalidUtf8(payload);
    if (bad >= 0) {
      r.cells[0] = Boolean.FALSE;
      return r.error(
          ErrorCode.MALFORMED,
          "The payload is not valid UTF-8 text (invalid byte at "
              + "offset "
              + bad
              + "); its bytes are kept in payload_bytes.");
    }
    int nul = PayloadText.indexOfNul(payload);
    if (nul >= 0) {
      // UTF-8 JSON never holds a raw NUL byte (JSON escapes it as \u0000); UTF-16 and UTF-32 text
      // of ASCII characters is full of them, and Jackson would detect and accept that encoding.
      return r.error(
          ErrorCode.MALFORMED,
          "The payload holds a NUL byte (offset "
              + nul
              + "): it looks like UTF-16 or UTF-32 text, and input must be UTF-8.");
    }
    JsonValue[] values = new JsonValue[reader.size()];
    String problem = reader.read(payload, values);
    if (problem != null) {
      return r.error(ErrorCode.MALFORMED, problem);
    }

    // Event id
    JsonValue id = values[reader.slot(schema.idField())];
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
      int lone = PayloadText.unpairedSurrogate(id.text());
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
      Long n = id.token() == JsonToken.VALUE_NUMBER_INT ? EventValues.wholeNumber(id.text()) : null;
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
    JsonValue time = values[reader.slot(schema.timeField())];
    if (isAbsent(time)) {
      return r.error(
          ErrorCode.MISSING_EVENT_TIME,
          "Event time field '" + schema.timeField() + "' is absent, null or blank.");
    }
    Long eventMicros = EventValues.readTime(time, schema.timeFormat());
    if (eventMicros == null) {
      return r.error(
          ErrorCode.INVALID_EVENT_TIME,
          "Event time field '"
              + schema.timeField()
              + "' holds "
              + time.kind()
              + ", which is not "
              + EventValues.describe(schema.timeFormat())
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
      JsonValue v = values[reader.slot(f.name())];
      if (v == null || v.token() == JsonToken.VALUE_NULL) {
        continue;
      }
      if (v.token() == JsonToken.VALUE_STRING && f.blankAsNull() && v.text().isBlank()) {
        continue;
      }
      Object typed = EventValues.readField(v, f.type());
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
      JsonValue enq = values[reader.slot(enqueuedTimeField)];
      Long enqMicros = isAbsent(enq) ? null : EventValues.readTime(enq, TimeFormat.AUTO);
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
                    : "holds "
                        + enq.kind()
                        + ", which is not "
                        + EventValues.describe(TimeFormat.AUTO)
                        + "."));
      }
    } else if (invalidField != null) {
      return r.error(ErrorCode.INVALID_FIELD, invalidField);
    }
    return r.valid();
  }

  private static boolean isAbsent(JsonValue v) {
    return v == null
        || v.token() == JsonToken.VALUE_NULL
        || (v.token() == JsonToken.VALUE_STRING && v.text().isBlank());
  }

  private static String instant(long micros) {
    return Instant.EPOCH.plus(micros, ChronoUnit.MICROS).toString();
  }
}

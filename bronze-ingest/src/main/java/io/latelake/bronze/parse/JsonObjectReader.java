package io.latelake.bronze.parse;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.IOException;
import java.io.Serializable;
import java.util.Map;

/**
 * Reads a payload as exactly one JSON object (Jackson streaming; duplicate keys and trailing values
 * refused), keeping the values of the wanted fields only.
 */
final class JsonObjectReader implements Serializable {
  private static final long serialVersionUID = 1L;

  private final Map<String, Integer> slots;
  private transient JsonFactory json;

  /**
   * @param slots the wanted fields, each with its index in the values array {@link #read} fills
   */
  JsonObjectReader(Map<String, Integer> slots) {
    this.slots = Map.copyOf(slots);
  }

  /**
   * @return how many values {@link #read} keeps
   */
  int size() {
    return slots.size();
  }

  /**
   * @return the index of a wanted field's value
   */
  int slot(String field) {
    return slots.get(field);
  }

  /**
   * Reads the payload as exactly one JSON object, keeping the values of the wanted fields.
   *
   * @return null when the payload is one JSON object, else the sentence saying why not
   */
  String read(byte[] payload, JsonValue[] values) {
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
        return "The payload is "
            + new JsonValue(first, p.getText()).kind()
            + ", not a JSON object.";
      }
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        Integer slot = slots.get(p.currentName());
        JsonToken v = p.nextToken();
        if (slot == null) {
          p.skipChildren();
        } else if (v.isStructStart()) {
          values[slot] = new JsonValue(v, null);
          p.skipChildren();
        } else {
          values[slot] = new JsonValue(v, p.getText());
        }
      }
      if (t != JsonToken.END_OBJECT) {
        return "The payload is not a complete JSON object.";
      }
      JsonToken after = p.nextToken();
      if (after != null) {
        return "The payload holds more than one JSON value: "
            + new JsonValue(after, p.getText()).kind()
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
          + JsonValue.quote(head)
          + (at >= 0 ? " at byte " + at : "")
          + ".";
    } catch (IOException e) {
      return "The payload cannot be read as JSON: "
          + JsonValue.quote(String.valueOf(e.getMessage()))
          + ".";
    }
  }
}

package io.latelake.bronze.parse;

import com.fasterxml.jackson.core.JsonToken;

/** A JSON value as the parser saw it: its token and its text (numbers keep their digits). */
record JsonValue(JsonToken token, String text) {
  String kind() {
    return switch (token) {
      case START_OBJECT -> "a JSON object";
      case START_ARRAY -> "a JSON array";
      case VALUE_TRUE, VALUE_FALSE -> "the boolean " + text;
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "the number " + quote(text);
      case VALUE_STRING -> text.isBlank() ? "a blank string" : "the string \"" + quote(text) + "\"";
      default -> "null";
    };
  }

  boolean isNumber() {
    return token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT;
  }

  /** Longest raw value quoted in a detail. */
  static final int QUOTE_LIMIT = 80;

  /**
   * @return {@code s}, cut to {@link #QUOTE_LIMIT} characters with an ellipsis
   */
  static String quote(String s) {
    return s.length() <= QUOTE_LIMIT ? s : s.substring(0, QUOTE_LIMIT) + "…";
  }
}

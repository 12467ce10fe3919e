package io.latelake.bronze.parse;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Checks of a record's bytes and text before and after the JSON parse ({@link EventParser}). */
final class PayloadText {
  private PayloadText() {}

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

  /**
   * @return the offset of the first NUL byte, -1 when there is none
   */
  static int indexOfNul(byte[] payload) {
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
}

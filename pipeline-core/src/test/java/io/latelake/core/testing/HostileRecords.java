package io.latelake.core.testing;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;

/**
 * A seeded corpus of hostile input records for the cases' event schema (string {@code event_id},
 * {@code event_time} auto, payload field {@code enqueued_time}, {@code page} string, {@code value}
 * long; default floor 2000-01-01, future-skew tolerance 5 minutes, 10-minute watermarks). Each
 * record carries the bronze reason it must get and what silver must do with it, so a test can
 * account for every record.
 *
 * <p>The corpus comes in steps (one landing file, one micro-batch each). Step k's valid events have
 * event times in [base + k·30 min, base + k·30 min + 5 min], the first one exactly at the start, so
 * the watermark after step k is at least base + k·30 min − 10 min; a {@code late} record in step k
 * (k ≥ 1) is dated base + (k−1)·30 min − 30 min, behind that watermark.
 */
public final class HostileRecords {
  /** What silver does with a record. */
  public enum Fate {
    /** Valid, written to silver. */
    SILVER,
    /** Valid, a copy of an event already in the same micro-batch: removed by silver's dedup. */
    DUPLICATE,
    /** Valid, behind the watermark: dropped by silver and counted in stream progress. */
    WATERMARK,
    /** Invalid: stays in bronze with a reason, never reaches silver. */
    REJECTED
  }

  /**
   * One input record.
   *
   * @param kind what kind of hostile input it is
   * @param bytes the record as sent (one line, no line break)
   * @param error the bronze reason it must get, null when valid
   * @param fate what silver does with it
   * @param eventId its event id when valid, else null
   */
  public record Record(String kind, byte[] bytes, String error, Fate fate, String eventId) {
    /**
     * @return the text when the bytes are UTF-8, else {@code hex:} and the bytes in hex
     */
    public String key() {
      return key(bytes);
    }

    /**
     * @return the comparison key of raw bytes, as {@link #key()}
     */
    public static String key(byte[] b) {
      try {
        return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(b)).toString();
      } catch (CharacterCodingException e) {
        return "hex:" + HexFormat.of().formatHex(b);
      }
    }
  }

  private record Kind(String name, boolean needsEarlierStep, Function<Ctx, List<Record>> make) {}

  /** What one record is built from: its id, event time, enqueued time and the random source. */
  private static final class Ctx {
    final Random rnd;
    final String id;
    final Instant time;
    final Instant enqueued;
    final Instant late;
    final String kind;

    Ctx(Random rnd, String id, Instant time, Instant enqueued, Instant late, String kind) {
      this.rnd = rnd;
      this.id = id;
      this.time = time;
      this.enqueued = enqueued;
      this.late = late;
      this.kind = kind;
    }

    String page() {
      return PAGES[rnd.nextInt(PAGES.length)];
    }

    /** A JSON object from raw JSON values, in this order. */
    static String obj(Object... kv) {
      StringBuilder b = new StringBuilder("{");
      for (int i = 0; i < kv.length; i += 2) {
        if (i > 0) {
          b.append(',');
        }
        b.append('"').append(kv[i]).append("\":").append(kv[i + 1]);
      }
      return b.append('}').toString();
    }

    static String q(Object s) {
      return "\"" + s + "\"";
    }

    /** A valid event with these raw JSON values replaced (null value: field left out). */
    String event(Object... overrides) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("event_id", q(id));
      m.put("event_time", q(time));
      m.put("enqueued_time", q(enqueued));
      m.put("page", q(page()));
      m.put("value", rnd.nextInt(100));
      for (int i = 0; i < overrides.length; i += 2) {
        if (overrides[i + 1] == null) {
          m.remove((String) overrides[i]);
        } else {
          m.put((String) overrides[i], overrides[i + 1]);
        }
      }
      List<Object> kv = new ArrayList<>();
      m.forEach(
          (k, v) -> {
            kv.add(k);
            kv.add(v);
          });
      return obj(kv.toArray());
    }

    List<Record> valid(String text) {
      return valid(id, text);
    }

    List<Record> valid(String eventId, String text) {
      return List.of(new Record(kind, utf8(text), null, Fate.SILVER, eventId));
    }

    List<Record> bad(String error, String text) {
      return List.of(new Record(kind, utf8(text), error, Fate.REJECTED, null));
    }

    List<Record> bad(String error, byte[] bytes) {
      return List.of(new Record(kind, bytes, error, Fate.REJECTED, null));
    }
  }

  private static final String[] PAGES = {"home", "pricing", "docs"};
  private static final String MALFORMED = "MALFORMED";
  private static final String MISSING_ID = "MISSING_EVENT_ID";
  private static final String INVALID_ID = "INVALID_EVENT_ID";
  private static final String MISSING_TIME = "MISSING_EVENT_TIME";
  private static final String INVALID_TIME = "INVALID_EVENT_TIME";
  private static final String BEFORE_MIN = "EVENT_TIME_BEFORE_MIN";
  private static final String INVALID_FIELD = "INVALID_FIELD";
  private static final String INVALID_ENQ = "INVALID_ENQUEUED_TIME";
  private static final String FUTURE = "FUTURE_EVENT_TIME";

  private static final List<Kind> KINDS =
      List.of(
          // Valid events, written in every way JSON and the time formats allow.
          kind("iso-utc", c -> c.valid(c.event())),
          kind(
              "iso-offset",
              c ->
                  c.valid(
                      c.event(
                          "event_time",
                          Ctx.q(c.time.atOffset(java.time.ZoneOffset.ofHours(2)).toString())))),
          kind(
              "iso-fraction",
              c -> c.valid(c.event("event_time", Ctx.q(c.time.plusNanos(123_456_000))))),
          kind(
              "iso-space",
              c ->
                  c.valid(
                      c.event(
                          "event_time",
                          Ctx.q(c.time.toString().replace('T', ' ').replace("Z", ""))))),
          kind("epoch-seconds", c -> c.valid(c.event("event_time", c.time.getEpochSecond()))),
          kind(
              "epoch-seconds-fraction",
              c -> c.valid(c.event("event_time", c.time.getEpochSecond() + ".25"))),
          kind(
              "epoch-seconds-exponent",
              c ->
                  c.valid(
                      c.event(
                          "event_time",
                          String.format(
                              java.util.Locale.ROOT, "%.9E", (double) c.time.getEpochSecond())))),
          kind(
              "epoch-seconds-string",
              c -> c.valid(c.event("event_time", Ctx.q(c.time.getEpochSecond())))),
          kind("epoch-millis", c -> c.valid(c.event("event_time", c.time.toEpochMilli()))),
          kind("byte-order-mark", c -> c.valid("\uFEFF" + c.event())),
          kind("unicode-page", c -> c.valid(c.event("page", Ctx.q("ページ-é-" + c.rnd.nextInt(3))))),
          kind("emoji-page", c -> c.valid(c.event("page", Ctx.q("\uD83D\uDE00")))),
          kind("escaped-page", c -> c.valid(c.event("page", Ctx.q("\\u00e9t\\u00e9\\t\\\"q\\\"")))),
          kind("blank-page", c -> c.valid(c.event("page", Ctx.q("")))),
          kind("whitespace-page", c -> c.valid(c.event("page", Ctx.q("  ")))),
          kind("null-page", c -> c.valid(c.event("page", "null"))),
          kind("absent-page", c -> c.valid(c.event("page", null))),
          kind("long-page", c -> c.valid(c.event("page", Ctx.q("p".repeat(5000))))),
          kind("value-as-string", c -> c.valid(c.event("value", Ctx.q(c.rnd.nextInt(50))))),
          kind("value-exponent", c -> c.valid(c.event("value", "7e1"))),
          kind("value-negative", c -> c.valid(c.event("value", "-5"))),
          kind("value-absent", c -> c.valid(c.event("value", null))),
          kind(
              "unknown-nested-fields",
              c ->
                  c.valid(
                      c.event(
                          "meta",
                          "{\"a\":[1,{\"b\":null}],\"event_id\":\"shadow\"}",
                          "tags",
                          "[\"x\",\"y\"]"))),
          kind("nested-50-deep", c -> c.valid(c.event("deep", "[".repeat(50) + "]".repeat(50)))),
          kind(
              "spaces-and-tabs",
              c ->
                  c.valid(
                      " { "
                          + c.event()
                              .substring(1)
                              .replace(",\"", " ,\t\"")
                              .replace("\":", "\" : ")
                              .replace("}", " } "))),
          kind("trailing-whitespace", c -> c.valid(c.event() + "  \t ")),
          kind(
              "id-with-spaces",
              c -> c.valid(" " + c.id + " ", c.event("event_id", Ctx.q(" " + c.id + " ")))),
          kind(
              "id-long",
              c ->
                  c.valid(
                      c.id + "-" + "x".repeat(1000),
                      c.event("event_id", Ctx.q(c.id + "-" + "x".repeat(1000))))),
          kind(
              "keys-reordered",
              c ->
                  c.valid(
                      Ctx.obj(
                          "value",
                          3,
                          "page",
                          Ctx.q(c.page()),
                          "enqueued_time",
                          Ctx.q(c.enqueued),
                          "event_time",
                          Ctx.q(c.time),
                          "event_id",
                          Ctx.q(c.id)))),
          kind(
              "duplicate-copy",
              c -> {
                String text = c.event();
                return List.of(
                    new Record(c.kind, utf8(text), null, Fate.SILVER, c.id),
                    new Record(c.kind, utf8(text), null, Fate.DUPLICATE, c.id));
              }),
          kind(
              "duplicate-resent",
              c ->
                  List.of(
                      new Record(c.kind, utf8(c.event()), null, Fate.SILVER, c.id),
                      new Record(
                          c.kind,
                          utf8(c.event("enqueued_time", Ctx.q(c.enqueued.plusSeconds(60)))),
                          null,
                          Fate.DUPLICATE,
                          c.id))),
          new Kind(
              "late",
              true,
              c ->
                  List.of(
                      new Record(
                          c.kind,
                          utf8(c.event("event_time", Ctx.q(c.late))),
                          null,
                          Fate.WATERMARK,
                          c.id))),
          // Not one JSON object.
          kind("empty-line", c -> c.bad(MALFORMED, "")),
          kind("whitespace-line", c -> c.bad(MALFORMED, "   ")),
          kind("json-null", c -> c.bad(MALFORMED, "null")),
          kind("json-array", c -> c.bad(MALFORMED, "[" + c.event() + "]")),
          kind("json-number", c -> c.bad(MALFORMED, "42")),
          kind("json-string", c -> c.bad(MALFORMED, Ctx.q(c.id))),
          kind(
              "truncated",
              c -> {
                String e = c.event();
                return c.bad(MALFORMED, e.substring(0, 1 + c.rnd.nextInt(e.length() - 1)));
              }),
          kind(
              "two-objects",
              c -> c.bad(MALFORMED, c.event() + c.event("event_id", Ctx.q(c.id + "-2")))),
          kind("object-then-garbage", c -> c.bad(MALFORMED, c.event() + " trailing")),
          kind(
              "duplicate-key",
              c ->
                  c.bad(
                      MALFORMED, c.event().replace("{", "{\"event_id\":\"other-" + c.id + "\","))),
          kind("duplicate-key-nested", c -> c.bad(MALFORMED, c.event("meta", "{\"k\":1,\"k\":2}"))),
          kind("garbage", c -> c.bad(MALFORMED, "not json " + c.rnd.nextInt())),
          kind("trailing-comma", c -> c.bad(MALFORMED, c.event().replace("}", ",}"))),
          kind("single-quotes", c -> c.bad(MALFORMED, c.event().replace('"', '\''))),
          kind("nan-literal", c -> c.bad(MALFORMED, c.event("value", "NaN"))),
          kind("comment", c -> c.bad(MALFORMED, "/* c */" + c.event())),
          kind(
              "nested-2000-deep",
              c -> c.bad(MALFORMED, c.event("deep", "[".repeat(2000) + "]".repeat(2000)))),
          kind(
              "latin1-bytes",
              c ->
                  c.bad(
                      MALFORMED,
                      c.event("page", Ctx.q("caf\u00e9")).getBytes(StandardCharsets.ISO_8859_1))),
          kind(
              "binary-garbage",
              c -> {
                byte[] b = new byte[8 + c.rnd.nextInt(24)];
                c.rnd.nextBytes(b);
                b[0] = (byte) 0xff;
                for (int i = 0; i < b.length; i++) {
                  if (b[i] == '\n' || b[i] == '\r') {
                    b[i] = (byte) 0xfe;
                  }
                }
                return c.bad(MALFORMED, b);
              }),
          // The event id.
          kind("id-absent", c -> c.bad(MISSING_ID, c.event("event_id", null))),
          kind("id-null", c -> c.bad(MISSING_ID, c.event("event_id", "null"))),
          kind("id-blank", c -> c.bad(MISSING_ID, c.event("event_id", Ctx.q(" ")))),
          kind(
              "id-object",
              c -> c.bad(INVALID_ID, c.event("event_id", "{\"id\":\"" + c.id + "\"}"))),
          kind("id-array", c -> c.bad(INVALID_ID, c.event("event_id", "[\"" + c.id + "\"]"))),
          kind("id-boolean", c -> c.bad(INVALID_ID, c.event("event_id", "true"))),
          kind("id-number", c -> c.bad(INVALID_ID, c.event("event_id", "7"))),
          // The event time.
          kind("time-absent", c -> c.bad(MISSING_TIME, c.event("event_time", null))),
          kind("time-null", c -> c.bad(MISSING_TIME, c.event("event_time", "null"))),
          kind("time-blank", c -> c.bad(MISSING_TIME, c.event("event_time", Ctx.q("")))),
          kind("time-text", c -> c.bad(INVALID_TIME, c.event("event_time", Ctx.q("yesterday")))),
          kind("time-object", c -> c.bad(INVALID_TIME, c.event("event_time", "{\"t\":1}"))),
          kind("time-boolean", c -> c.bad(INVALID_TIME, c.event("event_time", "false"))),
          kind("time-1e400", c -> c.bad(INVALID_TIME, c.event("event_time", "1e400"))),
          kind(
              "time-beyond-nanos",
              c -> c.bad(INVALID_TIME, c.event("event_time", "100000000000000000000"))),
          kind(
              "time-year-0001",
              c -> c.bad(BEFORE_MIN, c.event("event_time", Ctx.q("0001-01-01T00:00:00Z")))),
          kind(
              "time-negative-epoch",
              c -> c.bad(BEFORE_MIN, c.event("event_time", "-" + (1 + c.rnd.nextInt(1_000_000))))),
          kind("time-epoch-zero", c -> c.bad(BEFORE_MIN, c.event("event_time", "0"))),
          kind(
              "time-1999",
              c -> c.bad(BEFORE_MIN, c.event("event_time", Ctx.q("1999-12-31T23:59:59Z")))),
          kind(
              "time-future",
              c ->
                  c.bad(FUTURE, c.event("event_time", Ctx.q(c.enqueued.plus(Duration.ofDays(1)))))),
          kind(
              "time-year-9999",
              c -> c.bad(FUTURE, c.event("event_time", Ctx.q("9999-12-31T23:59:59Z")))),
          // Configured fields and the enqueued time.
          kind("page-object", c -> c.bad(INVALID_FIELD, c.event("page", "{\"p\":\"home\"}"))),
          kind("page-array", c -> c.bad(INVALID_FIELD, c.event("page", "[\"home\"]"))),
          kind("page-number", c -> c.bad(INVALID_FIELD, c.event("page", "404"))),
          kind("value-text", c -> c.bad(INVALID_FIELD, c.event("value", Ctx.q("many")))),
          kind("value-fraction", c -> c.bad(INVALID_FIELD, c.event("value", "2.5"))),
          kind("value-1e400", c -> c.bad(INVALID_FIELD, c.event("value", "1e400"))),
          kind("value-blank", c -> c.bad(INVALID_FIELD, c.event("value", Ctx.q("")))),
          kind("value-boolean", c -> c.bad(INVALID_FIELD, c.event("value", "true"))),
          kind(
              "value-too-big", c -> c.bad(INVALID_FIELD, c.event("value", "92233720368547758070"))),
          kind("enqueued-absent", c -> c.bad(INVALID_ENQ, c.event("enqueued_time", null))),
          kind("enqueued-text", c -> c.bad(INVALID_ENQ, c.event("enqueued_time", Ctx.q("soon")))));

  private HostileRecords() {}

  private static Kind kind(String name, Function<Ctx, List<Record>> make) {
    return new Kind(name, false, make);
  }

  /**
   * @return the names of all kinds, in a fixed order
   */
  public static List<String> kinds() {
    return KINDS.stream().map(Kind::name).toList();
  }

  /**
   * @param seed random seed: the same seed gives the same records
   * @param steps how many steps (micro-batches)
   * @param perStep records per step beyond the one of each kind the first step holds
   * @param base start of step 0's event times
   * @return the records of each step; every kind occurs at least once over all steps
   */
  public static List<List<Record>> generate(long seed, int steps, int perStep, Instant base) {
    Random rnd = new Random(seed);
    int[] counter = {0};
    List<List<Record>> out = new ArrayList<>();
    for (int k = 0; k < steps; k++) {
      Instant start = base.plus(Duration.ofMinutes(30L * k));
      Instant late = start.minus(Duration.ofMinutes(60));
      List<Record> step = new ArrayList<>();
      // The first record is dated at the step's start: the watermark after it is known.
      step.addAll(make(KINDS.get(0), rnd, counter, start, late, 0));
      List<Kind> todo = new ArrayList<>();
      if (k <= 1) {
        // Steps 0 and 1 hold every kind once ("late" needs a step before it).
        for (Kind kind : KINDS) {
          if (kind.needsEarlierStep() == (k == 1)) {
            todo.add(kind);
          }
        }
      }
      while (todo.size() < perStep) {
        Kind kind = KINDS.get(rnd.nextInt(KINDS.size()));
        if (!kind.needsEarlierStep() || k > 0) {
          todo.add(kind);
        }
      }
      for (Kind kind : todo) {
        step.addAll(make(kind, rnd, counter, start, late, 1 + rnd.nextInt(300)));
      }
      out.add(step);
    }
    return out;
  }

  private static List<Record> make(
      Kind kind, Random rnd, int[] counter, Instant start, Instant late, int offsetSeconds) {
    Instant time = start.plusSeconds(Math.min(offsetSeconds, 300));
    Instant enqueued = time.plusSeconds(1 + rnd.nextInt(30));
    String id = "h-" + (++counter[0]);
    return kind.make().apply(new Ctx(rnd, id, time, enqueued, late, kind.name()));
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}

package io.latelake.bronze.parse;

import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.core.config.ConfigLoader;
import io.latelake.core.event.EventSchema;
import io.latelake.core.testing.HostileRecords;
import io.latelake.core.testing.SparkTestBase;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

class BronzeParseTest extends SparkTestBase {
  private static final String ENQ = ",\"enqueued_time\":\"2030-01-01T00:00:00Z\"";

  private Dataset<Row> raw(String... lines) {
    return spark
        .createDataset(List.of(lines), Encoders.STRING())
        .toDF("payload")
        .selectExpr(
            "payload",
            "'web' AS source",
            "CAST(NULL AS INT) AS kafka_partition",
            "CAST(NULL AS BIGINT) AS kafka_offset",
            "'f.jsonl' AS source_file",
            "CAST(NULL AS TIMESTAMP) AS enqueued_time",
            "CAST(NULL AS INT) AS timestamp_type");
  }

  /** Records as Kafka delivers them: bytes, cast to a string as the Kafka source does. */
  private Dataset<Row> rawBytes(byte[]... records) {
    return spark
        .createDataset(List.of(records), Encoders.BINARY())
        .toDF("value")
        .selectExpr(
            "CAST(value AS STRING) AS payload",
            "'events' AS source",
            "0 AS kafka_partition",
            "CAST(1 AS BIGINT) AS kafka_offset",
            "CAST(NULL AS STRING) AS source_file",
            "TIMESTAMP '2024-05-14 10:05:00' AS enqueued_time",
            "1 AS timestamp_type");
  }

  private EventSchema schema(String... sets) {
    List<String> all =
        new ArrayList<>(
            List.of("lake.event.fields=[{name=page, type=string}, {name=value, type=long}]"));
    all.addAll(List.of(sets));
    return EventSchema.fromConfig(ConfigLoader.load(Optional.empty(), all));
  }

  /**
   * @return "event_id|event_time|value|error|error_detail" per record, in input order
   */
  private List<String> parse(EventSchema schema, String... lines) {
    return BronzeParse.parse(raw(lines), schema, Optional.of("enqueued_time"))
        .selectExpr(
            "concat_ws('|', coalesce(event_id, '-'), "
                + "coalesce(date_format(event_time, \"yyyy-MM-dd'T'HH:mm:ss.SSS\"), '-'), "
                + "coalesce(cast(value AS STRING), '-'), coalesce(error, 'OK'), "
                + "coalesce(error_detail, '-'))")
        .as(Encoders.STRING())
        .collectAsList();
  }

  private static String ev(String id, String time, String more) {
    return "{\"event_id\":" + id + ",\"event_time\":" + time + more + ENQ + "}";
  }

  @Test
  void everyRecordBecomesOneRowWithItsReason() {
    String enq = "\"enqueued_time\":\"2024-05-14T10:05:00Z\"";
    List<String> rows =
        parse(
            schema(),
            "{\"event_id\":\"a\",\"event_time\":\"2024-05-14T10:01:00Z\"," + enq + ",\"value\":3}",
            "{\"event_id\":\"b\",\"event_time\":\"2024-05-14T10:01:00Z\"",
            "",
            "[1,2,3]",
            "{\"event_time\":\"2024-05-14T10:01:00Z\"," + enq + "}",
            "{\"event_id\":\"\",\"event_time\":\"2024-05-14T10:01:00Z\"," + enq + "}",
            "{\"event_id\":\"c\"," + enq + "}",
            "{\"event_id\":\"d\",\"event_time\":\"yesterday\"," + enq + "}",
            "{\"event_id\":\"e\",\"event_time\":\"2024-05-14T10:01:00Z\","
                + enq
                + ",\"value\":\"x\"}",
            "{\"event_id\":\"f\",\"event_time\":\"2024-05-14T10:01:00Z\"}",
            "{\"event_id\":\"g\",\"event_time\":\"2024-05-14T10:11:00Z\"," + enq + "}");
    assertThat(rows)
        .containsExactly(
            "a|2024-05-14T10:01:00.000|3|OK|-",
            "-|-|-|MALFORMED|The payload is not valid JSON: Unexpected end-of-input at byte 51.",
            "-|-|-|MALFORMED|The payload is empty.",
            "-|-|-|MALFORMED|The payload is a JSON array, not a JSON object.",
            "-|-|-|MISSING_EVENT_ID|Event id field 'event_id' is absent, null or blank.",
            "-|-|-|MISSING_EVENT_ID|Event id field 'event_id' is absent, null or blank.",
            "c|-|-|MISSING_EVENT_TIME|Event time field 'event_time' is absent, null or blank.",
            "d|-|-|INVALID_EVENT_TIME|Event time field 'event_time' holds the string \"yesterday\", "
                + "which is not an ISO-8601 timestamp or a number of epoch seconds (below 1e11), "
                + "milliseconds (from 1e11), microseconds (from 1e14) or nanoseconds (from 1e17, "
                + "below 1e20) (lake.event.time-format = auto).",
            "e|2024-05-14T10:01:00.000|-|INVALID_FIELD|Field 'value' holds the string \"x\", which "
                + "is not a long.",
            "f|2024-05-14T10:01:00.000|-|INVALID_ENQUEUED_TIME|Enqueued time field 'enqueued_time' "
                + "is absent, null or blank.",
            "g|2024-05-14T10:11:00.000|-|FUTURE_EVENT_TIME|Event time is ahead of the enqueued time "
                + "by more than 300 s (lake.event.future-skew-tolerance).");
  }

  @Test
  void timeFormatsAreReadInUtcWithoutWrongYears() {
    List<String> auto =
        parse(
            schema(),
            ev("\"ms\"", "1715680860000", ""),
            ev("\"s\"", "1715680860", ""),
            ev("\"frac\"", "\"1715680860.25\"", ""),
            ev("\"iso\"", "\"2024-05-14T12:01:00+02:00\"", ""),
            ev("\"huge\"", "999999999999999999999", ""));
    assertThat(auto)
        .containsExactly(
            "ms|2024-05-14T10:01:00.000|-|OK|-",
            "s|2024-05-14T10:01:00.000|-|OK|-",
            "frac|2024-05-14T10:01:00.250|-|OK|-",
            "iso|2024-05-14T10:01:00.000|-|OK|-",
            "huge|-|-|INVALID_EVENT_TIME|Event time field 'event_time' holds the number "
                + "999999999999999999999, which is not an ISO-8601 timestamp or a number of epoch "
                + "seconds (below 1e11), milliseconds (from 1e11), microseconds (from 1e14) or "
                + "nanoseconds (from 1e17, below 1e20) (lake.event.time-format = auto).");
    assertThat(parse(schema("lake.event.time-format=iso-8601"), ev("\"ms\"", "1715680860000", "")))
        .containsExactly(
            "ms|-|-|INVALID_EVENT_TIME|Event time field 'event_time' holds the "
                + "number 1715680860000, which is not an ISO-8601 timestamp "
                + "(lake.event.time-format = iso-8601).");
    assertThat(
            parse(
                schema("lake.event.time-format=epoch-seconds"),
                ev("\"s\"", "1715680860", ""),
                ev("\"ms\"", "1715680860000", "")))
        .containsExactly(
            "s|2024-05-14T10:01:00.000|-|OK|-",
            "ms|-|-|INVALID_EVENT_TIME|Event time field 'event_time' holds the number "
                + "1715680860000, which is not a number of epoch seconds below 1e11 "
                + "(lake.event.time-format = epoch-seconds).");
    assertThat(
            parse(
                schema("lake.event.time-format=epoch-millis"),
                ev("\"ms\"", "1715680860000", ""),
                ev("\"e\"", "1.71568086E12", ""),
                ev("\"half\"", "1715680860000.5", "")))
        .containsExactly(
            "ms|2024-05-14T10:01:00.000|-|OK|-",
            "e|2024-05-14T10:01:00.000|-|OK|-",
            "half|-|-|INVALID_EVENT_TIME|Event time field 'event_time' holds the number "
                + "1715680860000.5, which is not a whole number of epoch milliseconds below 1e14 "
                + "(lake.event.time-format = epoch-millis).");
  }

  /** Case C40: epoch numbers in s, ms, µs and ns and a 9-digit string, truncated, never rounded. */
  @Test
  void epochNumbersInEveryUnitAndNineFractionDigitsAreTruncatedToTheMicrosecond() {
    List<String> auto =
        parse(
            schema(),
            ev("\"c40-p1\"", "1715688299", ""),
            ev("\"c40-p2\"", "1715688299999", ""),
            ev("\"c40-p3\"", "1715688299999999", ""),
            ev("\"c40-p4\"", "1715688299999999999", ""),
            ev("\"c40-p5\"", "\"2024-05-14T12:04:59.999999999Z\"", ""),
            ev("\"c40-p6\"", "1715688300", ""),
            ev("\"frac-s\"", "1715688299.9999999", ""));
    assertThat(auto)
        .extracting(r -> r.substring(0, r.indexOf("|-|")))
        .containsExactly(
            "c40-p1|2024-05-14T12:04:59.000",
            "c40-p2|2024-05-14T12:04:59.999",
            "c40-p3|2024-05-14T12:04:59.999",
            "c40-p4|2024-05-14T12:04:59.999",
            "c40-p5|2024-05-14T12:04:59.999",
            "c40-p6|2024-05-14T12:05:00.000",
            "frac-s|2024-05-14T12:04:59.999");
    List<Row> micros =
        BronzeParse.parse(
                raw(
                    ev("\"c40-p3\"", "1715688299999999", ""),
                    ev("\"c40-p4\"", "1715688299999999999", ""),
                    ev("\"c40-p5\"", "\"2024-05-14T12:04:59.999999999Z\"", ""),
                    ev("\"frac-s\"", "1715688299.9999999", "")),
                schema(),
                Optional.of("enqueued_time"))
            .selectExpr("unix_micros(event_time)")
            .collectAsList();
    assertThat(micros)
        .extracting(r -> r.getLong(0))
        .containsExactly(
            1715688299999999L, 1715688299999999L, 1715688299999999L, 1715688299999999L);
    assertThat(
            parse(
                schema("lake.event.time-format=epoch-micros"),
                ev("\"us\"", "1715688299999999", ""),
                ev("\"half\"", "1715688299999999.5", "")))
        .containsExactly(
            "us|2024-05-14T12:04:59.999|-|OK|-",
            "half|-|-|INVALID_EVENT_TIME|Event time field 'event_time' holds the number "
                + "1715688299999999.5, which is not a whole number of epoch microseconds below "
                + "1e17 (lake.event.time-format = epoch-micros).");
    assertThat(
            parse(
                schema("lake.event.time-format=epoch-nanos"),
                ev("\"ns\"", "1715688299999999999", "")))
        .containsExactly("ns|2024-05-14T12:04:59.999|-|OK|-");
  }

  @Test
  void eventTimesBeforeTheFloorGetTheirOwnReason() {
    List<String> rows =
        parse(
            schema(),
            ev("\"y1\"", "\"0001-01-01T00:00:00Z\"", ""),
            ev("\"neg\"", "-1", ""),
            ev("\"zero\"", "0", ""),
            ev("\"y1969\"", "\"1969-12-31T23:59:59Z\"", ""),
            ev("\"floor\"", "\"2000-01-01T00:00:00Z\"", ""),
            ev("\"before\"", "\"1999-12-31T23:59:59.999999Z\"", ""));
    assertThat(rows)
        .containsExactly(
            "y1|0001-01-01T00:00:00.000|-|EVENT_TIME_BEFORE_MIN|Event time 0001-01-01T00:00:00Z is "
                + "before lake.event.min-event-time 2000-01-01T00:00:00Z.",
            "neg|1969-12-31T23:59:59.000|-|EVENT_TIME_BEFORE_MIN|Event time 1969-12-31T23:59:59Z is "
                + "before lake.event.min-event-time 2000-01-01T00:00:00Z.",
            "zero|1970-01-01T00:00:00.000|-|EVENT_TIME_BEFORE_MIN|Event time 1970-01-01T00:00:00Z "
                + "is before lake.event.min-event-time 2000-01-01T00:00:00Z.",
            "y1969|1969-12-31T23:59:59.000|-|EVENT_TIME_BEFORE_MIN|Event time 1969-12-31T23:59:59Z "
                + "is before lake.event.min-event-time 2000-01-01T00:00:00Z.",
            "floor|2000-01-01T00:00:00.000|-|OK|-",
            "before|1999-12-31T23:59:59.999|-|EVENT_TIME_BEFORE_MIN|Event time "
                + "1999-12-31T23:59:59.999999Z is before lake.event.min-event-time "
                + "2000-01-01T00:00:00Z.");
    assertThat(
            parse(
                schema("lake.event.min-event-time=\"1970-01-01T00:00:00.000001Z\""),
                ev("\"y1999\"", "\"1999-12-31T23:59:59Z\"", ""),
                ev("\"tiny\"", "0.000001", ""),
                ev("\"zero\"", "0", "")))
        .containsExactly(
            "y1999|1999-12-31T23:59:59.000|-|OK|-",
            "tiny|1970-01-01T00:00:00.000|-|OK|-",
            "zero|1970-01-01T00:00:00.000|-|EVENT_TIME_BEFORE_MIN|Event time "
                + "1970-01-01T00:00:00Z is before lake.event.min-event-time "
                + "1970-01-01T00:00:00.000001Z.");
  }

  @Test
  void theConfiguredIdTypeDecidesWhichIdsAreValid() {
    List<String> strings =
        parse(
            schema(),
            ev("{\"a\":1}", "1715680860", ""),
            ev("[1,2]", "1715680860", ""),
            ev("true", "1715680860", ""),
            ev("42", "1715680860", ""),
            ev("\"42\"", "1715680860", ""),
            ev("\" x \"", "1715680860", ""));
    String bad = "|-|-|INVALID_EVENT_ID|Event id field 'event_id' holds ";
    assertThat(strings)
        .containsExactly(
            "-" + bad + "a JSON object, but lake.event.id-type is string.",
            "-" + bad + "a JSON array, but lake.event.id-type is string.",
            "-" + bad + "the boolean true, but lake.event.id-type is string.",
            "-" + bad + "the number 42, but lake.event.id-type is string.",
            "42|2024-05-14T10:01:00.000|-|OK|-",
            " x |2024-05-14T10:01:00.000|-|OK|-");
    List<String> longs =
        parse(
            schema("lake.event.id-type=long"),
            ev("42", "1715680860", ""),
            ev("-7", "1715680860", ""),
            ev("\"42\"", "1715680860", ""),
            ev("4.5", "1715680860", ""),
            ev("9223372036854775808", "1715680860", ""));
    String badLong = ", but lake.event.id-type is long (a JSON whole number).";
    assertThat(longs)
        .containsExactly(
            "42|2024-05-14T10:01:00.000|-|OK|-",
            "-7|2024-05-14T10:01:00.000|-|OK|-",
            "-" + bad + "the string \"42\"" + badLong,
            "-" + bad + "the number 4.5" + badLong,
            "-" + bad + "the number 9223372036854775808" + badLong);
  }

  @Test
  void fieldsTakeOnlyValuesOfTheirType() {
    List<String> rows =
        parse(
            schema(),
            ev("\"obj\"", "1715680860", ",\"page\":{\"p\":1}"),
            ev("\"arr\"", "1715680860", ",\"page\":[\"a\"]"),
            ev("\"num\"", "1715680860", ",\"page\":5"),
            ev("\"bool\"", "1715680860", ",\"value\":true"),
            ev("\"text\"", "1715680860", ",\"value\":\"7\""),
            ev("\"exp\"", "1715680860", ",\"value\":7e2"),
            ev("\"frac\"", "1715680860", ",\"value\":7.5"));
    String bad = "|2024-05-14T10:01:00.000|-|INVALID_FIELD|Field ";
    assertThat(rows)
        .containsExactly(
            "obj" + bad + "'page' holds a JSON object, which is not a string.",
            "arr" + bad + "'page' holds a JSON array, which is not a string.",
            "num" + bad + "'page' holds the number 5, which is not a string.",
            "bool" + bad + "'value' holds the boolean true, which is not a long.",
            "text|2024-05-14T10:01:00.000|7|OK|-",
            "exp|2024-05-14T10:01:00.000|700|OK|-",
            "frac" + bad + "'value' holds the number 7.5, which is not a long.");
  }

  @Test
  void twoObjectsInOneRecordAndDuplicateKeysAreMalformed() {
    String a = ev("\"a\"", "1715680860", "");
    List<String> rows =
        parse(
            schema(),
            a + ev("\"b\"", "1715680860", ""),
            "{\"event_id\":\"a\",\"event_id\":\"b\",\"event_time\":1715680860" + ENQ + "}",
            "{\"event_id\":\"a\",\"x\":{\"k\":1,\"k\":2},\"event_time\":1715680860" + ENQ + "}",
            a + " garbage",
            a + "  \t");
    assertThat(rows)
        .containsExactly(
            "-|-|-|MALFORMED|The payload holds more than one JSON value: a JSON object follows the "
                + "first object.",
            "-|-|-|MALFORMED|The payload is ambiguous JSON: the key 'event_id' occurs twice in one "
                + "object.",
            "-|-|-|MALFORMED|The payload is ambiguous JSON: the key 'k' occurs twice in one object.",
            "-|-|-|MALFORMED|The payload is not valid JSON: Unrecognized token 'garbage' at byte 87.",
            "a|2024-05-14T10:01:00.000|-|OK|-");
  }

  @Test
  void utf16And32TextAndUnpairedSurrogatesInIdsAreRefused() {
    String json = "{\"event_id\":\"u1\",\"event_time\":1715680860}";
    byte[] utf16le = json.getBytes(StandardCharsets.UTF_16LE);
    byte[] utf16be = json.getBytes(StandardCharsets.UTF_16BE);
    byte[] utf32 = json.getBytes(java.nio.charset.Charset.forName("UTF-32LE"));
    byte[] lone =
        "{\"event_id\":\"a\\ud800b\",\"event_time\":1715680860}".getBytes(StandardCharsets.UTF_8);
    byte[] pair =
        "{\"event_id\":\"a\\ud83d\\ude00\",\"event_time\":1715680860}"
            .getBytes(StandardCharsets.UTF_8);
    List<String> rows =
        BronzeParse.parse(rawBytes(utf16le, utf16be, utf32, lone, pair), schema(), Optional.empty())
            .selectExpr(
                "concat_ws('|', coalesce(event_id, '-'), coalesce(error, 'OK'), "
                    + "coalesce(error_detail, '-'))")
            .as(Encoders.STRING())
            .collectAsList();
    assertThat(rows)
        .containsExactly(
            "-|MALFORMED|The payload holds a NUL byte (offset 1): it looks like UTF-16 or UTF-32 "
                + "text, and input must be UTF-8.",
            "-|MALFORMED|The payload holds a NUL byte (offset 0): it looks like UTF-16 or UTF-32 "
                + "text, and input must be UTF-8.",
            "-|MALFORMED|The payload holds a NUL byte (offset 1): it looks like UTF-16 or UTF-32 "
                + "text, and input must be UTF-8.",
            "-|INVALID_EVENT_ID|Event id field 'event_id' holds an unpaired UTF-16 surrogate "
                + "(\\ud800 at character 1), which has no UTF-8 form: distinct ids would be stored "
                + "alike.",
            "a\ud83d\ude00|OK|-");
  }

  @Test
  void bytesThatAreNotUtf8AreKeptInPayloadBytes() {
    byte[] good =
        "{\"event_id\":\"\u00e9\",\"event_time\":1715680860}".getBytes(StandardCharsets.UTF_8);
    byte[] latin1 =
        "{\"event_id\":\"\u00e9\",\"event_time\":1715680860}".getBytes(StandardCharsets.ISO_8859_1);
    byte[] binary = {(byte) 0xff, 0x00, (byte) 0xfe, 0x7b};
    List<Row> rows =
        BronzeParse.parse(rawBytes(good, latin1, binary), schema(), Optional.empty())
            .select("event_id", "payload", "payload_bytes", "error", "error_detail")
            .collectAsList();
    assertThat(rows.get(0).getString(0)).isEqualTo("\u00e9");
    assertThat(rows.get(0).getString(1))
        .isEqualTo("{\"event_id\":\"\u00e9\",\"event_time\":" + "1715680860}");
    assertThat(rows.get(0).isNullAt(2)).isTrue();
    assertThat(rows.get(0).isNullAt(3)).isTrue();
    assertThat((byte[]) rows.get(1).get(2)).isEqualTo(latin1);
    assertThat(rows.get(1).getString(3)).isEqualTo("MALFORMED");
    assertThat(rows.get(1).getString(4))
        .isEqualTo(
            "The payload is not valid UTF-8 text "
                + "(invalid byte at offset 13); its bytes are kept in payload_bytes.");
    assertThat((byte[]) rows.get(2).get(2)).isEqualTo(binary);
    assertThat(rows.get(2).getString(4))
        .isEqualTo(
            "The payload is not valid UTF-8 text "
                + "(invalid byte at offset 0); its bytes are kept in payload_bytes.");
  }

  @Test
  void blankStringsStayBlankUnlessTheFieldSaysOtherwise() {
    String sql =
        "concat_ws('|', event_id, coalesce(concat('[', page, ']'), 'NULL'), "
            + "coalesce(cast(value AS STRING), 'NULL'), coalesce(error, 'OK'), "
            + "coalesce(error_detail, '-'))";
    String[] lines = {
      ev("\"empty\"", "1715680860", ",\"page\":\"\""),
      ev("\"space\"", "1715680860", ",\"page\":\"  \""),
      ev("\"null\"", "1715680860", ",\"page\":null"),
      ev("\"absent\"", "1715680860", ""),
      ev("\"blank-long\"", "1715680860", ",\"value\":\"\"")
    };
    List<String> kept =
        BronzeParse.parse(raw(lines), schema(), Optional.of("enqueued_time"))
            .selectExpr(sql)
            .as(Encoders.STRING())
            .collectAsList();
    assertThat(kept)
        .containsExactly(
            "empty|[]|NULL|OK|-",
            "space|[  ]|NULL|OK|-",
            "null|NULL|NULL|OK|-",
            "absent|NULL|NULL|OK|-",
            "blank-long|NULL|NULL|INVALID_FIELD|Field 'value' holds a blank string, which is not a "
                + "long (add blank-as-null = true to the field to read blanks as null).");
    EventSchema blankAsNull =
        schema(
            "lake.event.fields=[{name=page, type=string, "
                + "blank-as-null=true}, {name=value, type=long, blank-as-null=true}]");
    List<String> nulled =
        BronzeParse.parse(raw(lines), blankAsNull, Optional.of("enqueued_time"))
            .selectExpr(sql)
            .as(Encoders.STRING())
            .collectAsList();
    assertThat(nulled)
        .containsExactly(
            "empty|NULL|NULL|OK|-",
            "space|NULL|NULL|OK|-",
            "null|NULL|NULL|OK|-",
            "absent|NULL|NULL|OK|-",
            "blank-long|NULL|NULL|OK|-");
  }

  @Test
  void validJsonIsReadAsJsonParsersReadIt() {
    List<String> rows =
        parse(
            schema(),
            ev("\"exp\"", "1.796011199228E9", ""),
            "\uFEFF" + ev("\"bom\"", "1715680860", ""),
            ev("\"inf\"", "1e400", ""),
            ev("\"big\"", "1715680860", ",\"value\":1e400"));
    assertThat(rows)
        .containsExactly(
            "exp|2026-11-30T03:59:59.228|-|OK|-",
            "bom|2024-05-14T10:01:00.000|-|OK|-",
            "inf|-|-|INVALID_EVENT_TIME|Event time field 'event_time' holds the number 1e400, "
                + "which is not an ISO-8601 timestamp or a number of epoch seconds (below 1e11), "
                + "milliseconds (from 1e11), microseconds (from 1e14) or nanoseconds (from 1e17, "
                + "below 1e20) (lake.event.time-format = auto).",
            "big|2024-05-14T10:01:00.000|-|INVALID_FIELD|Field 'value' holds the number 1e400, "
                + "which is not a long.");
  }

  @Test
  void everyHostileRecordGetsTheReasonOfItsKind() {
    List<HostileRecords.Record> corpus =
        HostileRecords.generate(7L, 2, 200, java.time.Instant.parse("2024-05-14T10:00:00Z"))
            .stream()
            .flatMap(List::stream)
            .toList();
    Dataset<Row> records =
        spark
            .createDataset(
                corpus.stream().map(HostileRecords.Record::bytes).toList(), Encoders.BINARY())
            .toDF("value")
            .selectExpr(
                "CAST(value AS STRING) AS payload",
                "'web' AS source",
                "CAST(NULL AS INT) AS kafka_partition",
                "CAST(NULL AS BIGINT) AS kafka_offset",
                "'f.jsonl' AS source_file",
                "CAST(NULL AS TIMESTAMP) AS enqueued_time",
                "CAST(NULL AS INT) AS timestamp_type");
    List<String> actual = new ArrayList<>();
    for (Row r :
        BronzeParse.parse(records, schema(), Optional.of("enqueued_time"))
            .select("payload", "payload_bytes", "error", "error_detail")
            .collectAsList()) {
      String key = r.isNullAt(1) ? r.getString(0) : HostileRecords.Record.key((byte[]) r.get(1));
      actual.add(
          key
              + " -> "
              + (r.isNullAt(2) ? "valid" : r.getString(2))
              + (r.isNullAt(2) == r.isNullAt(3) ? "" : " (detail does not match error)"));
    }
    assertThat(actual)
        .containsExactlyElementsOf(
            corpus.stream()
                .map(c -> c.key() + " -> " + (c.error() == null ? "valid" : c.error()))
                .toList());
  }

  @Test
  void eachRecordIsReadOnce() {
    Dataset<Row> records =
        spark
            .range(3)
            .selectExpr(
                "CAST(id AS STRING) AS payload",
                "'web' AS source",
                "CAST(NULL AS INT) AS kafka_partition",
                "CAST(NULL AS BIGINT) AS kafka_offset",
                "'f.jsonl' AS source_file",
                "CAST(NULL AS TIMESTAMP) AS enqueued_time",
                "CAST(NULL AS INT) AS timestamp_type");
    Dataset<Row> bronze = BronzeParse.parse(records, schema(), Optional.of("enqueued_time"));
    String plan = bronze.queryExecution().optimizedPlan().toString();
    assertThat(plan.split("read_event\\(", -1)).hasSize(2);
    // Read on the executors: the parser travels with the task.
    assertThat(
            bronze.selectExpr("concat(payload, ' ', error)").as(Encoders.STRING()).collectAsList())
        .containsExactly("0 MALFORMED", "1 MALFORMED", "2 MALFORMED");
  }

  @Test
  void bronzeKeepsThePayloadAndSourceColumns() {
    Row r = BronzeParse.parse(raw("{bad"), schema(), Optional.empty()).first();
    assertThat(r.<String>getAs("payload")).isEqualTo("{bad");
    assertThat(r.<String>getAs("source")).isEqualTo("web");
    assertThat(r.<String>getAs("source_file")).isEqualTo("f.jsonl");
    assertThat(r.schema().fieldNames())
        .containsExactly(
            "event_id",
            "event_time",
            "enqueued_time",
            "timestamp_type",
            "ingested_at",
            "ingest_date",
            "source",
            "kafka_partition",
            "kafka_offset",
            "source_file",
            "payload",
            "payload_bytes",
            "page",
            "value",
            "error",
            "error_detail");
  }
}

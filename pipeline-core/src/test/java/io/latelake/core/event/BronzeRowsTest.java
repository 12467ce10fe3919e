package io.latelake.core.event;

import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.core.config.ConfigLoader;
import io.latelake.core.testing.SparkTestBase;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

class BronzeRowsTest extends SparkTestBase {

  private Dataset<Row> raw(String... lines) {
    return spark.createDataset(List.of(lines), Encoders.STRING()).toDF("payload")
        .selectExpr("payload", "'web' AS source", "CAST(NULL AS INT) AS kafka_partition",
            "CAST(NULL AS BIGINT) AS kafka_offset", "'f.jsonl' AS source_file",
            "CAST(NULL AS TIMESTAMP) AS enqueued_time", "CAST(NULL AS INT) AS timestamp_type");
  }

  private EventSchema schema(String... sets) {
    List<String> all = new java.util.ArrayList<>(List.of(
        "lake.event.fields=[{name=page, type=string}, {name=value, type=long}]"));
    all.addAll(List.of(sets));
    return EventSchema.fromConfig(ConfigLoader.load(Optional.empty(), all));
  }

  private List<String> parse(EventSchema schema, String... lines) {
    return BronzeRows.parse(raw(lines), schema, Optional.of("enqueued_time"))
        .selectExpr("concat_ws('|', coalesce(event_id, '-'), "
            + "coalesce(date_format(event_time, \"yyyy-MM-dd'T'HH:mm:ss.SSS\"), '-'), "
            + "coalesce(cast(value AS STRING), '-'), coalesce(error, 'OK'), "
            + "coalesce(error_detail, '-'))")
        .as(Encoders.STRING()).collectAsList();
  }

  @Test
  void everyRecordBecomesOneRowWithItsReason() {
    String enq = "\"enqueued_time\":\"2024-05-14T10:05:00Z\"";
    List<String> rows = parse(schema(),
        "{\"event_id\":\"a\",\"event_time\":\"2024-05-14T10:01:00Z\"," + enq + ",\"value\":3}",
        "{\"event_id\":\"b\",\"event_time\":\"2024-05-14T10:01:00Z\"",
        "",
        "[1,2,3]",
        "{\"event_time\":\"2024-05-14T10:01:00Z\"," + enq + "}",
        "{\"event_id\":\"\",\"event_time\":\"2024-05-14T10:01:00Z\"," + enq + "}",
        "{\"event_id\":\"c\"," + enq + "}",
        "{\"event_id\":\"d\",\"event_time\":\"yesterday\"," + enq + "}",
        "{\"event_id\":\"e\",\"event_time\":\"2024-05-14T10:01:00Z\"," + enq + ",\"value\":\"x\"}",
        "{\"event_id\":\"f\",\"event_time\":\"2024-05-14T10:01:00Z\"}",
        "{\"event_id\":\"g\",\"event_time\":\"2024-05-14T10:11:00Z\"," + enq + "}");
    assertThat(rows).containsExactly(
        "a|2024-05-14T10:01:00.000|3|OK|-",
        "-|-|-|MALFORMED|payload is not a JSON object",
        "-|-|-|MALFORMED|payload is not a JSON object",
        "-|-|-|MALFORMED|payload is not a JSON object",
        "-|2024-05-14T10:01:00.000|-|MISSING_EVENT_ID|no value for event id field 'event_id'",
        "-|2024-05-14T10:01:00.000|-|MISSING_EVENT_ID|no value for event id field 'event_id'",
        "c|-|-|MISSING_EVENT_TIME|no value for event time field 'event_time'",
        "d|-|-|INVALID_EVENT_TIME|event time is not auto: yesterday",
        "e|2024-05-14T10:01:00.000|-|INVALID_FIELD|field 'value' is not a long: x",
        "f|2024-05-14T10:01:00.000|-|INVALID_ENQUEUED_TIME|no readable enqueued time in field "
            + "'enqueued_time'",
        "g|2024-05-14T10:11:00.000|-|FUTURE_EVENT_TIME|event time is ahead of enqueued time by "
            + "more than 300 s");
  }

  @Test
  void timeFormatsAreReadInUtcWithoutWrongYears() {
    String enq = ",\"enqueued_time\":\"2030-01-01T00:00:00Z\"}";
    List<String> auto = parse(schema(),
        "{\"event_id\":\"ms\",\"event_time\":1715680860000" + enq,
        "{\"event_id\":\"s\",\"event_time\":1715680860" + enq,
        "{\"event_id\":\"frac\",\"event_time\":\"1715680860.25\"" + enq,
        "{\"event_id\":\"iso\",\"event_time\":\"2024-05-14T12:01:00+02:00\"" + enq,
        "{\"event_id\":\"huge\",\"event_time\":99999999999999999999" + enq);
    assertThat(auto).containsExactly(
        "ms|2024-05-14T10:01:00.000|-|OK|-",
        "s|2024-05-14T10:01:00.000|-|OK|-",
        "frac|2024-05-14T10:01:00.250|-|OK|-",
        "iso|2024-05-14T10:01:00.000|-|OK|-",
        "huge|-|-|INVALID_EVENT_TIME|event time is not auto: 99999999999999999999");
    List<String> iso = parse(schema("lake.event.time-format=iso-8601"),
        "{\"event_id\":\"ms\",\"event_time\":1715680860000" + enq);
    assertThat(iso).containsExactly(
        "ms|-|-|INVALID_EVENT_TIME|event time is not iso-8601: 1715680860000");
    List<String> seconds = parse(schema("lake.event.time-format=epoch-seconds"),
        "{\"event_id\":\"s\",\"event_time\":1715680860" + enq,
        "{\"event_id\":\"ms\",\"event_time\":1715680860000" + enq);
    assertThat(seconds).containsExactly(
        "s|2024-05-14T10:01:00.000|-|OK|-",
        "ms|-|-|INVALID_EVENT_TIME|event time is not epoch-seconds: 1715680860000");
  }

  @Test
  void bronzeKeepsThePayloadAndSourceColumns() {
    Row r = BronzeRows.parse(raw("{bad"), schema(), Optional.empty()).first();
    assertThat(r.<String>getAs("payload")).isEqualTo("{bad");
    assertThat(r.<String>getAs("source")).isEqualTo("web");
    assertThat(r.<String>getAs("source_file")).isEqualTo("f.jsonl");
    assertThat(r.schema().fieldNames()).containsExactly("event_id", "event_time",
        "enqueued_time", "timestamp_type", "ingested_at", "ingest_date", "source",
        "kafka_partition", "kafka_offset", "source_file", "payload", "page", "value", "error",
        "error_detail");
  }
}

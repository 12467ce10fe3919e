package io.latelake.bronze.parse;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.current_timestamp;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.not;
import static org.apache.spark.sql.functions.timestamp_micros;
import static org.apache.spark.sql.functions.to_date;
import static org.apache.spark.sql.functions.udf;
import static org.apache.spark.sql.functions.when;

import io.latelake.core.event.BronzeRows;
import io.latelake.core.event.ErrorCode;
import io.latelake.core.event.EventSchema;
import io.latelake.core.event.FieldSpec;
import io.latelake.core.event.FieldType;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.types.DataTypes;

/**
 * Turns received records into bronze rows: one row per record, valid or not. Pure function on
 * {@code Dataset<Row>}, used by the bronze stream and by tests without I/O. Each record is read
 * once, by {@link EventParser}, which yields the fields, the error and its detail together.
 *
 * <p>Input columns: {@code payload} string or binary (the raw record), {@code source} string,
 * {@code kafka_partition} int, {@code kafka_offset} long, {@code source_file} string, {@code
 * enqueued_time} timestamp (may be null when it comes from a payload field), {@code timestamp_type}
 * int (Kafka: 0 CreateTime, 1 LogAppendTime; null for files).
 *
 * <p>Output columns, in order: {@code event_id} string, {@code event_time} timestamp (UTC), {@code
 * enqueued_time} timestamp, {@code timestamp_type} int, {@code ingested_at} timestamp (micro-batch
 * time), {@code ingest_date} date, {@code source}, {@code kafka_partition}, {@code kafka_offset},
 * {@code source_file}, {@code payload} string (the raw record), {@code payload_bytes} binary (the
 * raw record's bytes, only when they are not valid UTF-8, else null), the configured fields with
 * their types, {@code error} string ({@link ErrorCode} name, null when valid) and {@code
 * error_detail} (one sentence, null when valid).
 *
 * <p>The fixed columns are {@link BronzeRows#LEADING_COLUMNS}.
 */
public final class BronzeParse {
  private BronzeParse() {}

  /**
   * @param raw received records (columns above)
   * @param schema the configured event schema
   * @param enqueuedTimeField payload field holding the enqueued time, when the source takes it from
   *     the payload (replays of captured data); empty to use the {@code enqueued_time} column
   * @return bronze rows
   */
  public static Dataset<Row> parse(
      Dataset<Row> raw, EventSchema schema, Optional<String> enqueuedTimeField) {
    EventParser parser = new EventParser(schema, enqueuedTimeField);
    UserDefinedFunction read =
        udf((UDF1<byte[], Row>) parser::parse, parser.resultSchema()).withName("read_event");
    Column bytes = col("payload").cast(DataTypes.BinaryType);
    Column r = col("_r");
    Column eventTime = timestamp_micros(r.getField("event_time_us"));
    Column enqueued =
        enqueuedTimeField.isPresent()
            ? timestamp_micros(r.getField("enqueued_time_us"))
            : col("enqueued_time");
    Column future =
        r.getField("error")
            .isNull()
            .and(
                eventTime.gt(
                    coalesce(col("_enq"), col("_ingested"))
                        .plus(lit(schema.futureSkewTolerance()))));
    Column error =
        when(future, lit(ErrorCode.FUTURE_EVENT_TIME.name())).otherwise(r.getField("error"));
    Column detail =
        when(
                future,
                lit(
                    "Event time is ahead of the enqueued time by more than "
                        + schema.futureSkewTolerance().toSeconds()
                        + " s (lake.event.future-skew-tolerance)."))
            .otherwise(r.getField("error_detail"));

    Dataset<Row> staged =
        raw.withColumn("_r", read.apply(bytes))
            .withColumn("_enq", enqueued)
            .withColumn("_ingested", current_timestamp());

    List<Column> out = new ArrayList<>();
    out.add(r.getField("event_id").as("event_id"));
    out.add(eventTime.as("event_time"));
    out.add(col("_enq").as("enqueued_time"));
    out.add(col("timestamp_type").cast(DataTypes.IntegerType).as("timestamp_type"));
    out.add(col("_ingested").as("ingested_at"));
    out.add(to_date(col("_ingested")).as("ingest_date"));
    out.add(col("source").cast(DataTypes.StringType).as("source"));
    out.add(col("kafka_partition").cast(DataTypes.IntegerType).as("kafka_partition"));
    out.add(col("kafka_offset").cast(DataTypes.LongType).as("kafka_offset"));
    out.add(col("source_file").cast(DataTypes.StringType).as("source_file"));
    out.add(col("payload").cast(DataTypes.StringType).as("payload"));
    out.add(when(not(r.getField("utf8")), bytes).as("payload_bytes"));
    for (int i = 0; i < schema.fields().size(); i++) {
      FieldSpec f = schema.fields().get(i);
      Column v = r.getField("f" + i);
      out.add((f.type() == FieldType.TIMESTAMP ? timestamp_micros(v) : v).as(f.name()));
    }
    out.add(error.as("error"));
    out.add(detail.as("error_detail"));
    return staged.select(out.toArray(Column[]::new));
  }
}

package io.latelake.core.event;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.current_timestamp;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.from_json;
import static org.apache.spark.sql.functions.length;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.to_date;
import static org.apache.spark.sql.functions.trim;
import static org.apache.spark.sql.functions.when;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Turns received records into bronze rows: one row per record, valid or not. Pure function on
 * {@code Dataset<Row>}, used by the bronze stream and by tests without I/O.
 *
 * <p>Input columns: {@code payload} string (the raw record), {@code source} string,
 * {@code kafka_partition} int, {@code kafka_offset} long, {@code source_file} string,
 * {@code enqueued_time} timestamp (may be null when it comes from a payload field),
 * {@code timestamp_type} int (Kafka: 0 CreateTime, 1 LogAppendTime; null for files).
 *
 * <p>Output columns, in order: {@code event_id} string, {@code event_time} timestamp (UTC),
 * {@code enqueued_time} timestamp, {@code timestamp_type} int, {@code ingested_at} timestamp
 * (micro-batch time), {@code ingest_date} date, {@code source}, {@code kafka_partition},
 * {@code kafka_offset}, {@code source_file}, {@code payload}, the configured fields with their
 * types, {@code error} string ({@link ErrorCode} name, null when valid) and {@code error_detail}.
 */
public final class BronzeRows {
  /** Name of the JSON column that receives unparseable input. */
  private static final String CORRUPT = "_corrupt_record";

  private BronzeRows() {}

  /** Names of bronze's fixed columns before the configured fields. */
  public static final List<String> LEADING_COLUMNS = List.of(
      "event_id", "event_time", "enqueued_time", "timestamp_type", "ingested_at", "ingest_date",
      "source", "kafka_partition", "kafka_offset", "source_file", "payload");

  /**
   * @param raw received records (columns above)
   * @param schema the configured event schema
   * @param enqueuedTimeField payload field holding the enqueued time, when the source takes it
   *     from the payload (replays of captured data); empty to use the {@code enqueued_time} column
   * @return bronze rows
   */
  public static Dataset<Row> parse(Dataset<Row> raw, EventSchema schema,
      Optional<String> enqueuedTimeField) {
    Set<String> jsonFields = new LinkedHashSet<>();
    jsonFields.add(schema.idField());
    jsonFields.add(schema.timeField());
    jsonFields.addAll(schema.fieldNames());
    enqueuedTimeField.ifPresent(jsonFields::add);
    StructType jsonSchema = new StructType();
    for (String f : jsonFields) {
      jsonSchema = jsonSchema.add(f, DataTypes.StringType);
    }
    jsonSchema = jsonSchema.add(CORRUPT, DataTypes.StringType);

    Dataset<Row> p = raw.withColumn("_p", from_json(col("payload"), jsonSchema,
        Map.of("mode", "PERMISSIVE", "columnNameOfCorruptRecord", CORRUPT)));

    Column idRaw = blankToNull(col("_p").getField(schema.idField()));
    Column timeRaw = blankToNull(col("_p").getField(schema.timeField()));
    Column eventTime = schema.timeFormat().parse(timeRaw);
    Column enqueued = enqueuedTimeField
        .map(f -> TimeFormat.AUTO.parse(blankToNull(col("_p").getField(f))))
        .orElse(col("enqueued_time"));
    Column ingestedAt = current_timestamp();

    List<Column> fieldCols = new ArrayList<>();
    Column invalidField = lit(null).cast(DataTypes.StringType);
    List<FieldSpec> reversed = new ArrayList<>(schema.fields());
    java.util.Collections.reverse(reversed);
    for (FieldSpec f : schema.fields()) {
      fieldCols.add(typed(col("_p").getField(f.name()), f.type()).as(f.name()));
    }
    for (FieldSpec f : reversed) {
      Column rawField = blankToNull(col("_p").getField(f.name()));
      invalidField = when(rawField.isNotNull().and(typed(rawField, f.type()).isNull()),
          concat(lit("field '" + f.name() + "' is not a " + f.type().configName() + ": "),
              rawField))
          .otherwise(invalidField);
    }

    Column malformed = col("payload").isNull()
        .or(length(trim(col("payload"))).equalTo(0))
        .or(col("_p").isNull())
        .or(col("_p").getField(CORRUPT).isNotNull());
    Column tolerance = expr("INTERVAL '" + schema.futureSkewTolerance().toMillis() / 1000.0
        + "' SECOND");
    Column future = eventTime.gt(coalesce(col("_enq"), col("_ingested")).plus(tolerance));

    Column error = when(malformed, lit(ErrorCode.MALFORMED.name()))
        .when(col("_id").isNull(), lit(ErrorCode.MISSING_EVENT_ID.name()))
        .when(col("_time_raw").isNull(), lit(ErrorCode.MISSING_EVENT_TIME.name()))
        .when(col("_event_time").isNull(), lit(ErrorCode.INVALID_EVENT_TIME.name()))
        .when(col("_invalid_field").isNotNull(), lit(ErrorCode.INVALID_FIELD.name()));
    if (enqueuedTimeField.isPresent()) {
      error = error.when(col("_enq").isNull(), lit(ErrorCode.INVALID_ENQUEUED_TIME.name()));
    }
    error = error.when(future, lit(ErrorCode.FUTURE_EVENT_TIME.name()));

    Column detail = when(malformed, lit("payload is not a JSON object"))
        .when(col("_id").isNull(), lit("no value for event id field '" + schema.idField() + "'"))
        .when(col("_time_raw").isNull(),
            lit("no value for event time field '" + schema.timeField() + "'"))
        .when(col("_event_time").isNull(), concat(lit("event time is not "
            + schema.timeFormat().configName() + ": "), col("_time_raw")))
        .when(col("_invalid_field").isNotNull(), col("_invalid_field"));
    if (enqueuedTimeField.isPresent()) {
      detail = detail.when(col("_enq").isNull(),
          lit("no readable enqueued time in field '" + enqueuedTimeField.get() + "'"));
    }
    detail = detail.when(future, concat(lit("event time is ahead of enqueued time by more than "
        + schema.futureSkewTolerance().toSeconds() + " s")));

    Dataset<Row> staged = p
        .withColumn("_id", idRaw)
        .withColumn("_time_raw", timeRaw)
        .withColumn("_event_time", eventTime)
        .withColumn("_enq", enqueued)
        .withColumn("_ingested", ingestedAt)
        .withColumn("_invalid_field", invalidField);

    List<Column> out = new ArrayList<>();
    out.add(col("_id").as("event_id"));
    out.add(col("_event_time").as("event_time"));
    out.add(col("_enq").as("enqueued_time"));
    out.add(col("timestamp_type").cast(DataTypes.IntegerType).as("timestamp_type"));
    out.add(col("_ingested").as("ingested_at"));
    out.add(to_date(col("_ingested")).as("ingest_date"));
    out.add(col("source").cast(DataTypes.StringType).as("source"));
    out.add(col("kafka_partition").cast(DataTypes.IntegerType).as("kafka_partition"));
    out.add(col("kafka_offset").cast(DataTypes.LongType).as("kafka_offset"));
    out.add(col("source_file").cast(DataTypes.StringType).as("source_file"));
    out.add(col("payload"));
    out.addAll(fieldCols);
    out.add(error.as("error"));
    out.add(detail.as("error_detail"));
    return staged.select(out.toArray(Column[]::new));
  }

  private static Column blankToNull(Column c) {
    return when(length(trim(c)).gt(0), c);
  }

  private static Column typed(Column rawText, FieldType type) {
    Column text = blankToNull(rawText);
    return switch (type) {
      case STRING -> text;
      case TIMESTAMP -> TimeFormat.AUTO.parse(text);
      case BOOLEAN -> text.try_cast(DataTypes.BooleanType);
      default -> trim(text).try_cast(type.sparkType());
    };
  }
}

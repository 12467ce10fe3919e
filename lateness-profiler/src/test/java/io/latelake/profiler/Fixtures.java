package io.latelake.profiler;

import com.typesafe.config.Config;
import io.latelake.core.config.ConfigLoader;
import java.sql.Date;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/** Bronze-shaped fixtures built in memory. */
final class Fixtures {
  /** The bronze columns the profiler reads. */
  static final StructType BRONZE =
      new StructType()
          .add("event_id", DataTypes.StringType)
          .add("event_time", DataTypes.TimestampType)
          .add("enqueued_time", DataTypes.TimestampType)
          .add("timestamp_type", DataTypes.IntegerType)
          .add("ingested_at", DataTypes.TimestampType)
          .add("ingest_date", DataTypes.DateType)
          .add("source", DataTypes.StringType)
          .add("error", DataTypes.StringType);

  private Fixtures() {}

  /** One bronze row; ingested on 2024-05-20 unless stated. */
  static Row row(
      String id,
      String eventTime,
      String enqueued,
      Integer timestampType,
      String source,
      String error) {
    return row(id, eventTime, enqueued, timestampType, source, error, "2024-05-20");
  }

  static Row row(
      String id,
      String eventTime,
      String enqueued,
      Integer timestampType,
      String source,
      String error,
      String ingestDate) {
    return RowFactory.create(
        id,
        ts(eventTime),
        ts(enqueued),
        timestampType,
        Timestamp.from(Instant.parse(ingestDate + "T00:00:00Z")),
        Date.valueOf(ingestDate),
        source,
        error);
  }

  static Timestamp ts(String iso) {
    return iso == null ? null : Timestamp.from(Instant.parse(iso));
  }

  static Dataset<Row> bronze(SparkSession spark, List<Row> rows) {
    return spark.createDataFrame(rows, BRONZE);
  }

  /** n events of source {@code s} with lateness {@code lateness[i]} seconds from a base time. */
  static List<Row> withLateness(String source, String baseEventTime, double... lateness) {
    List<Row> rows = new ArrayList<>();
    Instant base = Instant.parse(baseEventTime);
    for (int i = 0; i < lateness.length; i++) {
      Instant enq = base.plusNanos(Math.round(lateness[i] * 1e9));
      // ids unique per source, base time and index: distinct events, never copies of each other
      rows.add(
          row(
              source + "-" + baseEventTime + "-" + i,
              base.toString(),
              enq.toString(),
              null,
              source,
              null));
    }
    return rows;
  }

  /** Effective config with overrides (defaults otherwise). */
  static Config config(String... overrides) {
    return ConfigLoader.load(Optional.empty(), List.of(overrides));
  }

  static ProfilerConfig profiler(String... overrides) {
    return ProfilerConfig.fromConfig(config(overrides));
  }
}

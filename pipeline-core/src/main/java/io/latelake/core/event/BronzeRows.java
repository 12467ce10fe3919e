package io.latelake.core.event;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import java.util.List;
import org.apache.spark.sql.Column;

/**
 * Bronze's fixed columns ({@link #LEADING_COLUMNS}) and its partition-pruning rule ({@link
 * #ingestDateFrom}), the parts every reader of bronze shares. The rows themselves are made by
 * bronze-ingest's {@code io.latelake.bronze.parse.BronzeParse}, which documents every column.
 */
public final class BronzeRows {
  private BronzeRows() {}

  /** Names of bronze's fixed columns before the configured fields. */
  public static final List<String> LEADING_COLUMNS =
      List.of(
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
          "payload_bytes");

  /**
   * The bronze partition filter for rows that arrived or were ingested on or after the UTC day
   * {@code day}: {@code ingest_date >= day − 1 day}. A record is ingested after it arrived, and
   * {@code ingest_date} is the date of {@code ingested_at} in the session's time zone, so one day
   * of slack keeps every such row while older {@code ingest_date} partitions are pruned, never
   * listed or read. The one place this rule is written: {@code correct --since} and the profiler
   * use it.
   *
   * @param day a UTC date
   */
  public static Column ingestDateFrom(java.time.LocalDate day) {
    return col("ingest_date").geq(lit(java.sql.Date.valueOf(day.minusDays(1))));
  }
}

package io.latelake.core.streaming;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.streaming.StateOperatorProgress;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The rows of {@code monitoring.stream_progress}: one per (query, micro-batch), from Spark's
 * progress report ({@link #row}) or, when the report was lost, from the checkpoint ({@link
 * #recovered}). Pure.
 *
 * <p>Schema: {@code query_name} string, {@code query_id} string, {@code run_id} string (null in
 * recovered rows), {@code batch_id} long, {@code batch_timestamp} timestamp (UTC, when the
 * micro-batch started), {@code input_rows} long, {@code watermark} timestamp (null when the query
 * has none), {@code rows_dropped_by_watermark} long (sum over stateful operators), {@code
 * dropped_by_operator} string ({@code operator=count,...}), {@code state_rows} long, {@code
 * trigger_ms} long, {@code add_batch_ms} long, {@code recorded_at} timestamp, {@code
 * rows_dropped_duplicates} long (rows removed by deduplication operators, Spark's {@code
 * numDroppedDuplicateRows}), {@code recovery} string (null for a row from Spark's report; {@code
 * killed} or {@code kafka-metrics-npe} for a recovered row whose figures were lost), {@code
 * input_ingested_until} timestamp (UTC: the largest bronze {@code ingested_at} among the
 * micro-batch's input rows, {@link SourceInputs#INPUT_INGESTED}; null for a query whose input has
 * no {@code ingested_at} (bronze), a micro-batch without input, a recovered row, and rows written
 * before the column existed). Bronze stamps every row of one of its micro-batches with the same
 * {@code ingested_at}, so this column tells which bronze rows each silver micro-batch read: the
 * watermark replay of the lateness profiler cuts bronze into silver's micro-batches with it. {@code
 * watermark_delay_ms} long (the watermark delay the query ran with, silver and gold; null for
 * bronze, recovered rows, and rows written before the column existed), {@code dropped_by_source}
 * map&lt;string, long&gt; (silver with {@code lake.sources}: the rows dropped by the watermark per
 * listed source, and {@code (unlisted)} for other sources' rows, by the rule of {@link
 * SourceDrops#droppedBySource}; null when no source is listed, for gold and bronze, when the split
 * is not known, for recovered rows, and for rows written before the column existed), {@code
 * rows_quarantined} long (bronze: its rows of the micro-batch with {@code error} set, {@link
 * QuarantineCount}; null for silver and gold, recovered rows, and rows written before the column
 * existed).
 */
public final class StreamProgressTable {
  private StreamProgressTable() {}

  /** {@code recovery} value of a row written for a micro-batch whose process was killed. */
  public static final String RECOVERY_KILLED = "killed";

  /** {@code recovery} value of a row written after the Kafka connector's metrics failure. */
  public static final String RECOVERY_KAFKA_METRICS = "kafka-metrics-npe";

  /** Schema of {@code monitoring.stream_progress} (class comment). */
  public static final StructType SCHEMA =
      new StructType()
          .add("query_name", DataTypes.StringType)
          .add("query_id", DataTypes.StringType)
          .add("run_id", DataTypes.StringType)
          .add("batch_id", DataTypes.LongType)
          .add("batch_timestamp", DataTypes.TimestampType)
          .add("input_rows", DataTypes.LongType)
          .add("watermark", DataTypes.TimestampType)
          .add("rows_dropped_by_watermark", DataTypes.LongType)
          .add("dropped_by_operator", DataTypes.StringType)
          .add("state_rows", DataTypes.LongType)
          .add("trigger_ms", DataTypes.LongType)
          .add("add_batch_ms", DataTypes.LongType)
          .add("recorded_at", DataTypes.TimestampType)
          .add("rows_dropped_duplicates", DataTypes.LongType)
          .add("recovery", DataTypes.StringType)
          .add("input_ingested_until", DataTypes.TimestampType)
          .add("watermark_delay_ms", DataTypes.LongType)
          .add(
              "dropped_by_source",
              DataTypes.createMapType(DataTypes.StringType, DataTypes.LongType))
          .add("rows_quarantined", DataTypes.LongType);

  /**
   * Properties of a new {@code monitoring.stream_progress}: a Delta checkpoint every 100 commits
   * instead of Delta's default 10. The table takes one commit per micro-batch of every query, more
   * than any other table of the lake, and a checkpoint is written inside the commit that reaches
   * the interval (about 1.5 s locally, against 0.25 s for the append itself); replaying up to 99
   * small JSON commits when the table is read costs no more than reading from a checkpoint
   * (measured locally at 70 commits: 0.28-0.33 s either way).
   */
  static final Map<String, String> TABLE_PROPERTIES = Map.of("delta.checkpointInterval", "100");

  /** The figures of one micro-batch, summed over its stateful operators. */
  record Figures(
      long inputRows,
      String watermark,
      long dropped,
      String droppedByOperator,
      long duplicates,
      long stateRows,
      long triggerMs,
      long addBatchMs,
      Timestamp ingestedUntil,
      java.util.Map<String, Long> droppedBySource,
      Long quarantined) {
    static Figures of(StreamingQueryProgress p) {
      long dropped = 0;
      long duplicates = 0;
      long stateRows = 0;
      StringBuilder byOperator = new StringBuilder();
      for (StateOperatorProgress op : p.stateOperators()) {
        dropped += op.numRowsDroppedByWatermark();
        stateRows += op.numRowsTotal();
        Long dup = op.customMetrics().get("numDroppedDuplicateRows");
        duplicates += dup == null ? 0 : dup;
        if (byOperator.length() > 0) {
          byOperator.append(',');
        }
        byOperator.append(op.operatorName()).append('=').append(op.numRowsDroppedByWatermark());
      }
      return new Figures(
          SourceInputs.inputRows(p),
          p.eventTime().get("watermark"),
          dropped,
          byOperator.toString(),
          duplicates,
          stateRows,
          duration(p, "triggerExecution"),
          duration(p, "addBatch"),
          SourceInputs.ingestedUntil(p),
          SourceDrops.droppedBySource(p, dropped, duplicates).orElse(null),
          QuarantineCount.of(p));
    }

    private static long duration(StreamingQueryProgress p, String key) {
      Long v = p.durationMs().get(key);
      return v == null ? 0L : v;
    }
  }

  /**
   * @param watermarkDelayMs the query's watermark delay, null when it has none
   * @return the row of a micro-batch from Spark's report and its figures
   */
  static Row row(StreamingQueryProgress p, Figures f, Long watermarkDelayMs) {
    return RowFactory.create(
        p.name(),
        p.id().toString(),
        p.runId().toString(),
        p.batchId(),
        Timestamp.from(Instant.parse(p.timestamp())),
        f.inputRows(),
        f.watermark() == null ? null : Timestamp.from(Instant.parse(f.watermark())),
        f.dropped(),
        f.droppedByOperator(),
        f.stateRows(),
        f.triggerMs(),
        f.addBatchMs(),
        Timestamp.from(Instant.now()),
        f.duplicates(),
        null,
        f.ingestedUntil(),
        watermarkDelayMs,
        f.droppedBySource(),
        f.quarantined());
  }

  /**
   * @param planned what the checkpoint recorded when it planned the micro-batch (empty: nothing)
   * @param recovery why the figures were lost ({@link #RECOVERY_KILLED}, {@link
   *     #RECOVERY_KAFKA_METRICS})
   * @return the row of a committed micro-batch whose report was lost: its watermark and start time
   *     as planned, null figures
   */
  static Row recovered(
      String queryName,
      UUID queryId,
      long batchId,
      java.util.Optional<Checkpoints.Planned> planned,
      String recovery) {
    Timestamp wm =
        planned
            .map(p -> p.watermark().toEpochMilli() == 0 ? null : Timestamp.from(p.watermark()))
            .orElse(null);
    return RowFactory.create(
        queryName,
        queryId.toString(),
        null,
        batchId,
        planned.map(p -> Timestamp.from(p.batchTimestamp())).orElse(null),
        null,
        wm,
        null,
        null,
        null,
        null,
        null,
        Timestamp.from(Instant.now()),
        null,
        recovery,
        null,
        null,
        null,
        null);
  }
}

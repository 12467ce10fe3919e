package io.latelake.core.metrics;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.latelake.core.streaming.SourceInputs;
import java.time.Instant;
import org.apache.spark.sql.streaming.StateOperatorProgress;
import org.apache.spark.sql.streaming.StreamingQueryProgress;

/**
 * One streaming query's figures in {@link StreamMetrics}' registry, named {@code <query>.<figure>}
 * (the figures are listed there), updated from each micro-batch's progress. The arrival figures
 * ({@code watermark_lag_seconds}, {@code latest_enqueued_seconds}) are set by {@link
 * StreamMetrics}, which sees every query's arrivals.
 */
final class QueryFigures {
  final Counter batches;
  final Counter inputRows;
  final Counter dropped;
  final Counter duplicates;
  final Counter quarantined;
  volatile double watermark;
  volatile long stateRows;
  volatile double duration;
  volatile double progressAt;
  volatile double watermarkLag = Double.NaN;
  volatile double latestEnqueued = Double.NaN;
  volatile double ingestedUntil = Double.NaN;

  /** Registers the query's counters and gauges in {@code registry}. */
  QueryFigures(MetricRegistry registry, String name) {
    String q = StreamMetrics.UNSAFE.matcher(name).replaceAll("_") + ".";
    batches = registry.counter(q + "batches");
    inputRows = registry.counter(q + "input_rows");
    dropped = registry.counter(q + "rows_dropped_by_watermark");
    duplicates = registry.counter(q + "rows_dropped_duplicates");
    quarantined = registry.counter(q + "rows_quarantined");
    registry.register(q + "watermark_seconds", (Gauge<Double>) () -> watermark);
    registry.register(q + "state_rows", (Gauge<Long>) () -> stateRows);
    registry.register(q + "batch_duration_seconds", (Gauge<Double>) () -> duration);
    registry.register(q + "last_progress_timestamp_seconds", (Gauge<Double>) () -> progressAt);
    registry.register(q + "watermark_lag_seconds", (Gauge<Double>) () -> watermarkLag);
    registry.register(q + "latest_enqueued_seconds", (Gauge<Double>) () -> latestEnqueued);
    registry.register(q + "input_ingested_until_seconds", (Gauge<Double>) () -> ingestedUntil);
  }

  /**
   * Counts one micro-batch and sets its watermark and state figures; {@link #finish} sets the rest
   * once {@link StreamMetrics} has set the arrival figures, so {@code
   * last_progress_timestamp_seconds} changes last.
   */
  void record(StreamingQueryProgress p) {
    long droppedRows = 0;
    long duplicateRows = 0;
    long state = 0;
    for (StateOperatorProgress op : p.stateOperators()) {
      droppedRows += op.numRowsDroppedByWatermark();
      state += op.numRowsTotal();
      Long dup = op.customMetrics().get("numDroppedDuplicateRows");
      duplicateRows += dup == null ? 0 : dup;
    }
    batches.inc();
    inputRows.inc(SourceInputs.inputRows(p));
    dropped.inc(droppedRows);
    duplicates.inc(duplicateRows);
    Long quarantinedRows = io.latelake.core.streaming.QuarantineCount.of(p);
    if (quarantinedRows != null) {
      quarantined.inc(quarantinedRows);
    }
    stateRows = state;
    String wm = p.eventTime().get("watermark");
    if (wm != null) {
      watermark = Instant.parse(wm).toEpochMilli() / 1000.0;
    }
  }

  /** Sets the micro-batch's input, duration and time figures (after {@link #record}). */
  void finish(StreamingQueryProgress p) {
    java.sql.Timestamp ingested = SourceInputs.ingestedUntil(p);
    if (ingested != null) {
      ingestedUntil = ingested.getTime() / 1000.0;
    }
    Long trigger = p.durationMs().get("triggerExecution");
    duration = trigger == null ? 0 : trigger / 1000.0;
    progressAt = Instant.parse(p.timestamp()).toEpochMilli() / 1000.0;
  }
}

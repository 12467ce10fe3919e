package io.latelake.core.catalog;

import java.util.Map;
import java.util.Optional;

/**
 * Comments registered with latelake's tables and views: what each table holds and each known column
 * means, with units (seconds, UTC). Columns of the configured event schema, group-by columns and
 * measures are described generically.
 */
final class ColumnDocs {
  private ColumnDocs() {}

  static final Map<String, String> TABLES =
      Map.ofEntries(
          Map.entry(
              "bronze_events",
              "Every record received, valid or not, with its enqueued time; "
                  + "append only, partitioned by ingest_date (UTC). error is null for a valid record."),
          Map.entry(
              "silver_events",
              "Valid events deduplicated on event_id within the watermark, "
                  + "with lateness_s = enqueued_time - event_time in seconds."),
          Map.entry(
              "stream_progress",
              "One row per streaming query and micro-batch: input rows, "
                  + "watermark (UTC), rows dropped by the watermark, state rows, durations (ms)."),
          Map.entry(
              "corrections_log",
              "Every gold row a correction restated: old and new values "
                  + "(JSON), when (UTC), by which run, why."),
          Map.entry(
              "correction_state",
              "Per metric: the bronze version the last correction run "
                  + "read and the windows it deferred."),
          Map.entry(
              "recompute_audit",
              "Published vs recomputed values per closed period, written "
                  + "by correct (ignore policy) and audit."),
          Map.entry(
              "lateness_stats",
              "Lateness percentiles per source and arrival day (UTC), in "
                  + "seconds, with the shares beyond the configured thresholds."),
          Map.entry(
              "lateness_cdf",
              "Lateness distribution per source: lateness_s (seconds) at each "
                  + "quantile level; overwritten by each profile run."),
          Map.entry(
              "watermark_advice",
              "Per source: the watermark delay that would have covered "
                  + "each target share, and the configured delay's drops."),
          Map.entry(
              "watermark_replay",
              "Silver's watermark replayed over bronze by Spark's rule, in silver's micro-batches: "
                  + "rows each delay (seconds) drops, and the recommended delay."),
          Map.entry("alerts", "Alerts raised by profile: rule, subject, observed value, limit."));

  static final Map<String, String> COLUMNS =
      Map.ofEntries(
          Map.entry("event_id", "Unique event id from the payload."),
          Map.entry(
              "accuracy",
              "percentile_approx accuracy of the row's percentiles (rank error at most n / "
                  + "accuracy); null: exact (profile --exact, percentile_disc)."),
          Map.entry(
              "lateness_sketch",
              "KLL sketch (k = 200) of the day's measured lateness in seconds: merge days with "
                  + "kll_sketch_merge_double, read quantiles with kll_sketch_get_quantile_double."),
          Map.entry(
              "lateness_by_hour",
              "The day's hours of arrival (UTC) with events: per hour n, sum_s, min_s, max_s, the "
                  + "counts and a KLL sketch of its lateness; inline() it and merge hours with "
                  + "kll_sketch_merge_double."),
          Map.entry("event_time", "When the event happened at the source (UTC)."),
          Map.entry(
              "enqueued_time",
              "When the record arrived (UTC): the Kafka record timestamp (an arrival "
                  + "time only with LogAppendTime, see timestamp_type), or for files the configured "
                  + "arrival field or the file's modification time."),
          Map.entry(
              "timestamp_type",
              "Kafka timestamp type: 1 LogAppendTime (arrival), 0 CreateTime "
                  + "(producer clock)."),
          Map.entry("ingested_at", "When the pipeline wrote the row (UTC)."),
          Map.entry("ingest_date", "UTC date of ingested_at (partition)."),
          Map.entry("source", "Topic or source name."),
          Map.entry("payload", "The raw record, always kept."),
          Map.entry(
              "error",
              "Null when valid, else the reason code (MALFORMED, MISSING_EVENT_ID, " + "...)."),
          Map.entry("error_detail", "Why the record is invalid."),
          Map.entry("lateness_s", "enqueued_time - event_time, in seconds; negative = clock skew."),
          Map.entry("window_start", "Window start, inclusive (UTC)."),
          Map.entry("window_end", "Window end, exclusive (UTC)."),
          Map.entry("updated_at", "When the stream last changed the row (UTC)."),
          Map.entry("corrected_at", "When a correction last changed the row (UTC); null if never."),
          Map.entry("query_name", "Streaming query name."),
          Map.entry("batch_id", "Micro-batch id."),
          Map.entry("input_rows", "Rows read by the micro-batch."),
          Map.entry("watermark", "Watermark reported after the micro-batch (UTC)."),
          Map.entry(
              "input_ingested_until",
              "Largest bronze ingested_at (UTC) among the micro-batch's input rows: which bronze "
                  + "micro-batches it read."),
          Map.entry(
              "watermark_delay_ms",
              "Watermark delay the query ran with in this micro-batch, milliseconds."),
          Map.entry("rows_dropped_by_watermark", "Rows dropped as behind the watermark."),
          Map.entry(
              "dropped_by_source",
              "Silver with lake.sources: rows dropped as behind the watermark per source; null "
                  + "when the split is not known (see docs/sources.md)."),
          Map.entry(
              "rows_quarantined",
              "Bronze: rows of the micro-batch quarantined with an error (not valid events); null "
                  + "for silver and gold."),
          Map.entry("run_id", "Id of the job run."),
          Map.entry("metric", "Gold metric name."),
          Map.entry("keys", "Group-by values of the row (JSON)."),
          Map.entry("old_values", "Measures before the change (JSON); null for a new row."),
          Map.entry("new_values", "Measures after the change (JSON); null for a removed row."),
          Map.entry("reason", "Why the row changed (e.g. LATE_ARRIVAL)."),
          Map.entry("policy", "Late policy of the metric: restate, reconcile or ignore."),
          Map.entry("arrival_day", "UTC date of enqueued_time."),
          Map.entry("level", "Quantile level in [0, 1]."),
          Map.entry(
              "status",
              "provisional until window_end + lake.correction.horizon is at or "
                  + "before last_watermark, then settled; restated once a correction changed the row."),
          Map.entry(
              "completeness",
              "Expected share of the window's events already arrived, from the "
                  + "profiled lateness distribution (lowest over sources); null without a profile."),
          Map.entry(
              "last_change",
              "The last restatement: old -> new measures (JSON); null if never " + "restated."),
          Map.entry("last_changed_at", "When the last restatement happened (UTC)."),
          Map.entry("last_change_reason", "Why the last restatement happened."),
          Map.entry("last_watermark", "The gold stream's last reported watermark (UTC)."),
          Map.entry(
              "closed",
              "True when window_end is at or before last_watermark: the stream "
                  + "no longer updates the window."));

  /**
   * @return the comment of a known column
   */
  static Optional<String> column(String name) {
    return Optional.ofNullable(COLUMNS.get(name));
  }
}

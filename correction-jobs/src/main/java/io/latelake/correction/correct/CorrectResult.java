package io.latelake.correction.correct;

import static org.apache.spark.sql.functions.col;

import io.latelake.core.job.ActionResult;
import io.latelake.core.metric.LatePolicy;
import io.latelake.correction.shared.Corrections;
import java.time.Instant;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * What a {@link CorrectJob} run did, per metric.
 *
 * @param runId the run's id
 * @param correctedAt the run's start: the {@code corrected_at} of everything it restates
 * @param metrics one result per metric, in the order of the options
 */
public record CorrectResult(String runId, Instant correctedAt, List<MetricResult> metrics)
    implements ActionResult {
  public long rowsChanged() {
    return metrics.stream().mapToLong(MetricResult::rowsChanged).sum();
  }

  @Override
  public String summary() {
    return rowsChanged() + " gold rows changed, run " + runId;
  }

  /**
   * Per metric: rows restated (or staged, for reconcile), closed windows recomputed, and windows
   * deferred as still open.
   */
  @Override
  public void report(io.latelake.core.metrics.RunFigures figures) {
    for (MetricResult m : metrics) {
      figures.gauge(
          "latelake_rows_restated",
          "Gold rows the run restated (or staged, for a reconcile metric).",
          m.rowsChanged(),
          "metric",
          m.metric());
      figures.gauge(
          "latelake_windows_recomputed",
          "Closed windows touched since the last run that the run recomputed from bronze.",
          m.closedWindows(),
          "metric",
          m.metric());
      figures.gauge(
          "latelake_windows_deferred",
          "Windows touched by late data that were still open (left for a later run).",
          m.deferredWindows(),
          "metric",
          m.metric());
    }
  }

  /** How many changed rows a result carries per metric. */
  public static final int SAMPLE = 50;

  /** One changed gold row: keys, old and new measures as JSON (null: no row), a Reason name. */
  public record Change(
      String metric,
      Instant windowStart,
      Instant windowEnd,
      String keys,
      String oldValues,
      String newValues,
      String reason) {
    /**
     * @param corrections {@link Corrections#diff} rows of {@code metric}
     * @return the first {@value CorrectResult#SAMPLE} of them by window start and keys, values as
     *     JSON
     */
    static List<Change> sample(String metric, Dataset<Row> corrections) {
      return corrections
          .select(
              col("window_start"),
              col("window_end"),
              col("keys"),
              Corrections.asJson("old_values"),
              Corrections.asJson("new_values"),
              col("reason"))
          .orderBy(col("window_start"), col("keys"))
          .limit(SAMPLE)
          .collectAsList()
          .stream()
          .map(
              r ->
                  new Change(
                      metric,
                      r.getTimestamp(0).toInstant(),
                      r.getTimestamp(1).toInstant(),
                      r.getString(2),
                      r.getString(3),
                      r.getString(4),
                      r.getString(5)))
          .toList();
    }
  }

  /**
   * One metric's part of the run.
   *
   * @param fromVersion the bronze version after which changes were read; -1: by {@code --since}
   * @param since the {@code --since} instant (UTC) when given, else null
   * @param toVersion the bronze version the closed windows were recomputed at
   * @param watermark the gold stream's last watermark; null: none reported (nothing closed)
   * @param changes up to {@value #SAMPLE} of the changed rows
   */
  public record MetricResult(
      String metric,
      LatePolicy policy,
      long fromVersion,
      Instant since,
      long toVersion,
      Instant watermark,
      int touchedWindows,
      int closedWindows,
      int deferredWindows,
      long rowsChanged,
      List<Change> changes)
      implements ActionResult {
    @Override
    public String summary() {
      return metric
          + ": bronze "
          + (fromVersion < 0
              ? "rows ingested since " + since + " (--since), up to version " + toVersion
              : "versions (" + fromVersion + ", " + toVersion + "]")
          + ", "
          + touchedWindows
          + " windows touched, "
          + closedWindows
          + " closed (watermark "
          + watermark
          + "), "
          + deferredWindows
          + " deferred; "
          + rowsChanged
          + switch (policy) {
            case RESTATE -> " gold rows restated (corrections_log)";
            case RECONCILE -> " gold rows differ from bronze, staged for apply-corrections";
            case IGNORE -> " gold rows differ from bronze, left as they are";
          }
          + " (late policy "
          + policy.configName()
          + ")";
    }
  }
}

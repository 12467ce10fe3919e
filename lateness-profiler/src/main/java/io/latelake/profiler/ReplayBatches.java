package io.latelake.profiler;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.unix_micros;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The replayed query's micro-batches as {@code monitoring.stream_progress} recorded them, and the
 * delay its latest one ran with ({@link WatermarkReplay}).
 */
public final class ReplayBatches {
  private ReplayBatches() {}

  /**
   * One recorded micro-batch of the replayed query, in the order it ran.
   *
   * @param inputRows rows it read (null for a recovered row whose figures were lost)
   * @param ingestedUntil the largest {@code ingested_at} it read, microseconds since the epoch
   *     (null when not recorded)
   * @param restart whether it is the first micro-batch of a new run of the query (its {@code
   *     run_id} differs from the last one recorded before it)
   * @param newCheckpoint whether it is the first micro-batch of a new checkpoint of the query (its
   *     {@code query_id} differs from the last one recorded before it)
   */
  public record Batch(Long inputRows, Long ingestedUntil, boolean restart, boolean newCheckpoint) {
    /** A micro-batch of the same run as the one before it. */
    public Batch(Long inputRows, Long ingestedUntil) {
      this(inputRows, ingestedUntil, false, false);
    }

    /** A micro-batch of the same checkpoint as the one before it. */
    public Batch(Long inputRows, Long ingestedUntil, boolean restart) {
      this(inputRows, ingestedUntil, restart, false);
    }

    boolean hasData() {
      return inputRows == null || inputRows > 0;
    }
  }

  /**
   * The query's micro-batches from {@code monitoring.stream_progress} that can have read the
   * replayed rows, in the order they ran (by {@code batch_timestamp}, then {@code batch_id}): from
   * the first one that recorded an {@code input_ingested_until} at or after {@code fromIngested} on
   * (none when no micro-batch did: the table predates the column, or silver has not read the rows
   * yet). Two small Spark jobs that Delta's data skipping on the {@code input_ingested_until} and
   * {@code batch_timestamp} statistics keeps to the files from the range on; the driver holds the
   * micro-batches from there on.
   *
   * @param progress {@code monitoring.stream_progress} (a table without {@code
   *     input_ingested_until} gives no batches)
   * @param fromIngested the smallest {@code ingested_at} replayed, microseconds since the epoch
   */
  public static List<Batch> batches(Dataset<Row> progress, String queryName, long fromIngested) {
    if (!Arrays.asList(progress.columns()).contains("input_ingested_until")) {
      return List.of();
    }
    Dataset<Row> mine = progress.filter(col("query_name").equalTo(lit(queryName)));
    // Compared as timestamps, not as unix_micros(...): Delta's data skipping then opens only the
    // files whose largest input_ingested_until reaches the range, not the query's whole history.
    Timestamp from = Timestamp.from(java.time.Instant.EPOCH.plus(fromIngested, ChronoUnit.MICROS));
    Row first =
        mine.filter(col("input_ingested_until").geq(lit(from)))
            .agg(org.apache.spark.sql.functions.min(col("batch_timestamp")))
            .first();
    if (first.isNullAt(0)) {
      return List.of();
    }
    List<Batch> out = new ArrayList<>();
    String run = null; // the last run id seen (a recovered row has none: it ran in the run before)
    String checkpoint = null; // the last query id seen
    for (Row r :
        mine.filter(col("batch_timestamp").geq(lit(first.getTimestamp(0))))
            .orderBy(col("batch_timestamp"), col("batch_id"))
            .select(
                col("input_rows"),
                unix_micros(col("input_ingested_until")),
                col("run_id"),
                col("query_id"))
            .collectAsList()) {
      String id = r.isNullAt(2) ? null : r.getString(2);
      String query = r.isNullAt(3) ? null : r.getString(3);
      out.add(
          new Batch(
              r.isNullAt(0) ? null : r.getLong(0),
              r.isNullAt(1) ? null : r.getLong(1),
              id != null && run != null && !id.equals(run),
              query != null && checkpoint != null && !query.equals(checkpoint)));
      run = id == null ? run : id;
      checkpoint = query == null ? checkpoint : query;
    }
    return out;
  }

  /**
   * @return the watermark delay the query's latest micro-batch recorded ({@code
   *     watermark_delay_ms}), empty when none did
   */
  public static java.util.Optional<Duration> lastDelay(Dataset<Row> progress, String queryName) {
    if (!Arrays.asList(progress.columns()).contains("watermark_delay_ms")) {
      return java.util.Optional.empty();
    }
    List<Row> last =
        progress
            .filter(
                col("query_name")
                    .equalTo(lit(queryName))
                    .and(col("watermark_delay_ms").isNotNull()))
            .orderBy(col("batch_timestamp").desc(), col("batch_id").desc())
            .select(col("watermark_delay_ms"))
            .limit(1)
            .collectAsList();
    return last.isEmpty()
        ? java.util.Optional.empty()
        : java.util.Optional.of(Duration.ofMillis(last.get(0).getLong(0)));
  }
}

package io.latelake.correction.correct;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.latelake.core.event.BronzeRows;
import io.latelake.core.job.JobContext;
import io.latelake.core.metric.MetricSpec;
import io.latelake.correction.shared.Recompute;
import java.io.IOException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.TimeoutException;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;

/**
 * The windows of a metric touched by bronze rows since its last {@code correct} run, read with
 * Delta's own change read: bronze as a Delta streaming source, {@code Trigger.AvailableNow}, one
 * checkpoint per metric ({@code _checkpoints/correct_<metric>}, query {@code correct_<metric>}),
 * the standard incremental-batch pattern. Deletion vectors, column mapping, log checkpoints and log
 * cleanup are Delta's business; commits that only rewrite files (OPTIMIZE) bring no rows, and
 * commits that change existing rows are skipped ({@code skipChangeCommits}: bronze is append-only).
 * Each micro-batch adds its windows to the metric's pending windows in {@code
 * monitoring.correction_state} before its offsets commit, so a crash loses none.
 */
final class BronzeChanges {
  private final JobContext context;
  private final CorrectionState state;

  /**
   * @param state where each micro-batch's windows are added
   */
  BronzeChanges(JobContext context, CorrectionState state) {
    this.context = context;
    this.state = state;
  }

  /**
   * @return the change read's query name for {@code metric}, also its checkpoint's name
   */
  static String queryName(MetricSpec metric) {
    return "correct_" + metric.name();
  }

  /**
   * @param prior the metric's state (its pending windows are touched too); required without {@code
   *     since}
   * @param since rescan by ingest time instead of reading the changes
   * @param latest bronze's latest version now
   * @return the window starts touched (ascending)
   */
  TreeSet<Instant> touched(
      MetricSpec metric,
      Optional<CorrectionState.Entry> prior,
      Optional<Instant> since,
      long latest,
      String runId,
      Timestamp at) {
    TreeSet<Instant> out =
        new TreeSet<>(prior.map(CorrectionState.Entry::pending).orElse(List.of()));
    out.addAll(
        since.isPresent()
            ? since(metric, since.get(), latest)
            : stream(metric, prior.orElseThrow().bronzeVersion(), latest, runId, at));
    return out;
  }

  /**
   * {@code --since}: window starts of valid rows with {@code ingested_at >= since} at bronze
   * version {@code version} (pruned on the {@code ingest_date} partitions). The metric's change
   * read starts again after {@code version}: its checkpoint is removed.
   */
  TreeSet<Instant> since(MetricSpec metric, Instant since, long version) {
    Dataset<Row> rows =
        context
            .spark()
            .read()
            .format("delta")
            .option("versionAsOf", version)
            .load(context.tables().bronzeEvents())
            .filter(
                BronzeRows.ingestDateFrom(LocalDate.ofInstant(since, ZoneOffset.UTC))
                    .and(col("ingested_at").geq(lit(Timestamp.from(since)))));
    TreeSet<Instant> out = windows(rows, metric);
    deleteCheckpoint(metric);
    return out;
  }

  /**
   * Reads what bronze gained since the metric's checkpoint (a new checkpoint starts after {@code
   * after}, the version in the metric's state) up to the latest version, and adds the touched
   * windows to the metric's pending windows in the state.
   *
   * @return the window starts touched by this read
   * @throws io.latelake.core.streaming.StreamFailedException (exit 1) when the read fails
   */
  TreeSet<Instant> stream(MetricSpec metric, long after, long latest, String runId, Timestamp at) {
    TreeSet<Instant> out = new TreeSet<>();
    String start = after >= latest ? "latest" : Long.toString(after + 1);
    try {
      context
          .spark()
          .readStream()
          .format("delta")
          .option("startingVersion", start)
          .option("skipChangeCommits", "true")
          .load(context.tables().bronzeEvents())
          .select("event_id", "event_time", "error")
          .writeStream()
          .queryName(queryName(metric))
          .option("checkpointLocation", context.tables().checkpoint(queryName(metric)))
          .trigger(Trigger.AvailableNow())
          .foreachBatch(
              (VoidFunction2<Dataset<Row>, Long>)
                  (batch, batchId) -> {
                    TreeSet<Instant> touched = windows(batch, metric);
                    state.addPending(metric.name(), after, touched, runId, at);
                    out.addAll(touched);
                  })
          .start()
          .awaitTermination();
    } catch (StreamingQueryException | TimeoutException e) {
      throw new io.latelake.core.streaming.StreamFailedException(
          "Cannot read bronze changes for metric '" + metric.name() + "': " + e.getMessage(), e);
    }
    return out;
  }

  private static TreeSet<Instant> windows(Dataset<Row> rows, MetricSpec metric) {
    TreeSet<Instant> out = new TreeSet<>();
    for (Row r :
        Recompute.validEvents(rows.select("event_id", "event_time", "error"))
            .select(Recompute.windowStart(col("event_time"), metric.window()).as("ws"))
            .distinct()
            .collectAsList()) {
      out.add(r.getTimestamp(0).toInstant());
    }
    return out;
  }

  private void deleteCheckpoint(MetricSpec metric) {
    Path dir = new Path(context.tables().checkpoint(queryName(metric)));
    try {
      dir.getFileSystem(context.spark().sparkContext().hadoopConfiguration()).delete(dir, true);
    } catch (IOException e) {
      throw new io.latelake.core.table.StorageException(
          "Cannot remove the checkpoint "
              + dir
              + " of the bronze "
              + "change read: "
              + e.getMessage(),
          e);
    }
  }
}

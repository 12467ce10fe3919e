package io.latelake.correction.correct;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.latelake.core.event.BronzeChangeRead;
import io.latelake.core.event.BronzeRows;
import io.latelake.core.job.JobContext;
import io.latelake.core.metric.MetricAggregation;
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
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The windows of a metric touched by bronze rows since its last {@code correct} run, read with
 * Delta's own change read ({@link BronzeChangeRead}: bronze as a Delta streaming source from the
 * version after the one in the metric's {@code monitoring.correction_state} entry, {@code
 * Trigger.AvailableNow}, query {@code correct_<metric>}, a throw-away checkpoint). The state entry
 * is the one record of where the read starts: {@link CorrectJob} writes it once, after the
 * corrections, so a run that fails before reads the same rows again and loses no window.
 */
final class BronzeChanges {
  private final JobContext context;

  BronzeChanges(JobContext context) {
    this.context = context;
  }

  /**
   * @return the change read's query name for {@code metric}, also the name of the checkpoint it
   *     kept in the lake before its checkpoint became a throw-away one
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
      long latest) {
    TreeSet<Instant> out =
        new TreeSet<>(prior.map(CorrectionState.Entry::pending).orElse(List.of()));
    out.addAll(
        since.isPresent()
            ? since(metric, since.get(), latest)
            : BronzeChangeRead.windowsAfter(
                context.spark(),
                context.tables().bronzeEvents(),
                metric.name(),
                queryName(metric),
                prior.orElseThrow().bronzeVersion(),
                latest,
                metric.window()));
    deleteOldCheckpoint(metric);
    return out;
  }

  /**
   * {@code --since}: window starts of valid rows with {@code ingested_at >= since} at bronze
   * version {@code version} (pruned on the {@code ingest_date} partitions).
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
    TreeSet<Instant> out = new TreeSet<>();
    for (Row r :
        Recompute.validEvents(rows.select("event_id", "event_time", "error"))
            .select(MetricAggregation.windowStart(col("event_time"), metric.window()).as("ws"))
            .distinct()
            .collectAsList()) {
      out.add(r.getTimestamp(0).toInstant());
    }
    return out;
  }

  /**
   * Removes {@code _checkpoints/correct_<metric>}, where the change read kept its checkpoint before
   * it became a throw-away one, if the lake still has it (nothing when it does not).
   */
  private void deleteOldCheckpoint(MetricSpec metric) {
    Path dir = new Path(context.tables().checkpoint(queryName(metric)));
    try {
      dir.getFileSystem(context.spark().sparkContext().hadoopConfiguration()).delete(dir, true);
    } catch (IOException e) {
      throw new io.latelake.core.table.StorageException(
          "Cannot remove the old checkpoint "
              + dir
              + " of the bronze change read: "
              + e.getMessage(),
          e);
    }
  }
}

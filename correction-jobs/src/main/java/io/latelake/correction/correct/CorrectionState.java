package io.latelake.correction.correct;

import static org.apache.spark.sql.functions.col;

import io.delta.tables.DeltaTable;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.DeltaRetry;
import io.latelake.core.table.DeltaTables;
import io.latelake.correction.shared.CorrectionConfig;
import io.latelake.correction.shared.CorrectionTables;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;

/**
 * {@code monitoring.correction_state} ({@link CorrectionTables#STATE}): per metric, the bronze
 * version up to which every row's windows were taken, and the touched windows still to correct.
 * Every write is a MERGE on {@code metric}, retried on a concurrent commit.
 */
final class CorrectionState {
  /**
   * @param bronzeVersion every bronze row up to this version has its windows in {@code pending} or
   *     corrected: the next change read starts after it
   * @param pending window starts (UTC) touched and not corrected yet
   */
  record Entry(long bronzeVersion, List<Instant> pending) {}

  private final SparkSession spark;
  private final CorrectionTables tables;
  private final CorrectionConfig config;

  CorrectionState(SparkSession spark, CorrectionTables tables, CorrectionConfig config) {
    this.spark = spark;
    this.tables = tables;
    this.config = config;
  }

  /**
   * @throws LakeConfigException (exit 2) when a metric has no entry: correct never scans bronze
   *     from the beginning silently
   */
  static void requirePreviousRun(List<MetricSpec> metrics, Map<String, Entry> entries) {
    for (MetricSpec m : metrics) {
      if (!entries.containsKey(m.name())) {
        throw new LakeConfigException(
            "Cannot run correct for metric '"
                + m.name()
                + "': no previous run in monitoring.correction_state, and correct never scans "
                + "bronze from the beginning silently; give --since <yyyy-MM-dd or instant> "
                + "(bronze rows ingested since then are checked)");
      }
    }
  }

  /**
   * @return the entry of every metric that has one
   */
  Map<String, Entry> read() {
    Map<String, Entry> out = new HashMap<>();
    if (!DeltaTables.exists(spark, tables.state())) {
      return out;
    }
    for (Row r : spark.read().format("delta").load(tables.state()).collectAsList()) {
      List<Instant> pending = new ArrayList<>();
      List<Timestamp> p = r.getList(r.fieldIndex("pending_window_starts"));
      if (p != null) {
        p.forEach(t -> pending.add(t.toInstant()));
      }
      out.put(
          r.getString(r.fieldIndex("metric")),
          new Entry(r.getLong(r.fieldIndex("bronze_version")), pending));
    }
    return out;
  }

  /**
   * Replaces the metric's entry: bronze's version before the run's change read (the next read
   * starts after it, so commits that landed during the run are read again) and the touched windows
   * still open.
   */
  void write(
      String metric, long bronzeVersion, Collection<Instant> pending, String runId, Timestamp at) {
    Dataset<Row> s = row(metric, bronzeVersion, pending, runId, at);
    merge("correction_state update", s);
  }

  private Dataset<Row> row(
      String metric, long bronzeVersion, Collection<Instant> windows, String runId, Timestamp at) {
    Row row =
        RowFactory.create(
            metric,
            bronzeVersion,
            scala.jdk.javaapi.CollectionConverters.asScala(
                    windows.stream().sorted().map(Timestamp::from).toList())
                .toSeq(),
            runId,
            at);
    return spark.createDataFrame(List.of(row), CorrectionTables.STATE);
  }

  private void merge(String label, Dataset<Row> s) {
    DeltaRetry.run(
        label,
        config.maxCommitAttempts(),
        config.retryBackoff(),
        () -> {
          DeltaTable.forPath(spark, tables.state())
              .as("t")
              .merge(s.as("s"), col("t.metric").equalTo(col("s.metric")))
              .whenMatched()
              .updateAll()
              .whenNotMatched()
              .insertAll()
              .execute();
          return null;
        });
  }
}

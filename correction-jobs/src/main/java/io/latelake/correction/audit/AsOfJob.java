package io.latelake.correction.audit;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;

import io.delta.tables.DeltaTable;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.job.ActionResult;
import io.latelake.core.job.JobContext;
import io.latelake.core.metric.GoldStatus;
import io.latelake.core.metric.MetricSpec;
import io.latelake.correction.shared.CorrectionAction;
import io.latelake.correction.shared.CorrectionConfig;
import io.latelake.correction.shared.LakeReads;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Reads {@code gold.<metric>} as it was at a timestamp or version (Delta time travel) and diffs it
 * against now, per key: before, after and the difference of each measure, and {@code corrected_at}
 * and the status ({@link GoldStatus}: for the old side with the last watermark of the micro-batches
 * started by the as-of time — a version's commit time —, for the new side with the last watermark
 * now) of both sides, so a restatement or a window that settled since shows even where the measures
 * are equal.
 */
public final class AsOfJob extends CorrectionAction<AsOfJob.Options, AsOfJob.Result> {
  private static final DateTimeFormatter TS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS").withZone(ZoneOffset.UTC);

  /**
   * One key whose values, {@code corrected_at} or status differ.
   *
   * @param before measures then, JSON (null: the row did not exist)
   * @param after measures now, JSON (null: the row is gone)
   * @param delta after − before per measure, JSON of doubles (a missing side counts as 0)
   * @param correctedAtBefore {@code corrected_at} then (null: never corrected, or no row)
   * @param correctedAtAfter {@code corrected_at} now
   * @param statusBefore {@link GoldStatus} then ({@code provisional} / {@code settled} / {@code
   *     restated}, at the as-of time; null: no row)
   * @param statusAfter {@link GoldStatus} now (null: no row)
   */
  public record KeyDiff(
      Instant windowStart,
      String keys,
      String before,
      String after,
      String delta,
      Instant correctedAtBefore,
      Instant correctedAtAfter,
      String statusBefore,
      String statusAfter) {}

  /**
   * @param changed keys whose measures, {@code corrected_at} or status differ (also added and
   *     removed rows)
   * @param rows up to {@code limit} of them, ordered by window and keys
   */
  public record Result(String metric, String asOf, long changed, List<KeyDiff> rows)
      implements ActionResult {
    @Override
    public String summary() {
      return "gold." + metric + " as of " + asOf + " vs now: " + changed + " keys differ";
    }
  }

  /**
   * @param metric the gold metric
   * @param timestamp read gold as of this instant; exactly one of it and {@code version}
   * @param version read gold as of this table version
   * @param limit keys to return (the count covers all)
   */
  public record Options(
      CorrectionConfig config,
      MetricSpec metric,
      Optional<Instant> timestamp,
      Optional<Long> version,
      int limit) {
    /**
     * @throws LakeConfigException (exit 2) unless exactly one of timestamp and version
     */
    public Options {
      if (timestamp.isPresent() == version.isPresent()) {
        throw new LakeConfigException("Invalid options: give --timestamp or --table-version");
      }
    }
  }

  private final MetricSpec metric;
  private final Optional<Instant> timestamp;
  private final Optional<Long> version;

  /** The status of each side uses {@code lake.correction.horizon}. */
  public AsOfJob(JobContext context, Options options) {
    super("asof", context, options, options.config());
    this.metric = options.metric();
    this.timestamp = options.timestamp();
    this.version = options.version();
  }

  /**
   * @throws LakeConfigException (exit 2) when the gold table is missing, or the version or
   *     timestamp lies outside its history
   */
  @Override
  public Result run() {
    String path = registry.gold(metric.name());
    LakeReads.requireTable(
        spark, "asof", "gold." + metric.name(), path, "run `latelake gold` first");
    requireWithinHistory(path);
    var reader = spark.read().format("delta");
    String asOf;
    Instant then;
    if (version.isPresent()) {
      reader = reader.option("versionAsOf", version.get());
      asOf = "version " + version.get();
      Row commit =
          io.delta.tables.DeltaTable.forPath(spark, path)
              .history()
              .filter(col("version").equalTo(version.get()))
              .select("timestamp")
              .first();
      then = commit == null ? context.startedAt() : commit.getTimestamp(0).toInstant();
    } else {
      reader = reader.option("timestampAsOf", TS.format(timestamp.get()));
      asOf = timestamp.get().toString();
      then = timestamp.get();
    }
    Dataset<Row> before =
        GoldStatus.withStatus(
            beyondRetentionIsUsage(reader::load, path),
            GoldStatus.lastWatermark(spark, registry, metric, Optional.of(then)),
            config.horizon());
    Dataset<Row> now =
        GoldStatus.withStatus(
            spark.read().format("delta").load(path),
            GoldStatus.lastWatermark(spark, registry, metric, Optional.empty()),
            config.horizon());
    Dataset<Row> diff = GoldDiff.diff(now, before, metric).persist();
    try {
      long changed = step("diff gold." + metric.name(), diff::count);
      List<KeyDiff> rows = new ArrayList<>();
      for (Row r : diff.orderBy("window_start", "keys").limit(options.limit()).collectAsList()) {
        rows.add(
            new KeyDiff(
                r.<Timestamp>getAs("window_start").toInstant(),
                r.getAs("keys"),
                r.getAs("old_values"),
                r.getAs("new_values"),
                r.getAs("delta"),
                instant(r.getAs("corrected_at_before")),
                instant(r.getAs("corrected_at_after")),
                r.getAs("status_before"),
                r.getAs("status_after")));
      }
      return new Result(metric.name(), asOf, changed, List.copyOf(rows));
    } finally {
      diff.unpersist();
    }
  }

  private static final String BEYOND_RETENTION =
      "DELTA_UNSUPPORTED_TIME_TRAVEL_BEYOND_DELETED_FILE_RETENTION_DURATION";

  /**
   * Delta refuses time travel to a version whose files may be vacuumed already (older than the
   * table's {@code delta.deletedFileRetentionDuration}): that is the user's input, exit 2, one
   * line.
   */
  private Dataset<Row> beyondRetentionIsUsage(
      java.util.function.Function<String, Dataset<Row>> load, String path) {
    try {
      return load.apply(path);
    } catch (Exception e) { // AnalysisException is a checked exception to Java
      // Delta's exception carries its error class in the message's "[...]" prefix.
      if (!String.valueOf(e.getMessage()).startsWith("[" + BEYOND_RETENTION + "]")) {
        throw e;
      }
      String option = version.isPresent() ? "--table-version" : "--timestamp";
      Object value = version.isPresent() ? version.get() : timestamp.get();
      String delta = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
      throw LakeConfigException.invalid(
          option,
          value,
          "gold."
              + metric.name()
              + " keeps older versions' files only for its delta.deletedFileRetentionDuration, so"
              + " time travel cannot reach this version ("
              + delta.replaceFirst("^\\[[A-Z_]+\\] ", "")
              + ")");
    }
  }

  /**
   * Time travel reaches the versions in the table's history, and timestamps from its first to its
   * last commit (Delta refuses others with an error that is the user's input, not a failure).
   */
  private void requireWithinHistory(String path) {
    Row h =
        DeltaTable.forPath(spark, path)
            .history()
            .agg(min("version"), max("version"), min("timestamp"), max("timestamp"))
            .first();
    long first = h.getLong(0);
    long last = h.getLong(1);
    Instant from = h.getTimestamp(2).toInstant();
    Instant to = h.getTimestamp(3).toInstant();
    String table = "gold." + metric.name();
    if (version.isPresent() && (version.get() < first || version.get() > last)) {
      throw LakeConfigException.invalid(
          "--table-version", version.get(), table + " has versions " + first + " to " + last);
    }
    if (timestamp.isPresent() && (timestamp.get().isBefore(from) || timestamp.get().isAfter(to))) {
      throw LakeConfigException.invalid(
          "--timestamp",
          timestamp.get(),
          table
              + "'s history runs from "
              + from
              + " (version "
              + first
              + ") to "
              + to
              + " (version "
              + last
              + ")");
    }
  }

  private static Instant instant(Timestamp t) {
    return t == null ? null : t.toInstant();
  }
}

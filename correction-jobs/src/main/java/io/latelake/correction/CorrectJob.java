package io.latelake.correction;

import io.latelake.core.job.JobContext;
import io.latelake.core.metric.LatePolicy;
import io.latelake.core.metric.MetricSpec;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.storage.StorageLevel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Late-window correction of the streaming gold metrics (DESIGN.md semantics 4–6). Per metric: the
 * windows touched by valid bronze rows since the last run ({@link BronzeChanges}: Delta's change
 * read; with {@code --since}, rows ingested since then) plus those deferred earlier ({@link
 * CorrectionState}); the closed ones ({@link WindowPlanner}) are recomputed from bronze and
 * compared with gold ({@link WindowDiff}); the changed rows go by the late policy ({@link
 * LatePolicies}); the state keeps the windows still open. Every step is idempotent.
 */
public final class CorrectJob extends CorrectionAction<CorrectJob.Options, CorrectJob.Result> {
  private static final Logger LOG = LoggerFactory.getLogger(CorrectJob.class);
  private static final int SAMPLE = 50;

  /**
   * @param since rescan bronze rows ingested at or after this instant (required on a first run)
   */
  public record Options(
      CorrectionConfig config, List<MetricSpec> metrics, Optional<Instant> since) {}

  /** One changed gold row: keys, old and new measures as JSON (null: no row), a Reason name. */
  public record Change(
      String metric,
      Instant windowStart,
      Instant windowEnd,
      String keys,
      String oldValues,
      String newValues,
      String reason) {
    static Change of(MetricSpec metric, Row r) {
      return new Change(
          metric.name(),
          r.<Timestamp>getAs("window_start").toInstant(),
          r.<Timestamp>getAs("window_end").toInstant(),
          r.getAs("keys"),
          r.getAs("old_values"),
          r.getAs("new_values"),
          r.getAs("reason"));
    }
  }

  /** fromVersion -1: by --since; watermark null: none reported; changes: up to 50. */
  public record MetricResult(
      String metric,
      LatePolicy policy,
      long fromVersion,
      long toVersion,
      Instant watermark,
      int touchedWindows,
      int closedWindows,
      int deferredWindows,
      long rowsChanged,
      List<Change> changes) {}

  /**
   * @param correctedAt the run's start: the {@code corrected_at} of everything it restates
   */
  public record Result(String runId, Instant correctedAt, List<MetricResult> metrics)
      implements ActionResult {
    public long rowsChanged() {
      return metrics.stream().mapToLong(MetricResult::rowsChanged).sum();
    }

    @Override
    public String summary() {
      return rowsChanged() + " gold rows changed, run " + runId;
    }
  }

  private final CorrectionState state;

  public CorrectJob(JobContext context, Options options) {
    super("correct", context, options, options.config());
    this.state = new CorrectionState(spark, tables, config);
  }

  /**
   * @throws io.latelake.core.config.LakeConfigException (exit 2): no state and no --since
   */
  @Override
  public Result run() {
    requireBronze("correct");
    requireGold("correct", options.metrics());
    Map<String, CorrectionState.Entry> states = step("read correction_state", state::read);
    if (options.since().isEmpty()) {
      CorrectionState.requirePreviousRun(options.metrics(), states);
    }
    tables.createMonitoring(spark);
    return new Result(
        runId(),
        context.startedAt(),
        options.metrics().stream()
            .map(m -> correct(m, Optional.ofNullable(states.get(m.name()))))
            .toList());
  }

  private MetricResult correct(MetricSpec metric, Optional<CorrectionState.Entry> prior) {
    long before = LakeReads.latestVersion(spark, registry.bronzeEvents());
    long from = options.since().isPresent() ? -1 : prior.orElseThrow().bronzeVersion();
    TreeSet<Instant> touched =
        step(
            "bronze changes of " + metric.name(),
            () ->
                new BronzeChanges(context, state)
                    .touched(metric, prior, options.since(), before, runId(), startedAt()));
    long version = LakeReads.latestVersion(spark, registry.bronzeEvents());
    Optional<Instant> watermark = LakeReads.lastWatermark(spark, registry, metric);
    WindowPlanner.Plan plan = WindowPlanner.plan(touched, metric.window(), watermark);
    List<Change> sample = List.of();
    long changed = 0;
    if (!plan.closed().isEmpty()) {
      Dataset<Row> corrections =
          WindowDiff.corrections(
              spark,
              registry,
              metric,
              plan,
              version,
              LakeReads.latestVersion(spark, registry.gold(metric.name())),
              config.dedupHorizon());
      // Read several times below (sample, count, log, window bounds, MERGE): computed once.
      corrections.persist(StorageLevel.MEMORY_AND_DISK());
      try {
        sample =
            step("recompute " + metric.name(), () -> corrections.limit(SAMPLE).collectAsList())
                .stream()
                .map(r -> Change.of(metric, r))
                .toList();
        changed = sample.size() < SAMPLE ? sample.size() : corrections.count();
        if (changed > 0) {
          perform(
              metric.latePolicy().configName() + " " + metric.name(),
              () ->
                  LatePolicies.apply(
                      spark, tables, config, metric, corrections, runId(), startedAt()));
        }
      } finally {
        corrections.unpersist();
      }
    }
    perform(
        "correction_state " + metric.name(),
        () -> state.write(metric.name(), before, plan.deferred(), runId(), startedAt()));
    LOG.info(
        "correct {}: bronze versions ({}, {}], {} windows touched, {} closed (watermark {}),"
            + " {} deferred; {} gold rows differ from bronze, policy {}",
        metric.name(),
        from < 0 ? "since " + options.since().get() : from,
        version,
        plan.touched(),
        plan.closed().size(),
        watermark.orElse(null),
        plan.deferred().size(),
        changed,
        metric.latePolicy().configName());
    return new MetricResult(
        metric.name(),
        metric.latePolicy(),
        from,
        version,
        watermark.orElse(null),
        plan.touched(),
        plan.closed().size(),
        plan.deferred().size(),
        changed,
        sample);
  }
}

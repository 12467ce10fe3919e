package io.latelake.correction.correct;

import io.latelake.core.job.JobContext;
import io.latelake.core.metric.GoldStatus;
import io.latelake.core.metric.MetricSpec;
import io.latelake.correction.policy.LateHandling;
import io.latelake.correction.shared.CorrectionAction;
import io.latelake.correction.shared.CorrectionConfig;
import io.latelake.correction.shared.LakeReads;
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
 * CorrectionState}); the closed ones ({@link WindowPlanner}) are recomputed from bronze, compared
 * with gold ({@link WindowDiff}) and the changed rows go by the late policy ({@link LateHandling});
 * the state keeps the windows still open. Every step is idempotent.
 */
public final class CorrectJob extends CorrectionAction<CorrectJob.Options, CorrectResult> {
  private static final Logger LOG = LoggerFactory.getLogger(CorrectJob.class);

  /**
   * @param since rescan bronze rows ingested at or after this instant (required on a first run)
   */
  public record Options(
      CorrectionConfig config, List<MetricSpec> metrics, Optional<Instant> since) {}

  private final CorrectionState state;
  private final BronzeChanges changes;

  public CorrectJob(JobContext context, Options options) {
    super("correct", context, options, options.config());
    this.state = new CorrectionState(spark, tables, config);
    this.changes = new BronzeChanges(context);
  }

  /**
   * @throws io.latelake.core.config.LakeConfigException (exit 2): no state and no --since
   */
  @Override
  public CorrectResult run() {
    perform(
        "check tables",
        () -> {
          requireBronze("correct");
          requireGold("correct", options.metrics());
        });
    Map<String, CorrectionState.Entry> states = step("read correction_state", state::read);
    if (options.since().isEmpty()) {
      CorrectionState.requirePreviousRun(options.metrics(), states);
    }
    perform("create monitoring tables", () -> tables.createMonitoring(spark));
    return new CorrectResult(
        runId(),
        context.startedAt(),
        options.metrics().stream()
            .map(m -> correct(m, Optional.ofNullable(states.get(m.name()))))
            .toList());
  }

  private CorrectResult.MetricResult correct(
      MetricSpec metric, Optional<CorrectionState.Entry> prior) {
    long before =
        step(
            "bronze version before the change read",
            () -> LakeReads.latestVersion(spark, registry.bronzeEvents()));
    // The gold watermark is read beside the change read: two independent reads of small
    // tables whose time is mostly the driver's (planning, Delta log reads, the query's start).
    TreeSet<Instant> touched;
    long version;
    Optional<Instant> watermark;
    try (Beside<Optional<Instant>> goldWatermark =
        beside("gold watermark", () -> GoldStatus.lastWatermark(spark, registry, metric))) {
      touched =
          step(
              "bronze changes of " + metric.name(),
              () -> changes.touched(metric, prior, options.since(), before));
      version =
          step(
              "bronze version after the change read",
              () -> LakeReads.latestVersion(spark, registry.bronzeEvents()));
      watermark = goldWatermark.join();
    }
    WindowPlanner.Plan plan = WindowPlanner.plan(touched, metric.window(), watermark);
    Outcome outcome = correctClosed(metric, plan, version);
    perform(
        "correction_state " + metric.name(),
        () -> state.write(metric.name(), before, plan.deferred(), runId(), startedAt()));
    CorrectResult.MetricResult result =
        new CorrectResult.MetricResult(
            metric.name(),
            metric.latePolicy(),
            options.since().isPresent() ? -1 : prior.orElseThrow().bronzeVersion(),
            options.since().orElse(null),
            version,
            watermark.orElse(null),
            plan.touched(),
            plan.closed().size(),
            plan.deferred().size(),
            outcome.changed(),
            outcome.sample());
    LOG.info("correct {}", result.summary());
    return result;
  }

  /**
   * What a metric's corrections came to.
   *
   * @param changed the number of gold rows that differ from bronze
   * @param sample the first {@value CorrectResult#SAMPLE} of them
   */
  private record Outcome(long changed, List<CorrectResult.Change> sample) {
    static final Outcome NONE = new Outcome(0, List.of());
  }

  /**
   * Recomputes the plan's closed windows from bronze at {@code bronzeVersion}, compares them with
   * gold at its latest version ({@link WindowDiff}) and hands the changed rows to the metric's late
   * handling ({@link LateHandling}).
   *
   * @return {@link Outcome#NONE} when nothing is closed
   */
  private Outcome correctClosed(MetricSpec metric, WindowPlanner.Plan plan, long bronzeVersion) {
    if (plan.closed().isEmpty()) {
      return Outcome.NONE;
    }
    LateHandling handling = LateHandling.of(spark, tables, config, metric);
    Dataset<Row> corrections =
        WindowDiff.corrections(
            spark,
            registry,
            metric,
            plan,
            bronzeVersion,
            LakeReads.latestVersion(spark, registry.gold(metric.name())),
            config.dedupHorizon());
    // Read several times below (sample, count, log, window bounds, MERGE): computed once.
    corrections.persist(StorageLevel.MEMORY_AND_DISK());
    try {
      List<CorrectResult.Change> sample =
          step(
              "recompute " + metric.name(),
              () -> CorrectResult.Change.sample(metric.name(), corrections));
      long changed = sample.size() < CorrectResult.SAMPLE ? sample.size() : corrections.count();
      if (changed > 0) {
        perform(
            metric.latePolicy().configName() + " " + metric.name(),
            () -> handling.apply(corrections, runId(), startedAt()));
      }
      return new Outcome(changed, sample);
    } finally {
      corrections.unpersist();
    }
  }
}

package io.latelake.correction.policy;

import io.latelake.core.job.ActionResult;
import io.latelake.core.job.JobContext;
import io.latelake.core.metric.MetricSpec;
import io.latelake.correction.shared.CorrectionAction;
import io.latelake.correction.shared.CorrectionConfig;
import io.latelake.correction.shared.LakeReads;
import java.util.List;

/**
 * Applies the staged corrections of a {@code reconcile} metric to gold ({@link Reconcile#apply}):
 * the latest staged correction per gold key from the approved runs is MERGEd into {@code
 * gold.<metric>} with {@code corrected_at}, logged in {@code monitoring.corrections_log} (policy
 * {@code reconcile}) and marked applied in {@code monitoring.pending_<metric>}. A correction staged
 * while this runs stays pending. Safe to re-run.
 */
public final class ApplyCorrectionsJob
    extends CorrectionAction<ApplyCorrectionsJob.Options, ApplyCorrectionsJob.Result> {
  /**
   * @param metric a metric with {@code late-policy = reconcile}
   * @param runIds the correct runs whose staged corrections are approved; empty: all
   */
  public record Options(CorrectionConfig config, MetricSpec metric, List<String> runIds) {
    public Options {
      runIds = List.copyOf(runIds);
    }
  }

  /**
   * @param rowsRestated gold rows restated
   */
  public record Result(String runId, String metric, long rowsRestated) implements ActionResult {
    @Override
    public String summary() {
      return rowsRestated + " gold rows of " + metric + " restated, run " + runId;
    }

    @Override
    public void report(io.latelake.core.metrics.RunFigures figures) {
      figures.gauge(
          "latelake_rows_restated",
          "Gold rows the run restated (or staged, for a reconcile metric).",
          rowsRestated,
          "metric",
          metric);
    }
  }

  public ApplyCorrectionsJob(JobContext context, Options options) {
    super("apply", context, options, options.config());
  }

  /**
   * @throws io.latelake.core.config.LakeConfigException (exit 2) when gold is missing
   */
  @Override
  public Result run() {
    MetricSpec metric = options.metric();
    LakeReads.requireTable(
        spark,
        "apply-corrections",
        "gold." + metric.name(),
        registry.gold(metric.name()),
        "run `latelake gold` first");
    tables.createMonitoring(spark);
    long n =
        step(
            "apply staged corrections of " + metric.name(),
            () ->
                Reconcile.apply(
                    spark, tables, metric, options.runIds(), runId(), startedAt(), config));
    return new Result(runId(), metric.name(), n);
  }
}

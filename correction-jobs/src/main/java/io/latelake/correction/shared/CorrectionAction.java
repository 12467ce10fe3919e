package io.latelake.correction.shared;

import io.latelake.core.job.ActionResult;
import io.latelake.core.job.BatchAction;
import io.latelake.core.job.JobContext;
import io.latelake.core.metric.MetricSpec;
import java.util.List;

/**
 * A batch action of the correction path ({@link BatchAction}) with the correction config and the
 * correction path's tables.
 *
 * @param <O> the validated options
 * @param <R> the result record
 */
public abstract class CorrectionAction<O, R extends ActionResult> extends BatchAction<O, R> {
  protected final CorrectionTables tables;
  protected final CorrectionConfig config;

  /**
   * @param action the action's name, e.g. {@code correct}: the prefix of its run id
   * @param options the action's validated options
   * @param config the correction config (part of the options)
   */
  protected CorrectionAction(
      String action, JobContext context, O options, CorrectionConfig config) {
    super(action, context, options);
    this.tables = new CorrectionTables(context.tables());
    this.config = config;
  }

  /**
   * @throws io.latelake.core.config.LakeConfigException (exit 2) when a gold table is missing
   */
  protected final void requireGold(String action, List<MetricSpec> metrics) {
    for (MetricSpec m : metrics) {
      LakeReads.requireTable(
          spark, action, "gold." + m.name(), registry.gold(m.name()), "run `latelake gold` first");
    }
  }

  /**
   * @throws io.latelake.core.config.LakeConfigException (exit 2) when bronze is missing
   */
  protected final void requireBronze(String action) {
    LakeReads.requireTable(
        spark, action, "bronze_events", registry.bronzeEvents(), "run `latelake bronze` first");
  }
}

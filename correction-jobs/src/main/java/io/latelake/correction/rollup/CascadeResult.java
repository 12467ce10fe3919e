package io.latelake.correction.rollup;

import io.latelake.core.job.ActionResult;
import io.latelake.correction.shared.CorrectionTables;
import io.latelake.correction.shared.RollupPeriod;
import java.time.LocalDate;
import java.util.List;

/**
 * What {@code cascade} did for one metric and rollup ({@link CascadeJob}).
 *
 * @param metric the metric
 * @param rollup the rollup cascaded
 * @param changedPeriods period starts (week: Monday, month: the 1st, year: January 1st) with a
 *     changed row
 * @param partialDays days outside the range (up to today), in its first or last period, that no
 *     rebuild has built: those periods hold only the days that were built (a warning is logged)
 */
public record CascadeResult(
    String metric,
    RollupPeriod rollup,
    List<LocalDate> changedPeriods,
    long rowsChanged,
    List<LocalDate> partialDays)
    implements ActionResult {
  /**
   * @return one line for the log: counts, first and last, never the whole list
   */
  @Override
  public String summary() {
    String unit = rollup.unit();
    return rollup.tablePrefix()
        + metric
        + ": "
        + rowsChanged
        + " rows changed in "
        + CorrectionTables.summary(changedPeriods, unit)
        + (partialDays.isEmpty()
            ? ""
            : "; "
                + CorrectionTables.summary(partialDays, "day")
                + " of the edge "
                + unit
                + "s never rebuilt");
  }

  @Override
  public void report(io.latelake.core.metrics.RunFigures figures) {
    RollupFigures.report(figures, metric, rollup.configName(), changedPeriods.size(), rowsChanged);
  }
}

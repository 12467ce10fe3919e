package io.latelake.correction.rollup;

import io.latelake.core.metrics.RunFigures;

/** The figures {@code rebuild} and {@code cascade} push per metric and rollup. */
final class RollupFigures {
  private RollupFigures() {}

  static void report(
      RunFigures figures, String metric, String rollup, long periodsChanged, long rows) {
    figures.gauge(
        "latelake_rollup_periods_changed",
        "Days (daily) or period starts (weekly, monthly, yearly) whose rows the run changed.",
        periodsChanged,
        "metric",
        metric,
        "rollup",
        rollup);
    figures.gauge(
        "latelake_rollup_rows_written",
        "Rollup rows the run wrote or deleted.",
        rows,
        "metric",
        metric,
        "rollup",
        rollup);
  }
}

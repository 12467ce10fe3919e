package io.latelake.core.job;

import io.latelake.core.ExitCode;
import java.util.List;

/** What a {@link BatchAction}'s result tells its command: a log line, figures and the exit code. */
public interface ActionResult {
  /**
   * @return one line for the log: counts, first and last, never a whole list
   */
  String summary();

  /**
   * @return the command's exit code for this result; {@link ExitCode#OK} unless overridden
   */
  default ExitCode exitCode() {
    return ExitCode.OK;
  }

  /**
   * Adds this result's figures to what the run pushes to a Pushgateway ({@link
   * io.latelake.core.metrics.Pushgateway}); adds nothing by default.
   */
  default void report(io.latelake.core.metrics.RunFigures figures) {}

  /** A result with one part per metric; its summary joins theirs. */
  interface PerMetric<M extends ActionResult> extends ActionResult {
    List<M> metrics();

    @Override
    default String summary() {
      return String.join("; ", metrics().stream().map(ActionResult::summary).toList());
    }

    @Override
    default void report(io.latelake.core.metrics.RunFigures figures) {
      metrics().forEach(m -> m.report(figures));
    }
  }
}

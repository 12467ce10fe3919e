package io.latelake.correction;

import io.latelake.core.ExitCode;
import java.util.List;

/** What a {@link CorrectionAction} result tells its command: a log line and the exit code. */
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

  /** A result with one part per metric; its summary joins theirs. */
  interface PerMetric<M extends ActionResult> extends ActionResult {
    List<M> metrics();

    @Override
    default String summary() {
      return String.join("; ", metrics().stream().map(ActionResult::summary).toList());
    }
  }
}

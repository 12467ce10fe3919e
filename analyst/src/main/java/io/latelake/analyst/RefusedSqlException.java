package io.latelake.analyst;

import io.latelake.core.ExitCode;
import io.latelake.core.LatelakeException;

/**
 * The analysts' SQL did not run (exit 2, nothing was read or written): the read-only sandbox
 * ({@link ReadOnlyGuard}) refused a statement ("Refused &lt;label&gt;: &lt;why&gt;"), Spark could
 * not parse or analyse it ("Cannot parse|run &lt;label&gt;: ..."), or a notebook file is malformed
 * ("Cannot read notebook ...").
 */
public final class RefusedSqlException extends LatelakeException {
  /**
   * @param message the whole message
   */
  public RefusedSqlException(String message) {
    super(message, ExitCode.USAGE);
  }

  /**
   * @param message the whole message
   * @param cause Spark's parse or analysis error
   */
  public RefusedSqlException(String message, Throwable cause) {
    super(message, ExitCode.USAGE, cause);
  }
}

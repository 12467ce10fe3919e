package io.latelake.core.table;

import io.latelake.core.ExitCode;
import io.latelake.core.LatelakeException;

/**
 * A write failed for good (exit 1): a Delta commit or write after its retries ({@link DeltaRetry}),
 * a file operation on a checkpoint, or a send to Kafka ({@code replay}). Its message says what
 * could not be done ("Cannot &lt;what&gt;: &lt;cause&gt;"; "Interrupted while retrying
 * &lt;what&gt;" when the retries were interrupted). What was committed before stays; the command
 * can be run again.
 */
public final class StorageException extends LatelakeException {
  /**
   * @param message the whole message: "Cannot &lt;what&gt;: &lt;cause&gt;"
   * @param cause the failure
   */
  public StorageException(String message, Throwable cause) {
    super(message, ExitCode.RUNTIME_FAILURE, cause);
  }
}

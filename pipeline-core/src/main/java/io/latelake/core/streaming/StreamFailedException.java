package io.latelake.core.streaming;

import io.latelake.core.ExitCode;
import io.latelake.core.LatelakeException;

/**
 * A streaming query could not start or failed (exit 1): "Stream &lt;query&gt; failed: &lt;root
 * cause&gt;[; stopped &lt;other queries&gt;]", or "Cannot start &lt;query&gt;: &lt;cause&gt;". The
 * checkpoint keeps what was committed; a restart continues from it.
 */
public final class StreamFailedException extends LatelakeException {
  /**
   * @param message the whole message
   * @param cause Spark's failure
   */
  public StreamFailedException(String message, Throwable cause) {
    super(message, ExitCode.RUNTIME_FAILURE, cause);
  }
}

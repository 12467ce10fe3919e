package io.latelake.core.streaming;

import io.latelake.core.ExitCode;
import io.latelake.core.LatelakeException;

/**
 * A stream's checkpoint does not fit its output table: the table has rows written by the stream and
 * the checkpoint has no commit, so a start would read the input again and write it twice (exit 2,
 * nothing is started). The remedy is in the message: restore the checkpoint, or delete the table
 * and the checkpoint to rebuild on purpose.
 */
public final class CheckpointException extends LatelakeException {
  /**
   * @param message the whole message, naming the query, the table and the checkpoint
   */
  public CheckpointException(String message) {
    super(message, ExitCode.USAGE);
  }
}

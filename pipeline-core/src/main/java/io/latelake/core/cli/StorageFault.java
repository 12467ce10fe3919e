package io.latelake.core.cli;

import java.nio.file.ReadOnlyFileSystemException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Recognises a failure of the storage under {@code lake.root} rather than of latelake: no space
 * left on the device, or a read-only file system. Such a failure gets one line that says what the
 * storage refused and what to do, instead of a stack trace. Nothing committed before it is lost:
 * the micro-batch or job that failed did not commit, and the same command started again redoes it
 * (streams replay it from their checkpoint; batch jobs are idempotent).
 */
final class StorageFault {
  /** The table a Spark write task was writing to, from Spark's TASK_WRITE_FAILED message. */
  private static final Pattern WRITING_TO = Pattern.compile("writing rows to (\\S+?)\\.?(?:\\s|$)");

  private StorageFault() {}

  /**
   * @param failure a job's failure
   * @return the one-line message when the storage refused a write, else empty
   */
  static Optional<String> describe(Throwable failure) {
    String what = null;
    String where = null;
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String message = String.valueOf(t.getMessage());
      Matcher m = WRITING_TO.matcher(message);
      if (where == null && m.find()) {
        where = m.group(1);
      }
      if (what == null) {
        if (message.contains("No space left on device")) {
          what = "no space is left on the device";
        } else if (t instanceof ReadOnlyFileSystemException
            || message.contains("Read-only file system")) {
          what = "the file system is read-only";
        }
      }
    }
    if (what == null) {
      return Optional.empty();
    }
    return Optional.of(
        "The storage refused a write"
            + (where == null ? "" : " to " + where)
            + ": "
            + what
            + ". Nothing committed is lost: fix the storage and start the same command again (a"
            + " stream replays the micro-batch from its checkpoint).");
  }
}

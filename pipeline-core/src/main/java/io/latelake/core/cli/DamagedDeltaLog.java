package io.latelake.core.cli;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Recognises a failure to read a Delta table's transaction log because one of its files is damaged
 * (a commit truncated by a crash of a writer that bypassed Delta, a disk or copy fault): Hadoop's
 * checksum error ({@code ChecksumException}) or a JSON error that names a file under {@code
 * _delta_log}. Such a failure gets one line that names the table and the file and says what to do,
 * instead of a stack trace.
 */
final class DamagedDeltaLog {
  /** A file of a Delta log in an error text, e.g. {@code file:/lake/gold/x/_delta_log/...json}. */
  private static final Pattern LOG_FILE =
      Pattern.compile("((?:[a-zA-Z][a-zA-Z0-9+.-]*:)?/\\S*?)/_delta_log/([0-9a-zA-Z._-]+)");

  private DamagedDeltaLog() {}

  /**
   * @param failure a job's failure
   * @return the one-line message when the failure is a damaged Delta log file, else empty
   */
  static Optional<String> describe(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String name = t.getClass().getName();
      boolean damage =
          name.equals("org.apache.hadoop.fs.ChecksumException")
              || name.startsWith("com.fasterxml.jackson.core.")
              || name.startsWith("com.fasterxml.jackson.databind.");
      Matcher m = LOG_FILE.matcher(String.valueOf(t.getMessage()));
      if (damage && m.find()) {
        String table = m.group(1);
        String file = m.group(2);
        return Optional.of(
            "Cannot read Delta table "
                + table
                + ": its log file _delta_log/"
                + file
                + " is damaged ("
                + t.getClass().getSimpleName()
                + "). Restore that file from a backup or the storage's versioning; a table latelake"
                + " derives (silver, gold, rollups, monitoring) can instead be moved aside and"
                + " rebuilt from bronze (README, \"Running in production\").");
      }
    }
    return Optional.empty();
  }
}

package io.latelake.core;

/**
 * Process exit codes of every latelake entry point, for schedulers (cron, Airflow).
 *
 * <ul>
 *   <li>{@code 0} — the job finished.
 *   <li>{@code 1} — runtime failure (Spark, storage, broker).
 *   <li>{@code 2} — bad usage or configuration; nothing was read or written.
 *   <li>{@code 3} — an audit or alert found differences beyond tolerance.
 *   <li>{@code 143} — stopped by SIGTERM (128 + 15), the status the JVM exits with then.
 * </ul>
 */
public enum ExitCode {
  OK(0),
  RUNTIME_FAILURE(1),
  USAGE(2),
  AUDIT_DIFFERENCES(3),
  STOPPED(143);

  private final int code;

  ExitCode(int code) {
    this.code = code;
  }

  /**
   * @return the numeric process exit code
   */
  public int code() {
    return code;
  }
}

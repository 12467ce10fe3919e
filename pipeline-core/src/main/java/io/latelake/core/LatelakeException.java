package io.latelake.core;

/** Base of latelake's typed exceptions; carries the exit code a launcher should return. */
public class LatelakeException extends RuntimeException {
  private final ExitCode exitCode;

  public LatelakeException(String message, ExitCode exitCode) {
    super(message);
    this.exitCode = exitCode;
  }

  public LatelakeException(String message, ExitCode exitCode, Throwable cause) {
    super(message, cause);
    this.exitCode = exitCode;
  }

  /**
   * @return the exit code for this failure
   */
  public ExitCode exitCode() {
    return exitCode;
  }
}

package io.latelake.bench;

/** A benchmark run could not be completed (a stream, a child JVM or a result file failed). */
public final class BenchException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public BenchException(String message) {
    super(message);
  }

  public BenchException(String message, Throwable cause) {
    super(message, cause);
  }
}

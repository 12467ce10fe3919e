package io.latelake.core.metric;

import java.util.Optional;

/**
 * One measure of a gold metric.
 *
 * @param name output column
 * @param function count, sum, min or max
 * @param column input column (absent for count)
 */
public record Measure(String name, Function function, Optional<String> column) {
  /** Aggregate functions a measure can use. */
  public enum Function {
    COUNT,
    SUM,
    MIN,
    MAX
  }
}

package io.latelake.core.metric;

import java.util.Optional;

/**
 * One measure of a gold metric, as stored in its gold table and rollups.
 *
 * <p>An {@code avg} measure declared as {@code {name = x, function = avg, column = c}} is stored as
 * three measures, in this order: {@code x} ({@link Function#AVG}, double), {@code x_sum} ({@link
 * Function#SUM} of {@code c}) and {@code x_count} ({@link Function#COUNT} of {@code c}: the
 * non-null values). {@code x} is always {@code x_sum / x_count} (NULL when no value is non-null),
 * computed after the aggregation, so a rollup or a correction derives it from exact stored parts
 * and never averages averages or divides by {@code count(*)} (case C42).
 *
 * @param name output column
 * @param function count, sum, min, max or avg
 * @param column input column: absent for {@code count(*)}; present for {@code count(column)} (rows
 *     whose column is not NULL) and every other function
 */
public record Measure(String name, Function function, Optional<String> column) {
  /** Aggregate functions a measure can use. */
  public enum Function {
    COUNT,
    SUM,
    MIN,
    MAX,
    AVG
  }

  /** Suffix of an average's stored sum column. */
  public static final String AVG_SUM = "_sum";

  /** Suffix of an average's stored non-null count column. */
  public static final String AVG_COUNT = "_count";

  /**
   * @return for an {@link Function#AVG} measure, its stored sum column ({@code name_sum})
   */
  public String avgSumColumn() {
    return name + AVG_SUM;
  }

  /**
   * @return for an {@link Function#AVG} measure, its stored non-null count column ({@code
   *     name_count})
   */
  public String avgCountColumn() {
    return name + AVG_COUNT;
  }
}

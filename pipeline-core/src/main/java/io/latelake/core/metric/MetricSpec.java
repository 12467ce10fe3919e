package io.latelake.core.metric;

import java.time.Duration;
import java.util.List;

/**
 * A gold metric: a tumbling event-time window, group-by columns and measures; written to {@code
 * gold.<name>}.
 *
 * @param name metric and table name
 * @param window window duration (divides a day)
 * @param groupBy group-by columns (configured event fields)
 * @param measures the measures
 * @param latePolicy what the correction path does with late data
 */
public record MetricSpec(
    String name,
    Duration window,
    List<String> groupBy,
    List<Measure> measures,
    LatePolicy latePolicy) {

  /**
   * @return the streaming query's name, also its checkpoint folder
   */
  public String queryName() {
    return "gold_" + name;
  }

  /**
   * @return the measure column names
   */
  public List<String> measureNames() {
    return measures.stream().map(Measure::name).toList();
  }
}

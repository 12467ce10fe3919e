package io.latelake.correction.shared;

import io.latelake.core.metric.MetricSpec;
import io.latelake.core.time.DayRange;
import java.util.List;

/**
 * The validated input of {@code rebuild}, {@code cascade} and {@code audit}.
 *
 * @param config the correction config
 * @param metrics the selected metrics
 * @param range the event-date range
 */
public record RangeSpec(CorrectionConfig config, List<MetricSpec> metrics, DayRange range) {
  public RangeSpec {
    metrics = List.copyOf(metrics);
  }
}

package io.latelake.core.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The figures one run of a batch command reports to a Prometheus Pushgateway ({@link Pushgateway}):
 * gauges, each a name (Prometheus conventions: {@code latelake_} prefix, unit in the name), a help
 * text and one value per label set. Filled by the command while it runs; pushed when it ends.
 */
public final class RunFigures {
  /**
   * One gauge value.
   *
   * @param name metric name, e.g. {@code latelake_rows_restated}
   * @param help its help text
   * @param labels label names to values, in order (e.g. {@code metric=page_5m}); may be empty
   * @param value the value
   */
  public record Figure(String name, String help, Map<String, String> labels, double value) {}

  private final List<Figure> figures = new ArrayList<>();

  /**
   * Adds a gauge value. Label names and values are given in pairs: {@code "metric", "page_5m"}.
   *
   * @return this
   * @throws IllegalArgumentException on an odd number of label strings
   */
  public RunFigures gauge(String name, String help, double value, String... labelPairs) {
    if (labelPairs.length % 2 != 0) {
      throw new IllegalArgumentException("labels come in name/value pairs: " + name);
    }
    Map<String, String> labels = new LinkedHashMap<>();
    for (int i = 0; i < labelPairs.length; i += 2) {
      labels.put(labelPairs[i], labelPairs[i + 1]);
    }
    figures.add(new Figure(name, help, Map.copyOf(labels), value));
    return this;
  }

  /**
   * @return the figures, in the order added
   */
  public List<Figure> figures() {
    return List.copyOf(figures);
  }
}

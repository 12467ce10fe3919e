package io.latelake.core.metric;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The part of a {@link MetricSpec} that a gold table and its streaming checkpoint are built with:
 * the window, the group-by columns and the measures, in order. Changing any of them changes the
 * table's columns or the aggregation state Spark keeps in the checkpoint, so a stream may not
 * continue on them (see {@link MetricDefinitionGuard}). The late policy is not part of it (it
 * changes neither), and the watermark delay is recorded apart ({@link
 * io.latelake.core.streaming.WatermarkDelays}): Spark accepts a new delay on an old checkpoint, it
 * only keeps the old watermark until event time passes it.
 *
 * <p>Canonical form (stored in the table property {@value #PROPERTY}): {@code window=PT5M;
 * group-by=[page]; measures=[views=count, total=sum(duration_s)]}.
 *
 * @param window the window duration
 * @param groupBy the group-by columns, in order
 * @param measures each measure as {@code name=function} or {@code name=function(column)}, in order
 */
public record MetricDefinition(Duration window, List<String> groupBy, List<String> measures) {
  /** Gold table property holding {@link #canonical()}. */
  public static final String PROPERTY = "latelake.metric.definition";

  private static final Pattern FORM =
      Pattern.compile("window=(\\S+); group-by=\\[(.*)]; measures=\\[(.*)]");

  /**
   * @return the definition of {@code metric}
   */
  public static MetricDefinition of(MetricSpec metric) {
    List<String> measures = new ArrayList<>();
    for (Measure m : metric.measures()) {
      String fn = m.function().name().toLowerCase(java.util.Locale.ROOT);
      measures.add(m.name() + "=" + fn + m.column().map(c -> "(" + c + ")").orElse(""));
    }
    return new MetricDefinition(
        metric.window(), List.copyOf(metric.groupBy()), List.copyOf(measures));
  }

  /**
   * @return the canonical form, e.g. {@code window=PT5M; group-by=[page]; measures=[views=count]}
   */
  public String canonical() {
    return "window="
        + window
        + "; group-by=["
        + String.join(", ", groupBy)
        + "]; measures=["
        + String.join(", ", measures)
        + "]";
  }

  /**
   * @param text a {@link #canonical()} form
   * @return the definition, empty when {@code text} is not one
   */
  public static java.util.Optional<MetricDefinition> parse(String text) {
    Matcher m = FORM.matcher(text == null ? "" : text.trim());
    if (!m.matches()) {
      return java.util.Optional.empty();
    }
    try {
      return java.util.Optional.of(
          new MetricDefinition(Duration.parse(m.group(1)), split(m.group(2)), split(m.group(3))));
    } catch (java.time.format.DateTimeParseException e) {
      return java.util.Optional.empty();
    }
  }

  private static List<String> split(String list) {
    return list.isBlank() ? List.of() : List.of(list.split(", "));
  }

  /**
   * @return the measure's name in a {@code name=function(column)} entry
   */
  public static String measureName(String measure) {
    return measure.substring(0, measure.indexOf('='));
  }

  /**
   * What differs from {@code built}, one phrase per change: window, group-by, measures added,
   * removed, changed (same name, other function or column) or reordered.
   *
   * @param built the definition the table and checkpoint were built with
   * @return the changes, empty when the definitions are equal
   */
  public List<String> changesFrom(MetricDefinition built) {
    List<String> out = new ArrayList<>();
    if (!window.equals(built.window)) {
      out.add("window " + built.window + " -> " + window);
    }
    if (!groupBy.equals(built.groupBy)) {
      out.add("group-by " + built.groupBy + " -> " + groupBy);
    }
    List<String> builtNames = built.measures.stream().map(MetricDefinition::measureName).toList();
    List<String> names = measures.stream().map(MetricDefinition::measureName).toList();
    for (String m : measures) {
      int i = builtNames.indexOf(measureName(m));
      if (i < 0) {
        out.add("measure added: " + m);
      } else if (!built.measures.get(i).equals(m)) {
        out.add("measure changed: " + built.measures.get(i) + " -> " + m);
      }
    }
    for (String m : built.measures) {
      if (!names.contains(measureName(m))) {
        out.add("measure removed: " + m);
      }
    }
    List<String> kept = names.stream().filter(builtNames::contains).toList();
    if (!kept.equals(builtNames.stream().filter(names::contains).toList())) {
      out.add("measures reordered: " + builtNames + " -> " + names);
    }
    return out;
  }

  /**
   * @return the measures of this definition that {@code built} has too, with the same function and
   *     column (their values are comparable across the two); empty unless the window and the
   *     group-by are the same
   */
  public List<String> comparableMeasures(MetricDefinition built) {
    if (!window.equals(built.window) || !groupBy.equals(built.groupBy)) {
      return List.of();
    }
    return measures.stream()
        .filter(built.measures::contains)
        .map(MetricDefinition::measureName)
        .toList();
  }
}

package io.latelake.core.metric;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueType;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.config.Settings;
import io.latelake.core.event.EventSchema;
import io.latelake.core.event.FieldType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads and validates the metrics declared under {@code lake.gold.metrics}. Shared by the gold
 * stream and the correction jobs so both compute a metric the same way.
 */
public final class Metrics {
  /**
   * Columns the rollup tables add beside a metric's group-by columns and measures ({@code
   * gold.daily_}, {@code weekly_}, {@code monthly_}, {@code yearly_<metric>}): neither a group-by
   * column nor a measure may take these names.
   */
  public static final Set<String> ROLLUP_COLUMNS =
      Set.of(
          "event_date",
          "week_start",
          "iso_year",
          "iso_week",
          "month_start",
          "year",
          "month",
          "year_start",
          "days");

  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]*");
  private static final Set<String> METRIC_KEYS =
      Set.of("window", "group-by", "measures", "late-policy");
  private static final long DAY_MS = Duration.ofDays(1).toMillis();

  private Metrics() {}

  /**
   * @param root the effective config
   * @return the metrics, sorted by name (at least one)
   * @throws LakeConfigException naming the first bad key and value: no metric, a window that does
   *     not divide a day, a group-by or measure column that is not a configured field, a sum over a
   *     non-numeric field, an unknown function or late policy, a duplicate name
   */
  public static List<MetricSpec> fromConfig(Config root) {
    List<MetricSpec> metrics = declared(root);
    if (metrics.isEmpty()) {
      throw new LakeConfigException(
          "Cannot start gold stream: no metric configured "
              + "(lake.gold.metrics is empty); declare one, e.g. lake.gold.metrics.page_views_5m "
              + "{ window = 5 minutes, group-by = [page], measures = [{ name = views, function = count }] }");
    }
    return metrics;
  }

  /**
   * The metrics where none is allowed (the catalog, the profiler's replay, the stream figures).
   *
   * @param root the effective config
   * @return the metrics, sorted by name; empty when {@code lake.gold.metrics} is missing or
   *     declares none (the event schema is then not read)
   * @throws LakeConfigException as {@link #fromConfig}, except for no metric
   */
  public static List<MetricSpec> declared(Config root) {
    if (!root.hasPath("lake.gold.metrics")) {
      return List.of();
    }
    Settings metricsNode = Settings.of(root).sub("lake.gold.metrics");
    Set<String> names = metricsNode.raw().root().keySet();
    if (names.isEmpty()) {
      return List.of();
    }
    EventSchema event = EventSchema.fromConfig(root);
    List<MetricSpec> metrics = new ArrayList<>();
    for (String name : names.stream().sorted().toList()) {
      metrics.add(metric(metricsNode, name, event));
    }
    return List.copyOf(metrics);
  }

  private static MetricSpec metric(Settings metrics, String name, EventSchema event) {
    String key = metrics.key(name);
    if (!NAME.matcher(name).matches()) {
      throw LakeConfigException.invalid(
          key, name, "a metric name must be lower-case letters, digits and underscores");
    }
    if (metrics.raw().getValue(name).valueType() != ConfigValueType.OBJECT) {
      throw LakeConfigException.invalid(
          key,
          metrics.raw().getValue(name).unwrapped(),
          "expected { window = ..., group-by = [...], measures = [...] }");
    }
    Settings m = metrics.sub(name);
    for (String k : m.raw().root().keySet()) {
      if (!METRIC_KEYS.contains(k)) {
        throw new LakeConfigException(
            "Unknown key '"
                + m.key(k)
                + "': a metric has "
                + METRIC_KEYS.stream().sorted().toList());
      }
    }
    Duration window = m.positiveDuration("window");
    if (window.toMillis() < 1000 || DAY_MS % window.toMillis() != 0) {
      throw new LakeConfigException(
          "Cannot start gold stream: window '"
              + m.raw().getValue("window").unwrapped()
              + "' does not divide a day ("
              + m.key("window")
              + ")");
    }
    List<String> groupBy = m.strings("group-by");
    Set<String> columns = new HashSet<>();
    for (String c : groupBy) {
      if (event.typeOf(c).isEmpty() && !c.equals("source")) {
        throw LakeConfigException.invalid(
            m.key("group-by"),
            c,
            "is not a configured event field (lake.event.fields): " + event.fieldNames());
      }
      if (!columns.add(c)) {
        throw LakeConfigException.invalid(m.key("group-by"), c, "is listed twice");
      }
      if (ROLLUP_COLUMNS.contains(c)) {
        throw LakeConfigException.invalid(
            m.key("group-by"), c, "is a column of the daily and calendar rollup tables");
      }
    }
    List<Measure> measures = new ArrayList<>();
    List<? extends Config> list = m.objects("measures");
    if (list.isEmpty()) {
      throw LakeConfigException.invalid(m.key("measures"), "[]", "declare at least one measure");
    }
    for (int i = 0; i < list.size(); i++) {
      Settings ms = new Settings(list.get(i), m.key("measures") + "[" + i + "]");
      for (String k : list.get(i).root().keySet()) {
        if (!Set.of("name", "function", "column").contains(k)) {
          throw new LakeConfigException(
              "Unknown key '" + ms.key(k) + "': a measure has name, function and column");
        }
      }
      String mName = ms.string("name");
      if (!NAME.matcher(mName).matches() || EventSchema.RESERVED.contains(mName)) {
        throw LakeConfigException.invalid(
            ms.key("name"), mName, "must be a lower-case identifier that is not a reserved column");
      }
      if (ROLLUP_COLUMNS.contains(mName)) {
        throw LakeConfigException.invalid(
            ms.key("name"), mName, "is a column of the daily and calendar rollup tables");
      }
      if (!columns.add(mName)) {
        throw LakeConfigException.invalid(
            ms.key("name"), mName, "clashes with another measure or group-by column");
      }
      String fnName = ms.oneOf("function", Set.of("count", "sum", "min", "max", "avg"));
      Measure.Function fn = Measure.Function.valueOf(fnName.toUpperCase(Locale.ROOT));
      Optional<String> column = Optional.empty();
      if (fn == Measure.Function.COUNT && !ms.has("column")) {
        measures.add(new Measure(mName, fn, column));
        continue;
      }
      String c = ms.string("column");
      Optional<FieldType> type = event.typeOf(c);
      if (type.isEmpty()) {
        throw LakeConfigException.invalid(
            ms.key("column"),
            c,
            "is not a configured event field (lake.event.fields): " + event.fieldNames());
      }
      if ((fn == Measure.Function.SUM || fn == Measure.Function.AVG)
          && type.get() != FieldType.LONG
          && type.get() != FieldType.DOUBLE) {
        throw LakeConfigException.invalid(
            ms.key("column"),
            c,
            fnName + " needs a long or double field, not " + type.get().configName());
      }
      column = Optional.of(c);
      Measure measure = new Measure(mName, fn, column);
      measures.add(measure);
      if (fn == Measure.Function.AVG) {
        // stored as its exact parts beside it: x_sum and x_count (non-null values)
        for (Measure part :
            List.of(
                new Measure(measure.avgSumColumn(), Measure.Function.SUM, column),
                new Measure(measure.avgCountColumn(), Measure.Function.COUNT, column))) {
          if (!columns.add(part.name())) {
            throw LakeConfigException.invalid(
                ms.key("name"),
                mName,
                "its stored part "
                    + part.name()
                    + " clashes with another measure or group-by column");
          }
          measures.add(part);
        }
      }
    }
    String policyName = m.has("late-policy") ? m.string("late-policy") : "restate";
    LatePolicy policy =
        LatePolicy.parse(policyName)
            .orElseThrow(
                () ->
                    LakeConfigException.invalid(
                        m.key("late-policy"),
                        policyName,
                        "expected one of restate, reconcile, ignore"));
    return new MetricSpec(name, window, groupBy, List.copyOf(measures), policy);
  }
}

package io.latelake.core.metric;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * What the correction path does with a metric's late data ({@code
 * lake.gold.metrics.<m>.late-policy}).
 *
 * <ul>
 *   <li>{@code restate} (default): corrections are applied to gold.
 *   <li>{@code reconcile}: corrections are staged for approval; published values stay until they
 *       are applied.
 *   <li>{@code ignore}: nothing is applied; the drift is measured and reported.
 * </ul>
 */
public enum LatePolicy {
  RESTATE,
  RECONCILE,
  IGNORE;

  public static Optional<LatePolicy> parse(String name) {
    return Arrays.stream(values()).filter(p -> p.name().equalsIgnoreCase(name.trim())).findFirst();
  }

  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }
}

package io.latelake.core.config;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the config readers check each key as, recorded on request: the kind column of the generated
 * configuration reference ({@code docs/configuration-reference.md}), so that the page shows the
 * checks the readers make ({@link Settings}' typed reads record them), and a key read with two
 * different checks shows both. Recording costs nothing unless {@link #record} runs.
 */
public final class ConfigChecks {
  /** Checks per full key while {@link #record} runs on this thread, else null. */
  private static final ThreadLocal<Map<String, Set<String>>> CHECKS = new ThreadLocal<>();

  private ConfigChecks() {}

  /**
   * Runs config reads and returns what each key they read was checked as.
   *
   * @param reads config readers, run on this thread
   * @return per full key, its checks ("duration &gt; 0", "whole number 1..64", ...), sorted
   */
  public static Map<String, Set<String>> record(Runnable reads) {
    Map<String, Set<String>> out = new TreeMap<>();
    Map<String, Set<String>> before = CHECKS.get();
    CHECKS.set(out);
    try {
      reads.run();
    } finally {
      CHECKS.set(before);
    }
    return out;
  }

  /** Records, while {@link #record} runs, that {@code key} was read as {@code check}. */
  static void checked(String key, String check) {
    Map<String, Set<String>> m = CHECKS.get();
    if (m != null) {
      m.computeIfAbsent(key, k -> new TreeSet<>()).add(check);
    }
  }

  /**
   * Declares, for a reader whose check is more than one typed read (a duration or a word, an
   * optional URL), what {@code key} is checked as: replaces what the typed reads recorded for it.
   */
  public static void describe(String key, String check) {
    Map<String, Set<String>> m = CHECKS.get();
    if (m != null) {
      m.put(key, new TreeSet<>(Set.of(check)));
    }
  }

  /** The check of a whole number within [min, max]. */
  static String range(long min, long max) {
    return "whole number "
        + (max == Integer.MAX_VALUE || max == Long.MAX_VALUE ? "≥ " + min : min + ".." + max);
  }
}

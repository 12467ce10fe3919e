package io.latelake.core.streaming;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigUtil;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.config.Settings;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The sources watermarked on their own in silver and gold ({@value SourceInputs#KEY}) and how long
 * each may hold the query's watermark while it is quiet ({@value #IDLE_KEY}, overridden per source
 * by {@value #IDLE_PER_SOURCE_KEY}). How the two are applied: {@link SourceInputs#watermarked}.
 *
 * <p><b>Slots.</b> Spark records one input per listed source, plus one for the other sources' rows,
 * in a query's checkpoint and refuses a checkpoint whose number of inputs changed. {@value
 * #SLOTS_KEY} reserves inputs: with {@code slots} greater than the number listed, the inputs beyond
 * the listed sources are spare ({@link #inputs}: named {@code (spare 1)}, {@code (spare 2)}, ...).
 * A spare input takes no source's rows; it is fed idle markers with a timeout of 0 (its watermark
 * is the arrival clock − the delay), so it never holds the query's watermark behind what has
 * arrived. A source can then be listed into a spare slot, or removed from the list leaving its slot
 * spare, on the same checkpoints ({@link SourceCheckpoints#check}).
 *
 * @param listed the listed sources, in the configured order (empty: one watermark for all)
 * @param idleAfter per listed source, its idle timeout on the arrival clock; a listed source
 *     without an entry is never idle (it holds the watermark for as long as it is silent)
 * @param spares the number of spare inputs after the listed sources (0 unless {@value #SLOTS_KEY}
 *     reserves more inputs than are listed)
 */
public record SourceWatermarks(List<String> listed, Map<String, Duration> idleAfter, int spares) {
  /**
   * Config key: the number of source inputs (listed sources + spare slots) silver and gold build, 0
   * (the default) for as many as are listed.
   */
  public static final String SLOTS_KEY = "lake.sources-slots";

  /** Name prefix of a spare input ({@link #inputs}). */
  public static final String SPARE = "(spare ";

  /**
   * Config key: the idle timeout of every listed source, {@code off} (the default) or a duration.
   */
  public static final String IDLE_KEY = "lake.sources-idle-after";

  /** Config key: per listed source, an idle timeout ({@code off} or a duration) overriding it. */
  public static final String IDLE_PER_SOURCE_KEY = "lake.sources-idle-after-per-source";

  private static final String OFF = "off";

  public SourceWatermarks {
    listed = List.copyOf(listed);
    idleAfter = Map.copyOf(idleAfter);
    if (spares < 0 || (spares > 0 && listed.isEmpty())) {
      throw new IllegalArgumentException("spares " + spares + " for listed " + listed);
    }
  }

  /** No spare input. */
  public SourceWatermarks(List<String> listed, Map<String, Duration> idleAfter) {
    this(listed, idleAfter, 0);
  }

  /**
   * @return the listed sources without idle timeouts (as before {@value #IDLE_KEY} existed)
   */
  public static SourceWatermarks of(List<String> listed) {
    return new SourceWatermarks(listed, Map.of());
  }

  /**
   * @return the watermarked inputs in plan order: the listed sources, then the spare ones ({@code
   *     (spare 1)}, ...); empty when nothing is listed (one input for all rows)
   */
  public List<String> inputs() {
    List<String> all = new java.util.ArrayList<>(listed);
    for (int i = 1; i <= spares; i++) {
      all.add(SPARE + i + ")");
    }
    return List.copyOf(all);
  }

  /**
   * @return the number of inputs Spark records in the checkpoint: 1 when nothing is listed, else
   *     one per listed source and spare slot plus one for the other sources' rows
   */
  public int inputCount() {
    return listed.isEmpty() ? 1 : listed.size() + spares + 1;
  }

  /**
   * @return one watermark for all sources: nothing listed
   */
  public static SourceWatermarks none() {
    return of(List.of());
  }

  /**
   * @param root the effective config
   * @return {@value SourceInputs#KEY} with each listed source's idle timeout
   * @throws LakeConfigException (exit 2) for a list that {@link SourceInputs#fromConfig} refuses, a
   *     timeout that is neither {@code off} nor a positive duration, or a per-source entry for a
   *     source that is not listed
   */
  public static SourceWatermarks fromConfig(Config root) {
    List<String> listed = SourceInputs.fromConfig(root);
    Settings lake = Settings.of(root).sub("lake");
    Optional<Duration> all = timeout(lake, "sources-idle-after");
    if (listed.isEmpty() && all.isPresent()) {
      throw LakeConfigException.invalid(
          IDLE_KEY,
          lake.raw().getValue("sources-idle-after").unwrapped(),
          "an idle timeout applies to the sources listed in "
              + SourceInputs.KEY
              + ", which is empty (one watermark for all sources: there is no other source to"
              + " wait for)");
    }
    Map<String, Duration> idle = new LinkedHashMap<>();
    for (String s : listed) {
      all.ifPresent(d -> idle.put(s, d));
    }
    Settings per = lake.sub("sources-idle-after-per-source");
    io.latelake.core.config.ConfigChecks.describe(
        lake.key("sources-idle-after-per-source"),
        "object: listed source = " + OFF + ", or duration > 0");
    for (String key : per.raw().root().keySet()) {
      String path = ConfigUtil.joinPath(key);
      if (!listed.contains(key)) {
        throw LakeConfigException.invalid(
            per.key(path),
            per.raw().getValue(path).unwrapped(),
            "'"
                + key
                + "' is not in "
                + SourceInputs.KEY
                + " "
                + listed
                + " (quote a source name that holds dots: { \"gw.a\" = \"1 hour\" })");
      }
      Optional<Duration> own = timeout(per, path);
      if (own.isPresent()) {
        idle.put(key, own.get());
      } else {
        idle.remove(key);
      }
    }
    int slots = lake.intBetween("sources-slots", 0, 1000);
    if (slots > 0 && listed.isEmpty()) {
      throw LakeConfigException.invalid(
          SLOTS_KEY,
          slots,
          "slots hold the sources listed in "
              + SourceInputs.KEY
              + ", which is empty (one watermark for all sources); list at least one source");
    }
    if (slots > 0 && slots < listed.size()) {
      throw LakeConfigException.invalid(
          SLOTS_KEY,
          slots,
          "fewer slots than the "
              + listed.size()
              + " sources listed in "
              + SourceInputs.KEY
              + " "
              + listed
              + " (0: as many as are listed)");
    }
    return new SourceWatermarks(listed, idle, slots == 0 ? 0 : slots - listed.size());
  }

  private static Optional<Duration> timeout(Settings s, String path) {
    if (!s.has(path)) {
      return Optional.empty();
    }
    String raw = s.raw().getValue(path).unwrapped().toString();
    Optional<Duration> v =
        raw.equalsIgnoreCase(OFF) ? Optional.empty() : Optional.of(s.positiveDuration(path));
    io.latelake.core.config.ConfigChecks.describe(s.key(path), OFF + ", or duration > 0");
    return v;
  }

  /**
   * @return the idle timeout of {@code source} (an input of {@link #inputs}), empty when it is
   *     never idle; 0 for a spare input
   */
  public Optional<Duration> idleAfter(String source) {
    if (source.startsWith(SPARE) && !listed.contains(source)) {
      return Optional.of(Duration.ZERO);
    }
    return Optional.ofNullable(idleAfter.get(source));
  }
}

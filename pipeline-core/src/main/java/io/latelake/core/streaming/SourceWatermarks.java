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
 * @param listed the listed sources, in the configured order (empty: one watermark for all)
 * @param idleAfter per listed source, its idle timeout on the arrival clock; a listed source
 *     without an entry is never idle (it holds the watermark for as long as it is silent)
 */
public record SourceWatermarks(List<String> listed, Map<String, Duration> idleAfter) {
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
  }

  /**
   * @return the listed sources without idle timeouts (as before {@value #IDLE_KEY} existed)
   */
  public static SourceWatermarks of(List<String> listed) {
    return new SourceWatermarks(listed, Map.of());
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
    return new SourceWatermarks(listed, idle);
  }

  private static Optional<Duration> timeout(Settings s, String path) {
    if (!s.has(path)) {
      return Optional.empty();
    }
    String raw = s.raw().getValue(path).unwrapped().toString();
    return raw.equalsIgnoreCase(OFF) ? Optional.empty() : Optional.of(s.positiveDuration(path));
  }

  /**
   * @return the idle timeout of {@code source}, empty when it is never idle
   */
  public Optional<Duration> idleAfter(String source) {
    return Optional.ofNullable(idleAfter.get(source));
  }
}

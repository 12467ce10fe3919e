package io.latelake.core.streaming;

import static org.apache.spark.sql.functions.col;

import io.latelake.core.config.ConfigChecks;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.config.Settings;
import io.latelake.core.table.DeltaTables;
import io.latelake.core.table.TableRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stream's watermark delay ({@code lake.silver.watermark-delay}, {@code
 * lake.gold.watermark-delay}): a fixed duration, or {@value #AUTO}: the delay the lateness
 * profiler's watermark replay recommends.
 *
 * <p><b>{@value #AUTO}.</b> At each start of the stream, the delay is the {@code recommended} row
 * of the latest {@code monitoring.watermark_replay} (the smallest delay tried whose replayed
 * dropped share meets {@code lake.profiler.target-drop-share}), kept within {@code
 * <layer>.auto-delay.min} and {@code .max}; without a recommendation (no profile run yet, or no
 * delay tried met the target) it is {@code .fallback}. It never changes while the stream runs. The
 * choice is logged once per start, recorded with each micro-batch in {@code
 * monitoring.stream_progress} ({@code watermark_delay_ms}) and in the output table's property
 * {@value WatermarkDelays#PROPERTY}. Spark's watermark only moves forward (max(previous watermark,
 * largest event time − delay)): a shorter delay than the previous run's takes effect from the next
 * micro-batch with data; a longer one only once event time has advanced by the difference (until
 * then rows it would admit are still dropped as late). The rows the delay drops stay in bronze and
 * the correction path restates their windows.
 *
 * @param key the config key, e.g. {@code lake.silver.watermark-delay}
 * @param fixed the configured delay; with {@value #AUTO}, the fallback
 * @param auto the bounds when the setting is {@value #AUTO}
 */
public record WatermarkDelaySetting(String key, Duration fixed, Optional<Auto> auto) {
  /** The value that asks for the profiler's recommendation. */
  public static final String AUTO = "auto";

  /** What the setting is checked as ({@link ConfigChecks}). */
  private static final String CHECK = "duration > 0, or " + AUTO;

  private static final Logger LOG = LoggerFactory.getLogger(WatermarkDelaySetting.class);

  /**
   * Bounds of an automatic delay.
   *
   * @param min the shortest delay used
   * @param max the longest delay used
   * @param fallback the delay when there is no recommendation
   */
  public record Auto(Duration min, Duration max, Duration fallback) {}

  /**
   * The delay a start uses.
   *
   * @param delay the delay
   * @param reason how it was chosen, for the log line
   */
  public record Resolved(Duration delay, String reason) {}

  /**
   * @param layer the layer's settings ({@code lake.silver} or {@code lake.gold})
   * @return the setting of {@code watermark-delay} (and {@code auto-delay} when it is {@value
   *     #AUTO})
   * @throws LakeConfigException on a value that is neither a positive duration nor {@value #AUTO},
   *     or bounds that are not positive, with min &gt; max, or a fallback outside them
   */
  public static WatermarkDelaySetting fromConfig(Settings layer) {
    String key = layer.key("watermark-delay");
    if (!layer.has("watermark-delay")
        || !AUTO.equalsIgnoreCase(
            String.valueOf(layer.raw().getValue("watermark-delay").unwrapped()).strip())) {
      try {
        Duration fixed = layer.positiveDuration("watermark-delay");
        ConfigChecks.describe(key, CHECK);
        return new WatermarkDelaySetting(key, fixed, Optional.empty());
      } catch (LakeConfigException e) {
        if (e.getMessage().contains("expected a duration")) {
          throw LakeConfigException.invalid(
              key,
              layer.raw().getValue("watermark-delay").unwrapped(),
              "expected a duration such as '10 minutes', '30 s' or '250 ms', or auto (the "
                  + "lateness profiler's recommendation)");
        }
        throw e;
      }
    }
    Settings a = layer.sub("auto-delay");
    Duration min = a.positiveDuration("min");
    Duration max = a.positiveDuration("max");
    Duration fallback = a.positiveDuration("fallback");
    if (min.compareTo(max) > 0) {
      throw LakeConfigException.invalid(
          a.key("min"), min, "must not be longer than " + a.key("max"));
    }
    if (fallback.compareTo(min) < 0 || fallback.compareTo(max) > 0) {
      throw LakeConfigException.invalid(
          a.key("fallback"), fallback, "must lie between " + a.key("min") + " and " + a.key("max"));
    }
    ConfigChecks.describe(key, CHECK);
    return new WatermarkDelaySetting(key, fallback, Optional.of(new Auto(min, max, fallback)));
  }

  /**
   * @return the longest delay a start can use: the fixed delay, or the upper bound of {@value
   *     #AUTO}
   */
  public Duration longest() {
    return auto.map(Auto::max).orElse(fixed);
  }

  /**
   * The delay of this start: the fixed delay, or with {@value #AUTO} the latest recommendation of
   * {@code monitoring.watermark_replay} for {@code queryName} within the bounds (class comment).
   * Reads one small table; logs the choice at INFO.
   *
   * @param queryName the replayed query whose recommendation applies ({@code silver_events})
   * @param streamName the stream starting, for the log line
   */
  public Resolved resolve(
      SparkSession spark, TableRegistry tables, String queryName, String streamName) {
    if (auto.isEmpty()) {
      return new Resolved(fixed, key + " = " + fixed);
    }
    Auto a = auto.get();
    Optional<Double> recommended = recommendation(spark, tables, queryName);
    Resolved r;
    if (recommended.isEmpty()) {
      r =
          new Resolved(
              a.fallback(),
              key
                  + " = auto: no recommendation in monitoring.watermark_replay yet (run `latelake "
                  + "profile`), the fallback "
                  + a.fallback());
    } else {
      Duration d = Duration.ofNanos(Math.round(recommended.get() * 1e9));
      Duration bounded =
          d.compareTo(a.min()) < 0 ? a.min() : d.compareTo(a.max()) > 0 ? a.max() : d;
      r =
          new Resolved(
              bounded,
              key
                  + " = auto: the profile's recommendation "
                  + d
                  + (bounded.equals(d) ? "" : ", bounded to " + bounded)
                  + " (bounds "
                  + a.min()
                  + " .. "
                  + a.max()
                  + ")");
    }
    LOG.info("Stream {}: watermark delay {}; {}", streamName, r.delay(), r.reason());
    return r;
  }

  /**
   * @return the {@code delay_s} of the {@code recommended} row of the latest profile run for {@code
   *     queryName}, empty when there is none
   */
  static Optional<Double> recommendation(
      SparkSession spark, TableRegistry tables, String queryName) {
    String path = tables.monitoring("watermark_replay");
    if (!DeltaTables.exists(spark, path)) {
      return Optional.empty();
    }
    List<Row> rows =
        spark
            .read()
            .format("delta")
            .load(path)
            .filter(col("query_name").equalTo(queryName).and(col("recommended")))
            .orderBy(col("computed_at").desc())
            .select(col("delay_s"))
            .limit(1)
            .collectAsList();
    return rows.isEmpty() || rows.get(0).isNullAt(0)
        ? Optional.empty()
        : Optional.of(rows.get(0).getDouble(0));
  }
}

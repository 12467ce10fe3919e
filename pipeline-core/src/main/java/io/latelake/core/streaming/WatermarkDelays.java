package io.latelake.core.streaming;

import io.latelake.core.table.TableProperties;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The watermark delay a streaming query's checkpoint was created with, recorded in its output
 * table's property {@value #PROPERTY} (ISO-8601 duration, e.g. {@code PT10M}).
 *
 * <p>Why: Spark keeps the watermark in the checkpoint and only ever moves it forward (watermark =
 * max(previous watermark, max event time − delay)). A delay changed on an existing checkpoint is
 * accepted silently, but a longer delay takes effect only once event time has advanced by the
 * difference (until then events the new delay would admit are still dropped as late; the correction
 * path restates them), and a shorter one from the next data micro-batch.
 */
public final class WatermarkDelays {
  /** Output table property holding the delay the query's checkpoint was created with. */
  public static final String PROPERTY = "latelake.watermark.delay";

  private static final Logger LOG = LoggerFactory.getLogger(WatermarkDelays.class);

  private WatermarkDelays() {}

  /**
   * At a stream's start: records {@code delay} when the table has no recorded delay (a new table,
   * or one written before the property existed), else compares and logs one WARN line when the
   * configured delay differs from the recorded one. The recorded value is left as it is: it stays
   * the delay the checkpoint was created with until a new checkpoint is started (gold: {@code
   * latelake backfill}).
   *
   * @param tablePath the query's output Delta table (exists)
   * @param queryName the query, for the message
   * @param key the config key of the delay, e.g. {@code lake.gold.watermark-delay}
   * @param delay the configured delay
   * @return the warning logged, empty when none
   */
  public static Optional<String> check(
      SparkSession spark, String tablePath, String queryName, String key, Duration delay) {
    Optional<String> recorded = TableProperties.get(spark, tablePath, PROPERTY);
    if (recorded.isEmpty()) {
      record(spark, tablePath, delay);
      return Optional.empty();
    }
    Duration built;
    try {
      built = Duration.parse(recorded.get());
    } catch (java.time.format.DateTimeParseException e) {
      built = null;
    }
    if (delay.equals(built)) {
      return Optional.empty();
    }
    String warning = warning(queryName, key, delay, recorded.get());
    LOG.warn(warning);
    return Optional.of(warning);
  }

  /**
   * Records {@code delay} as the one the latest start ran with ({@code auto}), unless the table
   * already holds it (no commit then).
   */
  public static void recordIfChanged(SparkSession spark, String tablePath, Duration delay) {
    if (!TableProperties.get(spark, tablePath, PROPERTY).equals(Optional.of(delay.toString()))) {
      record(spark, tablePath, delay);
    }
  }

  /** Records {@code delay} as the one the query's (new) checkpoint was created with. */
  public static void record(SparkSession spark, String tablePath, Duration delay) {
    TableProperties.set(spark, tablePath, Map.of(PROPERTY, delay.toString()));
  }

  /**
   * @return the warning text for a configured delay that differs from the recorded one
   */
  static String warning(String queryName, String key, Duration delay, String recorded) {
    return "Stream "
        + queryName
        + ": "
        + key
        + " is "
        + delay
        + " but its checkpoint was "
        + "created with "
        + recorded
        + " (table property "
        + PROPERTY
        + "). Spark keeps the "
        + "watermark stored in the checkpoint and only moves it forward: "
        + (isLonger(delay, recorded)
            ? "the longer delay takes effect only once event time has advanced by the "
                + "difference; until then events it would admit are still dropped as late (the "
                + "correction path restates their windows)."
            : "the shorter delay takes effect from the next micro-batch with data.")
        + " To start from the new delay at once, start a new checkpoint (gold: latelake backfill "
        + "--metric NAME).";
  }

  private static boolean isLonger(Duration delay, String recorded) {
    try {
      return delay.compareTo(Duration.parse(recorded)) > 0;
    } catch (java.time.format.DateTimeParseException e) {
      return true;
    }
  }
}

package io.latelake.silver;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.unix_micros;

import io.latelake.core.streaming.SourceDrops;
import io.latelake.core.streaming.SourceInputs;
import io.latelake.core.streaming.SourceWatermarks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/** Pure functions from bronze rows to silver rows. */
public final class SilverTransforms {
  private SilverTransforms() {}

  /** Silver's columns before the configured fields. */
  public static final List<String> LEADING_COLUMNS =
      List.of("event_id", "event_time", "enqueued_time", "timestamp_type", "ingested_at", "source");

  /**
   * Valid bronze rows, watermarked on {@code event_time} with {@code delay}, deduplicated on {@code
   * event_id} within the watermark ({@code dropDuplicatesWithinWatermark}: a copy arriving while
   * the first is still in state is removed; rows behind the watermark are dropped and counted in
   * the query's progress), plus {@code lateness_s}.
   *
   * <p>Output: {@code event_id}, {@code event_time}, {@code enqueued_time}, {@code timestamp_type},
   * {@code ingested_at}, {@code source}, the configured fields, and {@code lateness_s} double =
   * (enqueued_time − event_time) in seconds (negative: clock skew). Rows with an {@code error}
   * (including FUTURE_EVENT_TIME) never enter.
   *
   * @param bronze bronze rows (batch or streaming)
   * @param delay watermark delay
   * @param fields configured field columns to carry
   */
  public static Dataset<Row> dedup(Dataset<Row> bronze, Duration delay, List<String> fields) {
    return dedup(bronze, delay, fields, SourceWatermarks.none());
  }

  /**
   * As {@link #dedup(Dataset, Duration, List)}, with one watermark per listed source ({@link
   * SourceInputs#watermarked}): a row is dropped as late, and its id leaves the dedup state, when
   * its event time is behind the slowest listed source's watermark.
   *
   * @param sources {@code lake.sources} and their idle timeouts (nothing listed: one watermark, as
   *     the three-argument form)
   */
  public static Dataset<Row> dedup(
      Dataset<Row> bronze, Duration delay, List<String> fields, SourceWatermarks sources) {
    List<Column> out = new ArrayList<>();
    for (String c : LEADING_COLUMNS) {
      out.add(col(c));
    }
    for (String f : fields) {
      out.add(col(f));
    }
    out.add(lateness().as("lateness_s"));
    // with sources listed: the rows of each that reach the deduplication and that leave it, for
    // the dropped rows per source (SourceDrops.droppedBySource; observations, no state)
    Dataset<Row> deduplicated =
        SourceDrops.observeBySource(
                SourceInputs.watermarked(bronze, delay, sources, col("error").isNull()),
                SourceDrops.SOURCE_IN,
                sources.listed())
            .dropDuplicatesWithinWatermark("event_id");
    return SourceDrops.observeBySource(deduplicated, SourceDrops.SOURCE_OUT, sources.listed())
        .select(out.toArray(Column[]::new));
  }

  /**
   * @return (enqueued_time − event_time) in seconds, microsecond precision
   */
  public static Column lateness() {
    return unix_micros(col("enqueued_time"))
        .minus(unix_micros(col("event_time")))
        .divide(1_000_000.0);
  }

  /**
   * @return a Spark interval string for a duration, in milliseconds
   */
  public static String interval(Duration d) {
    return d.toMillis() + " milliseconds";
  }
}

package io.latelake.core.streaming;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count_if;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.not;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQueryProgress;

/**
 * Rows dropped by the watermark per listed source ({@code
 * monitoring.stream_progress.dropped_by_source}): the counts a job observes around its row-by-row
 * stateful operator and the split they give.
 */
public final class SourceDrops {
  private SourceDrops() {}

  /**
   * Name of the observation that counts, per listed source, the rows that reach the stateful
   * operator (after the idle markers are filtered out), when sources are listed ({@link
   * #droppedBySource}).
   */
  public static final String SOURCE_IN = "latelake_source_in";

  /**
   * Name of the observation a job makes after its row-by-row stateful operator (silver's
   * deduplication) with {@link #observeBySource}: the rows of each listed source that left it.
   */
  public static final String SOURCE_OUT = "latelake_source_out";

  /** Key of {@link #droppedBySource} for the rows of sources that are not listed (or null). */
  public static final String UNLISTED = "(unlisted)";

  /**
   * @return {@code in} observed as {@code name}: one count per listed source, named after it, and
   *     {@value #UNLISTED} for the rest. No state and no Spark job: existing checkpoints continue.
   */
  public static Dataset<Row> observeBySource(Dataset<Row> in, String name, List<String> listed) {
    if (listed.isEmpty()) {
      return in;
    }
    List<Column> counts = new ArrayList<>();
    for (String s : listed) {
      counts.add(count_if(coalesce(col("source").equalTo(lit(s)), lit(false))).as(s));
    }
    counts.add(
        count_if(not(coalesce(col("source").isInCollection(listed), lit(false)))).as(UNLISTED));
    return in.observe(name, counts.get(0), counts.subList(1, counts.size()).toArray(Column[]::new));
  }

  /**
   * Rows dropped by the watermark per source in one micro-batch of a query that observed {@link
   * #SOURCE_IN} and {@link #SOURCE_OUT} around a row-by-row stateful operator (silver's
   * deduplication). Spark counts the rows it drops per stateful operator, not per input, and no
   * expression in a plan sees the watermark; the counts around the operator give the split. For
   * each source, rows in − rows out = dropped + removed as duplicates. So:
   *
   * <ul>
   *   <li>no duplicate was removed: each source's dropped rows = its rows in − rows out, exactly;
   *   <li>duplicates were removed but only one source lost rows: that source's dropped rows are all
   *       of the micro-batch's, the others' 0;
   *   <li>nothing was dropped: 0 for every source;
   *   <li>otherwise the split is not known: empty (the total stays in {@code
   *       rows_dropped_by_watermark}). So is it when the counts do not add up to the rows Spark
   *       removed (dropped + duplicates): observations are accumulators, which a task run again can
   *       count twice.
   * </ul>
   *
   * @param dropped the micro-batch's rows dropped by the watermark (Spark)
   * @param duplicates the rows its deduplication removed (Spark)
   * @return source → rows dropped, listed sources in order, then {@value #UNLISTED} when such rows
   *     were read; empty without both observations, or when the split is not known
   */
  public static java.util.Optional<java.util.Map<String, Long>> droppedBySource(
      StreamingQueryProgress progress, long dropped, long duplicates) {
    return droppedBySource(
        progress.observedMetrics().get(SOURCE_IN),
        progress.observedMetrics().get(SOURCE_OUT),
        dropped,
        duplicates);
  }

  /**
   * {@link #droppedBySource(StreamingQueryProgress, long, long)} from the two observations.
   *
   * @param in the {@link #SOURCE_IN} row (one long per source, named after it), null when absent
   * @param out the {@link #SOURCE_OUT} row, same fields, null when absent
   */
  static java.util.Optional<java.util.Map<String, Long>> droppedBySource(
      Row in, Row out, long dropped, long duplicates) {
    if (in == null || out == null) {
      return java.util.Optional.empty();
    }
    java.util.Map<String, Long> lost = new java.util.LinkedHashMap<>();
    long total = 0;
    String[] names = in.schema().fieldNames();
    for (int i = 0; i < names.length; i++) {
      long read = in.isNullAt(i) ? 0 : in.getLong(i);
      long kept = out.isNullAt(i) ? 0 : out.getLong(i);
      total += read - kept;
      if (!names[i].equals(UNLISTED) || read > 0) {
        lost.put(names[i], read - kept);
      }
    }
    // Observations are accumulators: a task run again (a lost shuffle file) may count twice. Only
    // counts that add up to what Spark removed are split.
    if (total != dropped + duplicates) {
      return java.util.Optional.empty();
    }
    if (duplicates == 0) {
      return java.util.Optional.of(lost);
    }
    List<String> losing =
        lost.entrySet().stream().filter(e -> e.getValue() > 0).map(e -> e.getKey()).toList();
    if (losing.size() != 1) {
      return dropped == 0 ? java.util.Optional.of(zeros(lost)) : java.util.Optional.empty();
    }
    java.util.Map<String, Long> split = zeros(lost);
    split.put(losing.get(0), dropped);
    return java.util.Optional.of(split);
  }

  private static java.util.Map<String, Long> zeros(java.util.Map<String, Long> keys) {
    java.util.Map<String, Long> z = new java.util.LinkedHashMap<>();
    keys.keySet().forEach(k -> z.put(k, 0L));
    return z;
  }
}

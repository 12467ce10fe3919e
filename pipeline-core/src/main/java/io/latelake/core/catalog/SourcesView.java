package io.latelake.core.catalog;

import io.latelake.core.streaming.SourceWatermarks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The SQL of the persistent view {@code <monitoring db>.sources_status}, registered when {@code
 * lake.sources} lists sources: one row per listed source, live over {@code bronze_events} (one scan
 * of its {@code source}, {@code enqueued_time}, {@code ingested_at} and {@code error} columns per
 * read; the streams' metrics carry the same figures without a scan).
 *
 * <p>Columns: {@code source} string; {@code last_arrival} timestamp (UTC) — the largest arrival
 * time of its valid rows, null when it never sent; {@code arrival_clock} timestamp (UTC) — the
 * largest arrival time of every valid row; {@code quiet_s} double — arrival_clock − last_arrival,
 * seconds (null when it never sent); {@code idle_after_s} double — its {@code
 * lake.sources-idle-after}, seconds (null: no timeout); {@code idle} boolean — quiet_s ≥
 * idle_after_s, or it never sent while others did (null without a timeout): it no longer holds the
 * watermark; {@code dropped_rows} long — the rows of the source that silver dropped behind its
 * watermark, the sum of {@code monitoring.stream_progress.dropped_by_source} over silver's
 * micro-batches whose split is known; {@code unsplit_dropped_rows} long — silver's dropped rows in
 * micro-batches whose split is not known (null {@code dropped_by_source}: several sources lost rows
 * beside removed duplicates, or a micro-batch before sources were listed), the same on every row
 * ({@link io.latelake.core.streaming.SourceDrops#droppedBySource}); the drops of unlisted sources
 * ({@code (unlisted)}) are in neither. Both are null when the lake had no {@code stream_progress}
 * table with {@code dropped_by_source} when the view was registered. An arrival time is the row's
 * enqueued time, or its ingested time when that is earlier, as for the idle markers ({@link
 * io.latelake.core.streaming.SourceInputs#watermarked}).
 */
public final class SourcesView {
  /** The view's name in the monitoring database. */
  public static final String NAME = "sources_status";

  private SourcesView() {}

  /**
   * @param sources the listed sources (not empty) and their timeouts
   * @param bronzeTable the registered bronze table, qualified (or {@code delta.`<path>`})
   * @param progressTable the registered {@code monitoring.stream_progress}, qualified (or {@code
   *     delta.`<path>`)}, empty when the lake has none (the drop columns are then null)
   * @return the view's query
   */
  public static String query(
      SourceWatermarks sources, String bronzeTable, java.util.Optional<String> progressTable) {
    List<String> rows = new ArrayList<>();
    for (String s : sources.listed()) {
      rows.add(
          "("
              + Sql.literal(s)
              + ", "
              + sources
                  .idleAfter(s)
                  .map(Duration::toMillis)
                  .map(ms -> "CAST(" + ms / 1000.0 + " AS DOUBLE)")
                  .orElse("CAST(NULL AS DOUBLE)")
              + ")");
    }
    String arrival = "least(enqueued_time, ingested_at)";
    return "WITH listed(source, idle_after_s) AS (VALUES "
        + String.join(", ", rows)
        + "), a AS (SELECT source, max("
        + arrival
        + ") AS last_arrival FROM "
        + bronzeTable
        + " WHERE error IS NULL GROUP BY source), c AS (SELECT max(last_arrival) AS arrival_clock"
        + " FROM a), s AS (SELECT l.source, a.last_arrival, c.arrival_clock,"
        + " (unix_micros(c.arrival_clock) - unix_micros(a.last_arrival)) / 1e6 AS quiet_s,"
        + " l.idle_after_s, CASE WHEN l.idle_after_s IS NULL THEN NULL WHEN a.last_arrival IS NULL"
        + " THEN c.arrival_clock IS NOT NULL ELSE (unix_micros(c.arrival_clock) -"
        + " unix_micros(a.last_arrival)) / 1e6 >= l.idle_after_s END AS idle FROM listed l CROSS"
        + " JOIN c LEFT JOIN a ON a.source = l.source)"
        + dropped(progressTable);
  }

  /** the drop columns (class comment) beside the columns of {@code s} */
  private static String dropped(java.util.Optional<String> progressTable) {
    if (progressTable.isEmpty()) {
      return " SELECT s.*, CAST(NULL AS BIGINT) AS dropped_rows, CAST(NULL AS BIGINT) AS"
          + " unsplit_dropped_rows FROM s";
    }
    String silver =
        progressTable.get()
            + " WHERE query_name = "
            + Sql.literal(io.latelake.core.table.TableRegistry.SILVER_QUERY);
    return ", d AS (SELECT key AS source, sum(value) AS dropped_rows FROM (SELECT"
        + " explode(dropped_by_source) FROM "
        + silver
        + " AND dropped_by_source IS NOT NULL) GROUP BY key), u AS (SELECT"
        + " coalesce(sum(rows_dropped_by_watermark), 0) AS unsplit_dropped_rows FROM "
        + silver
        + " AND dropped_by_source IS NULL) SELECT s.*, coalesce(d.dropped_rows, 0) AS"
        + " dropped_rows, u.unsplit_dropped_rows FROM s LEFT JOIN d ON d.source = s.source CROSS"
        + " JOIN u";
  }
}

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
 * watermark. An arrival time is the row's enqueued time, or its ingested time when that is earlier,
 * as for the idle markers ({@link io.latelake.core.streaming.SourceInputs#watermarked}).
 */
public final class SourcesView {
  /** The view's name in the monitoring database. */
  public static final String NAME = "sources_status";

  private SourcesView() {}

  /**
   * @param sources the listed sources (not empty) and their timeouts
   * @param bronzeTable the registered bronze table, qualified (or {@code delta.`<path>`})
   * @return the view's query
   */
  public static String query(SourceWatermarks sources, String bronzeTable) {
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
        + " FROM a) SELECT l.source, a.last_arrival, c.arrival_clock, (unix_micros(c.arrival_clock)"
        + " - unix_micros(a.last_arrival)) / 1e6 AS quiet_s, l.idle_after_s, CASE WHEN"
        + " l.idle_after_s IS NULL THEN NULL WHEN a.last_arrival IS NULL THEN c.arrival_clock IS"
        + " NOT NULL ELSE (unix_micros(c.arrival_clock) - unix_micros(a.last_arrival)) / 1e6 >="
        + " l.idle_after_s END AS idle FROM listed l CROSS JOIN c LEFT JOIN a ON a.source ="
        + " l.source";
  }
}

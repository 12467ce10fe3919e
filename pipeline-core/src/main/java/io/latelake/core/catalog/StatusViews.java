package io.latelake.core.catalog;

import io.latelake.core.metric.GoldStatus;
import io.latelake.core.metric.MetricSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The SQL of the persistent view {@code <gold db>.<metric>_status}: live SQL over the registered
 * tables (no copy), so new rows and corrections show at the next read.
 *
 * <p>Columns: every column of {@code gold.<metric>}, then
 *
 * <ul>
 *   <li>{@code status} string — {@link GoldStatus#sql}: {@code restated} when {@code corrected_at}
 *       is set, else {@code settled} once {@code window_end} + {@code lake.correction.horizon} ≤
 *       {@code last_watermark}, else {@code provisional};
 *   <li>{@code completeness} double in [0, 1] — the lateness profiler's expected completeness of
 *       the window for its age (now − window_end): the midpoint rule on 32 points over the window
 *       of the piecewise-linear CDF stored in {@code monitoring.lateness_cdf} (lateness-profiler's
 *       {@code LatenessCdf.windowCompleteness}); the lowest over the profiled sources; null when no
 *       distribution is registered;
 *   <li>{@code last_change} string ({@code old → new}, JSON measures), {@code last_changed_at}
 *       timestamp (UTC), {@code last_change_reason} — the row's latest entry in {@code
 *       monitoring.corrections_log}; null when never restated;
 *   <li>{@code last_watermark} timestamp (UTC) — the gold stream's last reported watermark in
 *       {@code monitoring.stream_progress}; {@code closed} boolean — window_end ≤ it.
 * </ul>
 *
 * A monitoring table that does not exist when the view is created gives nulls; registering again
 * once it exists replaces the view. The streams' metrics source reads the same query for its
 * per-metric gold figures.
 */
public final class StatusViews {
  /** Points of the midpoint rule, as in {@code LatenessCdf}. */
  static final int MIDPOINTS = 32;

  static final List<String> EXTRA_COLUMNS =
      List.of(
          "status",
          "completeness",
          "last_change",
          "last_changed_at",
          "last_change_reason",
          "last_watermark",
          "closed");

  private StatusViews() {}

  /**
   * @param goldTable the registered gold table, qualified
   * @param monitoring a monitoring table's name ({@code corrections_log}, {@code stream_progress},
   *     {@code lateness_cdf}) to its reference in SQL (qualified by the monitoring database, or
   *     {@code delta.`<path>`})
   * @param goldColumns the gold table's columns, in order
   * @param hasLog {@code corrections_log} is registered
   * @param hasProgress {@code stream_progress} is registered
   * @param hasCdf {@code lateness_cdf} is registered
   * @return the view's query
   */
  public static String query(
      MetricSpec metric,
      Duration horizon,
      String goldTable,
      java.util.function.UnaryOperator<String> monitoring,
      List<String> goldColumns,
      boolean hasLog,
      boolean hasProgress,
      boolean hasCdf) {
    List<String> gb = metric.groupBy().stream().map(Sql::ident).toList();
    String keyCols = gb.isEmpty() ? "window_start" : "window_start, " + String.join(", ", gb);
    StringBuilder q = new StringBuilder();
    q.append("WITH g AS (SELECT * FROM ").append(goldTable).append(")");
    if (hasLog) {
      String keysJson =
          gb.isEmpty()
              ? "'{}'"
              : "to_json(named_struct("
                  + metric.groupBy().stream()
                      .map(c -> Sql.literal(c) + ", g." + Sql.ident(c))
                      .collect(Collectors.joining(", "))
                  + "))";
      q.append(
              ",\nlg AS (SELECT window_start, keys, old_values, new_values, corrected_at, reason,"
                  + " row_number() OVER (PARTITION BY window_start, keys ORDER BY corrected_at DESC, "
                  + "run_id DESC) AS rn FROM ")
          .append(monitoring.apply("corrections_log"))
          .append(" WHERE metric = ")
          .append(Sql.literal(metric.name()))
          .append("),\nlc AS (SELECT g.window_start");
      for (String c : gb) {
        q.append(", g.").append(c);
      }
      q.append(
              ", concat(coalesce(lg.old_values, 'null'), ' → ', coalesce(lg.new_values, "
                  + "'null')) AS last_change, lg.corrected_at AS last_changed_at, lg.reason AS "
                  + "last_change_reason FROM g JOIN lg ON lg.rn = 1 AND lg.window_start = g.window_start"
                  + " AND lg.keys = ")
          .append(keysJson)
          .append(")");
    }
    if (hasCdf) {
      String cdf = monitoring.apply("lateness_cdf");
      q.append(
              ",\ncdf AS (SELECT source, level, lateness_s, lead(level) OVER (PARTITION BY "
                  + "source ORDER BY level) AS next_level, lead(lateness_s) OVER (PARTITION BY source "
                  + "ORDER BY level) AS next_s FROM ")
          .append(cdf)
          .append(")")
          .append(
              ",\nbounds AS (SELECT source, min(lateness_s) AS v0, max(lateness_s) AS vmax "
                  + "FROM ")
          .append(cdf)
          .append(" GROUP BY source)")
          .append(",\npts AS (SELECT ")
          .append(keyCols)
          .append(", b.source, b.v0, b.vmax, " + "w.age_s + (k + 0.5) / ")
          .append(MIDPOINTS)
          .append(" * w.window_s AS a FROM " + "(SELECT ")
          .append(keyCols)
          .append(
              ", (unix_micros(current_timestamp()) - "
                  + "unix_micros(window_end)) / 1e6 AS age_s, (unix_micros(window_end) - "
                  + "unix_micros(window_start)) / 1e6 AS window_s FROM g) w CROSS JOIN bounds b "
                  + "LATERAL VIEW explode(sequence(0, ")
          .append(MIDPOINTS - 1)
          .append(")) s AS k)")
          .append(",\nf AS (SELECT ")
          .append(keyCols)
          .append(
              ", source, CASE WHEN a < v0 THEN "
                  + "0.0D ELSE 1.0D END AS f FROM pts WHERE a < v0 OR a >= vmax UNION ALL SELECT ")
          .append(prefixed("p", keyCols))
          .append(
              ", p.source, c.level + (c.next_level - c.level)"
                  + " * (p.a - c.lateness_s) / (c.next_s - c.lateness_s) AS f FROM pts p JOIN cdf c "
                  + "ON c.source = p.source AND c.lateness_s <= p.a AND c.next_s > p.a "
                  + "WHERE p.a >= p.v0 AND p.a < p.vmax)")
          .append(",\ncm AS (SELECT ")
          .append(keyCols)
          .append(", min(share) AS completeness FROM " + "(SELECT ")
          .append(keyCols)
          .append(", source, avg(f) AS share FROM f GROUP BY ")
          .append(keyCols)
          .append(", source) GROUP BY ")
          .append(keyCols)
          .append(")");
    }
    if (hasProgress) {
      q.append(",\nwm AS (SELECT max(watermark) AS last_watermark FROM ")
          .append(monitoring.apply("stream_progress"))
          .append(" WHERE query_name = ")
          .append(Sql.literal(metric.queryName()))
          .append(")");
    }
    List<String> select = new ArrayList<>();
    for (String c : goldColumns) {
      select.add("g." + Sql.ident(c));
    }
    select.add(
        GoldStatus.sql(
                goldColumns.contains("corrected_at") ? "g.corrected_at" : "NULL",
                "g.window_end",
                hasProgress ? "wm.last_watermark" : "CAST(NULL AS TIMESTAMP)",
                horizon)
            + " AS status");
    select.add(hasCdf ? "cm.completeness" : "CAST(NULL AS DOUBLE) AS completeness");
    if (hasLog) {
      select.add("lc.last_change");
      select.add("lc.last_changed_at");
      select.add("lc.last_change_reason");
    } else {
      select.add("CAST(NULL AS STRING) AS last_change");
      select.add("CAST(NULL AS TIMESTAMP) AS last_changed_at");
      select.add("CAST(NULL AS STRING) AS last_change_reason");
    }
    if (hasProgress) {
      select.add("wm.last_watermark");
      select.add("g.window_end <= wm.last_watermark AS closed");
    } else {
      select.add("CAST(NULL AS TIMESTAMP) AS last_watermark");
      select.add("CAST(NULL AS BOOLEAN) AS closed");
    }
    q.append("\nSELECT ").append(String.join(", ", select)).append("\nFROM g");
    if (hasLog) {
      q.append(" LEFT JOIN lc ON ").append(nullSafe("lc", keyCols));
    }
    if (hasCdf) {
      q.append(" LEFT JOIN cm ON ").append(nullSafe("cm", keyCols));
    }
    if (hasProgress) {
      q.append(" CROSS JOIN wm");
    }
    return q.toString();
  }

  private static String prefixed(String alias, String keyCols) {
    return List.of(keyCols.split(", ")).stream()
        .map(c -> alias + "." + c)
        .collect(Collectors.joining(", "));
  }

  private static String nullSafe(String alias, String keyCols) {
    return List.of(keyCols.split(", ")).stream()
        .map(c -> alias + "." + c + " <=> g." + c)
        .collect(Collectors.joining(" AND "));
  }
}

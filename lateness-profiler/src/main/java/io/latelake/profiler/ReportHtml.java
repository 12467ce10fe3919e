package io.latelake.profiler;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import org.apache.spark.sql.Row;
import org.jfree.chart.JFreeChart;

/**
 * The HTML of the lateness report ({@link ReportJob}): its tables, escaping and embedded charts.
 */
final class ReportHtml {
  private ReportHtml() {}

  static void embed(StringBuilder html, Path dir, List<Path> pngs, String name, JFreeChart chart)
      throws IOException {
    byte[] png = Charts.png(chart);
    Path file = dir.resolve(name);
    Files.write(file, png);
    pngs.add(file);
    html.append("<img alt=\"")
        .append(esc(chart.getTitle().getText()))
        .append("\" src=\"data:image/png;base64,")
        .append(Base64.getEncoder().encodeToString(png))
        .append("\">");
  }

  /**
   * How the shown days' percentiles were computed, from their {@code accuracy} column (null: exact,
   * {@code profile --exact}); {@code configured} when no day is shown.
   *
   * @return HTML, one sentence without its full stop
   */
  static String percentileMethod(List<Row> stats, int configured) {
    java.util.TreeSet<Integer> accuracies = new java.util.TreeSet<>();
    boolean exact = false;
    for (Row r : stats) {
      Integer a = r.getAs("accuracy");
      if (a == null) {
        exact = true;
      } else {
        accuracies.add(a);
      }
    }
    if (!exact && accuracies.isEmpty()) {
      accuracies.add(configured);
    }
    StringBuilder out = new StringBuilder("Percentiles: ");
    if (exact) {
      out.append("exact (<code>percentile_disc</code>, <code>profile --exact</code>)");
      if (accuracies.isEmpty()) {
        return out.toString();
      }
      out.append(" on some days; on the others ");
    }
    for (Integer a : accuracies) {
      out.append(a.equals(accuracies.first()) ? "" : "; ")
          .append("<code>percentile_approx</code>, accuracy ")
          .append(a)
          .append(" (rank error ≤ n / ")
          .append(a)
          .append(")");
    }
    return out.toString();
  }

  /** The columns of {@link #statsTable}, from {@code monitoring.lateness_stats}. */
  static final String[] STATS_COLUMNS = {
    "arrival_day",
    "n",
    "min_s",
    "p50_s",
    "p90_s",
    "p95_s",
    "p99_s",
    "p999_s",
    "max_s",
    "negative_share",
    "beyond_watermark_share",
    "behind_watermark_count",
    "behind_watermark_share",
    "beyond_correction_share",
    "after_publish_share",
    "redelivery_count",
    "create_time_count",
    "clock_basis",
    "accuracy"
  };

  static void statsTable(StringBuilder html, List<Row> rows) {
    String[] cols = STATS_COLUMNS;
    html.append("<table><tr>");
    for (String c : cols) {
      html.append("<th>").append(c).append("</th>");
    }
    html.append("</tr>");
    int from = Math.max(0, rows.size() - 31);
    if (from > 0) {
      html.append("<tr><td colspan=\"")
          .append(cols.length)
          .append("\">… ")
          .append(from)
          .append(" earlier days in monitoring.lateness_stats</td></tr>");
    }
    for (Row r : rows.subList(from, rows.size())) {
      html.append("<tr>");
      for (String c : cols) {
        Object v = r.getAs(c);
        // accuracy null: the day's percentiles are exact (profile --exact)
        html.append("<td>")
            .append(esc(v == null && c.equals("accuracy") ? "exact" : format(v)))
            .append("</td>");
      }
      html.append("</tr>");
    }
    html.append("</table>");
  }

  /**
   * The source's quantiles over the whole range, from its days' merged sketches ({@link
   * LatenessSketches#over}, levels {@link ReportJob#RANGE_LEVELS}); nothing when the source has no
   * measured event in the range, and what to do when none of its days has a sketch.
   */
  static void rangeLine(StringBuilder html, Object range, Row r) {
    if (r == null || r.isNullAt(r.fieldIndex("n")) || r.<Long>getAs("n") == 0) {
      return;
    }
    long n = r.getAs("n");
    if (r.isNullAt(r.fieldIndex("quantiles"))) {
      html.append("<p>Over arrival days ")
          .append(esc(String.valueOf(range)))
          .append(": none of the ")
          .append(n)
          .append(" events is in a lateness sketch (days profiled before sketches were kept): run ")
          .append("<code>latelake profile</code> for those days again.</p>");
      return;
    }
    List<Double> q = r.getList(r.fieldIndex("quantiles"));
    long sketched = r.getAs("sketched_n");
    html.append("<p>Over arrival days ")
        .append(esc(String.valueOf(range)))
        .append(": n = ")
        .append(sketched)
        .append(", p50 ")
        .append(esc(format(q.get(0))))
        .append(" s, p95 ")
        .append(esc(format(q.get(1))))
        .append(" s, p99 ")
        .append(esc(format(q.get(2))))
        .append(" s (the days' KLL sketches merged, k = ")
        .append(LatenessSketches.K)
        .append(": exact up to ")
        .append(LatenessSketches.K)
        .append(" events, else rank error ≤ ")
        .append(String.format(java.util.Locale.ROOT, "%.2f", LatenessSketches.RANK_ERROR * 100))
        .append("% of n with 99% confidence).");
    if (sketched < n) {
      html.append(" ")
          .append(n - sketched)
          .append(" events of days profiled before sketches were kept are not in these figures: ")
          .append("run <code>latelake profile</code> for those days again.");
    }
    html.append("</p>");
  }

  static void adviceTable(StringBuilder html, List<Row> rows) {
    html.append("<h3>Advice</h3><ul>");
    for (Row r : rows) {
      String kind = r.getAs("kind");
      html.append("<li>")
          .append(kind.equals("watermark") ? "Watermark delay" : "Correction horizon")
          .append(" covering ")
          .append(format((double) r.<Double>getAs("coverage") * 100))
          .append("% of events: <b>")
          .append(Charts.human(r.<Double>getAs("advised_delay_s")))
          .append("</b> (")
          .append(format(r.getAs("advised_delay_s")))
          .append(" s). Configured ")
          .append(kind.equals("watermark") ? "watermark " : "correction horizon ")
          .append(Charts.human(r.<Double>getAs("configured_delay_s")))
          .append(": ")
          .append(
              kind.equals("watermark")
                  ? r.<Long>getAs("configured_dropped_count")
                      + " events ("
                      + format((double) r.<Double>getAs("configured_dropped_share") * 100)
                      + "%) fall behind it if it moved after every arrival, per source (not the "
                      + "stream's drops: Spark moves it once per micro-batch, see the replay below; "
                      + r.<Long>getAs("configured_beyond_count")
                      + " arrived later than the delay)"
                  : r.<Long>getAs("configured_beyond_count")
                      + " events ("
                      + format((double) r.<Double>getAs("configured_beyond_share") * 100)
                      + "%) arrived after their window was settled (a restatement of a settled "
                      + "number)")
          .append(".</li>");
    }
    html.append("</ul>");
  }

  /** The watermark replay of the last profile run ({@link WatermarkReplay}), one row per delay. */
  static void replayTable(StringBuilder html, List<Row> rows) {
    html.append("<h2>What each watermark delay would drop (replay)</h2>");
    if (rows.isEmpty()) {
      html.append("<p>No <code>monitoring.watermark_replay</code> rows: run ")
          .append("<code>latelake profile</code>.</p>");
      return;
    }
    Row first = rows.get(0);
    html.append("<p>")
        .append(esc(first.getAs("query_name")))
        .append(" replayed over bronze by Spark's rule (the watermark moves once per micro-batch; ")
        .append("a row is dropped when its event time is at or behind the previous ")
        .append("micro-batch's watermark), in ")
        .append(first.<Long>getAs("micro_batches"))
        .append(" micro-batches (")
        .append(esc(first.getAs("batch_basis")))
        .append("). Recommended: the smallest delay dropping at most ")
        .append(format(first.<Double>getAs("target_drop_share") * 100))
        .append("% of the rows.</p><table><tr><th>delay</th><th>dropped</th><th>of rows</th>")
        .append("<th>share %</th><th>gold rows to correct</th><th>dedup state (peak ids)</th>")
        .append("<th>watermark trails arrivals by (s, median)</th><th></th></tr>");
    for (Row r : rows) {
      String mark =
          (r.<Boolean>getAs("configured") ? "configured " : "")
              + (r.<Boolean>getAs("recommended") ? "recommended" : "");
      html.append("<tr><td>")
          .append(Charts.human(r.<Double>getAs("delay_s")))
          .append("</td><td>")
          .append(r.<Long>getAs("dropped_count"))
          .append("</td><td>")
          .append(r.<Long>getAs("rows"))
          .append("</td><td>")
          .append(format(r.<Double>getAs("dropped_share") * 100))
          .append("</td><td>")
          .append(r.<Long>getAs("gold_rows_to_correct"))
          .append("</td><td>")
          .append(r.<Long>getAs("state_rows_peak"))
          .append("</td><td>")
          .append(esc(format(r.getAs("watermark_lag_s"))))
          .append("</td><td>")
          .append(mark.strip())
          .append("</td></tr>");
    }
    html.append("</table>");
  }

  private static String format(Object v) {
    if (v instanceof Double d) {
      return Math.abs(d) >= 1e6 || (Math.abs(d) < 1e-3 && d != 0)
          ? String.format("%.4g", d)
          : String.format("%.6g", d).replaceAll("\\.?0+$", "");
    }
    return String.valueOf(v);
  }

  static String esc(String s) {
    return s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}

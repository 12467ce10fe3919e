package io.latelake.profiler;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYBarRenderer;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.time.Day;
import org.jfree.data.time.TimeSeries;
import org.jfree.data.time.TimeSeriesCollection;
import org.jfree.data.xy.XYIntervalSeries;
import org.jfree.data.xy.XYIntervalSeriesCollection;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The report's charts, built with JFreeChart and rendered headless to PNG bytes. Lateness axes are
 * logarithmic (seconds); values ≤ 0 cannot be placed on them and are stated in the subtitle.
 */
public final class Charts {
  /** PNG width, pixels. */
  public static final int WIDTH = 760;

  /** PNG height, pixels. */
  public static final int HEIGHT = 400;

  private Charts() {}

  /** A histogram bin [low, high) seconds with its count. */
  public record Bin(double low, double high, long count) {}

  /**
   * @param bins positive-lateness bins on a log scale
   * @param zero events with lateness exactly 0
   * @param negative events with negative lateness (clock skew)
   */
  public static JFreeChart histogram(String source, List<Bin> bins, long zero, long negative) {
    XYIntervalSeries s = new XYIntervalSeries("events");
    for (Bin b : bins) {
      s.add(Math.sqrt(b.low() * b.high()), b.low(), b.high(), b.count(), 0, b.count());
    }
    XYIntervalSeriesCollection data = new XYIntervalSeriesCollection();
    data.addSeries(s);
    JFreeChart chart =
        ChartFactory.createXYBarChart(
            "Lateness histogram — " + source, "lateness (s, log scale)", false, "events", data);
    XYPlot plot = chart.getXYPlot();
    plot.setDomainAxis(logAxis("lateness (s, log scale)"));
    XYBarRenderer r = (XYBarRenderer) plot.getRenderer();
    r.setShadowVisible(false);
    r.setDrawBarOutline(true);
    r.setSeriesPaint(0, new Color(70, 130, 180));
    r.setSeriesOutlinePaint(0, Color.WHITE);
    r.setBarPainter(new org.jfree.chart.renderer.xy.StandardXYBarPainter());
    chart.removeLegend();
    chart.addSubtitle(
        new TextTitle(
            "not shown: "
                + zero
                + " events with lateness 0 s, "
                + negative
                + " with negative lateness (clock skew)",
            new Font("SansSerif", Font.PLAIN, 11)));
    style(plot);
    return chart;
  }

  /**
   * @param cdf the stored quantiles
   * @param watermarkS the configured watermark delay, seconds
   * @param horizonS the configured correction horizon, seconds
   */
  public static JFreeChart cdf(String source, LatenessCdf cdf, double watermarkS, double horizonS) {
    XYSeries s = new XYSeries("share of events with lateness ≤ x", false, true);
    double[] l = cdf.levels();
    double[] v = cdf.values();
    double below = 0;
    for (int i = 0; i < l.length; i++) {
      if (v[i] > 0) {
        s.add(v[i], l[i]);
      } else {
        below = l[i];
      }
    }
    XYSeriesCollection data = new XYSeriesCollection(s);
    JFreeChart chart =
        ChartFactory.createXYLineChart(
            "Cumulative lateness — " + source, "lateness (s, log scale)", "share of events", data);
    XYPlot plot = chart.getXYPlot();
    LogAxis x = logAxis("lateness (s, log scale)");
    double lo = s.getItemCount() == 0 ? 0.001 : s.getMinX();
    double hi = Math.max(s.getItemCount() == 0 ? 1 : s.getMaxX(), horizonS);
    x.setRange(lo / 2, hi * 2);
    plot.setDomainAxis(x);
    NumberAxis y = (NumberAxis) plot.getRangeAxis();
    y.setRange(0, 1.02);
    plot.addDomainMarker(
        marker(
            watermarkS,
            "watermark " + human(watermarkS) + " ",
            new Color(200, 60, 40),
            RectangleAnchor.TOP_LEFT,
            TextAnchor.TOP_RIGHT));
    plot.addDomainMarker(
        marker(
            horizonS,
            "correction horizon " + human(horizonS) + " ",
            new Color(40, 140, 60),
            RectangleAnchor.BOTTOM_LEFT,
            TextAnchor.BOTTOM_RIGHT));
    plot.getRenderer().setSeriesStroke(0, new BasicStroke(2f));
    plot.getRenderer().setSeriesPaint(0, new Color(70, 130, 180));
    chart.removeLegend();
    chart.addSubtitle(
        new TextTitle(
            String.format("share with lateness ≤ 0 s (not on the log " + "axis): %.4f", below),
            new Font("SansSerif", Font.PLAIN, 11)));
    style(plot);
    return chart;
  }

  /**
   * @param byDay percentile name (p50, p95, p99) → (day → seconds)
   */
  public static JFreeChart trend(
      String source, Map<String, Map<java.time.LocalDate, Double>> byDay) {
    double lo = Double.MAX_VALUE;
    double hi = 0;
    int points = 0;
    for (var e : byDay.values()) {
      for (double v : e.values()) {
        if (v > 0) {
          lo = Math.min(lo, v);
        }
        hi = Math.max(hi, v);
        points++;
      }
    }
    boolean log = hi > 0 && hi / lo > 20;
    long hidden = 0;
    TimeSeriesCollection data = new TimeSeriesCollection();
    for (var e : byDay.entrySet()) {
      TimeSeries t = new TimeSeries(e.getKey());
      for (var d : e.getValue().entrySet()) {
        if (log && d.getValue() <= 0) {
          hidden++;
          continue;
        }
        t.addOrUpdate(
            new Day(d.getKey().getDayOfMonth(), d.getKey().getMonthValue(), d.getKey().getYear()),
            d.getValue());
      }
      data.addSeries(t);
    }
    JFreeChart chart =
        ChartFactory.createTimeSeriesChart(
            "Lateness percentiles per arrival day — " + source,
            "arrival day (UTC)",
            "lateness (s)",
            data,
            true,
            false,
            false);
    XYPlot plot = chart.getXYPlot();
    if (log) {
      plot.setRangeAxis(logAxis("lateness (s, log scale)"));
      if (hidden > 0) {
        chart.addSubtitle(
            new TextTitle(
                hidden + " day percentiles ≤ 0 s not on the log axis",
                new Font("SansSerif", Font.PLAIN, 11)));
      }
    }
    XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, points / 3 <= 60);
    r.setSeriesPaint(0, new Color(70, 130, 180));
    r.setSeriesPaint(1, new Color(230, 140, 30));
    r.setSeriesPaint(2, new Color(200, 60, 40));
    plot.setRenderer(r);
    style(plot);
    return chart;
  }

  /**
   * @param byQuery query name → (batch id → rows dropped by the watermark)
   */
  public static JFreeChart dropped(Map<String, Map<Long, Long>> byQuery) {
    XYSeriesCollection data = new XYSeriesCollection();
    for (var e : byQuery.entrySet()) {
      XYSeries s = new XYSeries(e.getKey(), true, true);
      e.getValue().forEach((b, n) -> s.addOrUpdate(b.doubleValue(), n.doubleValue()));
      data.addSeries(s);
    }
    JFreeChart chart =
        ChartFactory.createXYLineChart(
            "Rows dropped by the watermark per " + "micro-batch",
            "micro-batch id",
            "rows dropped",
            data);
    XYPlot plot = chart.getXYPlot();
    plot.setRenderer(new XYLineAndShapeRenderer(true, true));
    ((NumberAxis) plot.getDomainAxis()).setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    style(plot);
    return chart;
  }

  /**
   * @return the chart as PNG bytes, rendered headless
   */
  public static byte[] png(JFreeChart chart) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      ChartUtils.writeChartAsPNG(out, chart, WIDTH, HEIGHT);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot render chart '" + chart.getTitle().getText() + "'", e);
    }
    return out.toByteArray();
  }

  private static LogAxis logAxis(String label) {
    LogAxis a = new LogAxis(label);
    a.setBase(10);
    a.setSmallestValue(1e-6);
    a.setTickUnit(new org.jfree.chart.axis.NumberTickUnit(1.0));
    a.setMinorTickMarksVisible(true);
    a.setNumberFormatOverride(new java.text.DecimalFormat("#,##0.######"));
    return a;
  }

  private static ValueMarker marker(
      double x, String label, Color color, RectangleAnchor anchor, TextAnchor text) {
    ValueMarker m = new ValueMarker(x);
    m.setPaint(color);
    m.setStroke(
        new BasicStroke(
            1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
    m.setLabel(label);
    m.setLabelPaint(color);
    m.setLabelFont(new Font("SansSerif", Font.PLAIN, 11));
    m.setLabelAnchor(anchor);
    m.setLabelTextAnchor(text);
    m.setLabelBackgroundColor(new Color(255, 255, 255, 0));
    return m;
  }

  private static void style(XYPlot plot) {
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(new Color(220, 220, 220));
    plot.setRangeGridlinePaint(new Color(220, 220, 220));
  }

  /**
   * @return seconds as a short human duration, e.g. 600 s → "10 min"
   */
  static String human(double s) {
    if (s >= 86400 && s % 86400 == 0) {
      return (long) (s / 86400) + " d";
    }
    if (s >= 3600 && s % 3600 == 0) {
      return (long) (s / 3600) + " h";
    }
    if (s >= 60 && s % 60 == 0) {
      return (long) (s / 60) + " min";
    }
    if (s >= 1000) {
      return String.format("%.0f s", s);
    }
    return java.math.BigDecimal.valueOf(s)
            .round(new java.math.MathContext(3))
            .stripTrailingZeros()
            .toPlainString()
        + " s";
  }
}

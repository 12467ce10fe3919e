package io.latelake.profiler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latelake.core.streaming.StreamProgressTable;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.testing.SparkTestBase;
import io.latelake.core.time.DayRange;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The HTML report and its charts on a fixture lake. */
class ReportJobTest extends SparkTestBase {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2024-05-20T03:00:00Z"), ZoneOffset.UTC);

  @Test
  void histogramHasTenBinsPerDecade() {
    List<Row> rows =
        Fixtures.withLateness("web", "2024-05-14T10:00:00Z", -3, 0, 0, 1, 1.5, 1.8, 10, 1000);
    assertThat(
            ReportJob.histogram(LatenessStats.lateness(Fixtures.bronze(spark, rows)))
                .collectAsList())
        .extracting(r -> r.getAs("kind"), r -> r.getAs("bin"), r -> r.getAs("events"))
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("negative", null, 1L),
            org.assertj.core.groups.Tuple.tuple("zero", null, 2L),
            org.assertj.core.groups.Tuple.tuple("positive", 0L, 1L),
            org.assertj.core.groups.Tuple.tuple("positive", 1L, 1L),
            org.assertj.core.groups.Tuple.tuple("positive", 2L, 1L),
            org.assertj.core.groups.Tuple.tuple("positive", 10L, 1L),
            org.assertj.core.groups.Tuple.tuple("positive", 30L, 1L));
  }

  @Test
  void writesASelfContainedReportWithChartsPerSource(@TempDir Path dir) throws IOException {
    TableRegistry tables = new TableRegistry(dir.toString());
    List<Row> rows = new ArrayList<>();
    java.util.Random random = new java.util.Random(7);
    for (String day : List.of("2024-05-14", "2024-05-15", "2024-05-16")) {
      double[] l = new double[300];
      for (int i = 0; i < l.length; i++) {
        l[i] = Math.round(Math.exp(random.nextGaussian() * 1.5 + 3) * 1000) / 1000.0;
      }
      l[0] = -4;
      rows.addAll(
          Fixtures.withLateness("web-" + day, day + "T10:00:00Z", l).stream()
              .map(
                  r ->
                      RowFactory.create(
                          r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5), "web <&>",
                          r.get(7)))
              .toList());
    }
    rows.addAll(Fixtures.withLateness("app", "2024-05-15T10:00:00Z", 0.5, 2, 8, 30, 120));
    Fixtures.bronze(spark, rows)
        .write()
        .format("delta")
        .partitionBy("ingest_date")
        .save(tables.bronzeEvents());
    List<Row> progress = new ArrayList<>();
    for (int b = 0; b < 6; b++) {
      progress.add(
          RowFactory.create(
              "silver_events",
              "q",
              "r",
              (long) b,
              Fixtures.ts("2024-05-14T10:0" + b + ":00Z"),
              100L,
              null,
              (long) (b % 3),
              "",
              0L,
              0L,
              0L,
              Fixtures.ts("2024-05-14T10:0" + b + ":00Z"),
              0L,
              null,
              null,
              null,
              null,
              null));
    }
    spark
        .createDataFrame(progress, StreamProgressTable.SCHEMA)
        .write()
        .format("delta")
        .save(tables.streamProgress());
    Path out = Path.of("target", "report-fixture");
    ProfilerConfig cfg =
        Fixtures.profiler(
            "lake.profiler.report-dir=\"" + out + "\"",
            "lake.profiler.watermark-delay=1 minute",
            "lake.correction.horizon=10 minutes");
    DayRange range = DayRange.parse("2024-05-14..2024-05-16");

    assertThatThrownBy(
            () ->
                new ReportJob(
                        io.latelake.core.job.JobContext.start(spark, tables, CLOCK),
                        new ProfilerJob.Options(cfg, range))
                    .run())
        .isInstanceOf(io.latelake.core.table.MissingTableException.class)
        .hasMessage(
            "Cannot write the lateness report: table monitoring.lateness_stats does not exist at "
                + dir
                + "/monitoring/lateness_stats (lake.root); run `latelake profile` first");

    new ProfileJob(
            io.latelake.core.job.JobContext.start(spark, tables, CLOCK),
            new ProfilerJob.Options(cfg, range))
        .run();
    ReportJob.Result r =
        new ReportJob(
                io.latelake.core.job.JobContext.start(spark, tables, CLOCK),
                new ProfilerJob.Options(cfg, range))
            .run();
    assertThat(r.sources()).containsExactly("app", "web <&>");
    assertThat(r.charts())
        .extracting(p -> p.getFileName().toString())
        .containsExactly(
            "app-histogram.png",
            "app-cdf.png",
            "app-trend.png",
            "web____-histogram.png",
            "web____-cdf.png",
            "web____-trend.png",
            "dropped-by-watermark.png");
    for (Path png : r.charts()) {
      byte[] head = java.util.Arrays.copyOf(Files.readAllBytes(png), 4);
      assertThat(head).containsExactly(0x89, 'P', 'N', 'G');
    }
    String html = Files.readString(r.html());
    assertThat(Pattern.compile("src=\"data:image/png;base64,").matcher(html).results().count())
        .isEqualTo(7L);
    assertThat(html)
        .contains("<h2>web &lt;&amp;&gt;</h2>")
        .doesNotContain("<h2>web <&>")
        .contains(
            "Percentiles: <code>percentile_approx</code>, accuracy 10000 (rank error ≤ n /"
                + " 10000). Watermark delay 1 min")
        .contains("<td>10000</td></tr>")
        .contains("Watermark delay covering 99% of events: <b>")
        // app's five events (0.5, 2, 8, 30, 120 s) over the range, from its day's sketch
        .contains(
            "<p>Over arrival days 2024-05-14..2024-05-16: n = 5, p50 8 s, p95 120 s, p99 120 s (the"
                + " days' KLL sketches merged, k = 200: exact up to 200 events, else rank error"
                + " ≤ 1.33% of n with 99% confidence).</p>");
    // the replay: every row was ingested at one instant (one bronze micro-batch), and the
    // progress rows carry no input_ingested_until: one micro-batch, nothing dropped by any delay;
    // the smallest delay tried is recommended, silver's 10 minutes is the configured one
    assertThat(html).contains("in 1 micro-batches (per-bronze-batch)");
    assertThat(html)
        .containsPattern(
            "<tr><td>0.1 s</td><td>0</td><td>905</td><td>0</td><td>0</td><td>905</td><td>[^<]*</td>"
                + "<td>recommended</td></tr>")
        .containsPattern(
            "<tr><td>10 min</td><td>0</td><td>905</td><td>0</td><td>0</td><td>905</td><td>[^<]*</td>"
                + "<td>configured</td></tr>");

    // days that were not profiled (the default range on a lake of older data): nothing is
    // written, the report of the profiled days stays as it was
    ReportJob.Result none =
        new ReportJob(
                io.latelake.core.job.JobContext.start(spark, tables, CLOCK),
                new ProfilerJob.Options(cfg, DayRange.parse("2024-05-18..2024-05-20")))
            .run();
    assertThat(none.html()).isNull();
    assertThat(none.charts()).isEmpty();
    assertThat(none.sources()).isEmpty();
    assertThat(none.summary()).isEqualTo("nothing written (no profiled arrival day in the range)");
    assertThat(Files.readString(r.html())).isEqualTo(html);
  }

  private static Row withAccuracy(Integer accuracy) {
    return new org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema(
        new Object[] {accuracy},
        new org.apache.spark.sql.types.StructType().add("accuracy", "int"));
  }

  @Test
  void theReportSaysHowTheShownDaysPercentilesWereComputed() {
    // a day profiled with --exact: its accuracy column says so
    org.apache.spark.sql.types.StructType schema = new org.apache.spark.sql.types.StructType();
    for (String c : ReportHtml.STATS_COLUMNS) {
      schema = schema.add(c, "string");
    }
    StringBuilder table = new StringBuilder();
    ReportHtml.statsTable(
        table,
        List.of(
            new org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema(
                new Object[ReportHtml.STATS_COLUMNS.length], schema)));
    assertThat(table.toString())
        .contains("<th>accuracy</th></tr>")
        .endsWith("<td>exact</td></tr></table>");
    assertThat(ReportHtml.percentileMethod(List.of(), 500))
        .isEqualTo(
            "Percentiles: <code>percentile_approx</code>, accuracy 500 (rank error ≤ n / 500)");
    assertThat(ReportHtml.percentileMethod(List.of(withAccuracy(null), withAccuracy(null)), 500))
        .isEqualTo(
            "Percentiles: exact (<code>percentile_disc</code>, <code>profile --exact</code>)");
    assertThat(
            ReportHtml.percentileMethod(
                List.of(withAccuracy(10000), withAccuracy(null), withAccuracy(100)), 500))
        .isEqualTo(
            "Percentiles: exact (<code>percentile_disc</code>, <code>profile --exact</code>) on"
                + " some days; on the others <code>percentile_approx</code>, accuracy 100 (rank"
                + " error ≤ n / 100); <code>percentile_approx</code>, accuracy 10000 (rank error ≤"
                + " n / 10000)");
  }
}

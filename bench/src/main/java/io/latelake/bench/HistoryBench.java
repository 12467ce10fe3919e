package io.latelake.bench;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.date_sub;
import static org.apache.spark.sql.functions.explode;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sequence;

import io.delta.tables.DeltaTable;
import io.latelake.bronze.BronzeConfig;
import io.latelake.bronze.BronzeJob;
import io.latelake.core.job.JobContext;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.TableRegistry;
import io.latelake.correction.correct.CorrectJob;
import io.latelake.correction.correct.CorrectResult;
import io.latelake.correction.shared.CorrectionConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code correct} on production's shape: bronze holds days of history beyond the id horizon ({@code
 * lake.correction.dedup-horizon}) and the late batch is contiguous in event time (one device
 * offline for a while), so a correction that costs what arrived late reads a small part of bronze
 * while a full recompute reads all of it.
 *
 * <p>The history: copies of the bench's day of bronze rows (its synthetic span, the spread late
 * batch included) shifted back by whole days — {@code event_time} and {@code enqueued_time} moved
 * by k days, {@code event_id} suffixed {@code ~k} (distinct events; copies of an id stay within one
 * day) — as {@code publish-4x-table} makes older gold. Their {@code ingested_at} and the {@code
 * ingest_date} partition move onto copy k's arrival day (the bench's ingest day is the run's today
 * while its events arrive on {@link SyntheticEvents#START}'s day, years before): every ingest time
 * moves back by k days plus the days from START's date to the bench's first ingest date, so copy k
 * is ingested k days before START's date at the time of day the bench ingested (a day later for
 * rows the bench ingested after a midnight; before their enqueued time for a bench run early in the
 * UTC day), as production's bronze has each day's arrivals in about that day's partition, so a
 * profile of the newest days reads those days and the id horizon before them, not all of the
 * history. An untimed {@code correct} then absorbs the history's commit (its windows are restated
 * into gold, as the runs before would have published them), as a production lake would have it
 * before the hour being measured.
 *
 * <p>The late batch: {@code max(1, 1%)} of the bench's events, one device ({@code dev_offline}),
 * event times evenly over 2% of the span from its middle (all closed), arriving after the main data
 * ({@link Shape#CONTIGUOUS}); or as many events spread like the bench's own late batch: in about 2%
 * of the metric's windows, evenly over the first nine tenths of the span, over every device ({@link
 * Shape#SPREAD}). Only bronze ingests it: silver would drop every row behind its watermark and gold
 * would not change, so the streams are not run (they would re-read the history commit, untimed).
 */
final class HistoryBench {
  private static final Logger LOG = LoggerFactory.getLogger(HistoryBench.class);

  /** How a late batch's event times lie (class comment). */
  enum Shape {
    CONTIGUOUS,
    SPREAD
  }

  /**
   * One measured correction over a history.
   *
   * @param days days of event time in bronze
   * @param bronzeRows bronze rows then
   * @param correct seconds of the timed {@code correct}
   * @param recompute seconds of the full recompute of gold from bronze
   * @param bound seconds of the least incremental correction ({@link
   *     BatchBaselines#incrementalRecompute}) MERGEd into the recomputed table
   * @param differences closed gold rows that differ between {@code correct}'s gold and the
   *     recompute, before and after the bound's MERGE into it (0 when all agree)
   * @param restated gold rows the timed {@code correct} changed
   */
  record Run(
      int days,
      long bronzeRows,
      double correct,
      double recompute,
      double bound,
      long differences,
      long restated) {}

  private final SparkSession spark;
  private final TableRegistry t;
  private final CorrectionConfig cc;
  private final BronzeConfig bc;
  private final MetricSpec metric;
  private final SyntheticEvents data;
  private final Path landing;
  private final String ref;
  private final long baseVersion;
  private final long ingestOffsetDays;
  private int days = 1;
  private int batches;

  /**
   * @param ref a folder for the recomputed gold tables
   */
  HistoryBench(
      SparkSession spark,
      TableRegistry t,
      CorrectionConfig cc,
      BronzeConfig bc,
      MetricSpec metric,
      SyntheticEvents data,
      Path landing,
      String ref) {
    this.spark = spark;
    this.t = t;
    this.cc = cc;
    this.bc = bc;
    this.metric = metric;
    this.data = data;
    this.landing = landing;
    this.ref = ref;
    this.baseVersion = DeltaTable.forPath(spark, t.bronzeEvents()).history(1).first().getLong(0);
    java.sql.Date firstIngest =
        spark
            .read()
            .format("delta")
            .option("versionAsOf", baseVersion)
            .load(t.bronzeEvents())
            .agg(org.apache.spark.sql.functions.min("ingest_date"))
            .first()
            .getDate(0);
    this.ingestOffsetDays =
        java.time.temporal.ChronoUnit.DAYS.between(
            SyntheticEvents.START.atZone(java.time.ZoneOffset.UTC).toLocalDate(),
            firstIngest.toLocalDate());
  }

  /**
   * Extends bronze to {@code total} days of history (the copies shifted by {@code days .. total −
   * 1} days; the rows are shuffled by ingest date and bronze is partitioned by it, so each data
   * file holds one day), then runs {@code correct} once, untimed.
   */
  void extendTo(int total) {
    if (total <= days) {
      return;
    }
    long started = System.nanoTime();
    Dataset<Row> base =
        spark.read().format("delta").option("versionAsOf", baseVersion).load(t.bronzeEvents());
    Column k = col("_k");
    Column shift = expr("make_dt_interval(_k, 0, 0, 0)");
    Column ingestShift = expr("make_dt_interval(_k + " + ingestOffsetDays + ", 0, 0, 0)");
    Dataset<Row> copies =
        base.withColumn("_k", explode(sequence(lit(days), lit(total - 1))))
            .withColumn("event_id", concat(col("event_id"), lit("~"), k.cast("string")))
            .withColumn("event_time", col("event_time").minus(shift))
            .withColumn("enqueued_time", col("enqueued_time").minus(shift))
            .withColumn("ingested_at", col("ingested_at").minus(ingestShift))
            .withColumn(
                "ingest_date", date_sub(col("ingest_date"), k.plus(ingestOffsetDays).cast("int")))
            .drop("_k");
    copies
        .repartition(col("ingest_date"))
        .write()
        .format("delta")
        .mode("append")
        .save(t.bronzeEvents());
    days = total;
    LOG.info(
        "bench history: bronze now spans {} days ({} rows), written in {} s; correct absorbs it",
        days,
        bronzeRows(),
        String.format(java.util.Locale.ROOT, "%.1f", (System.nanoTime() - started) / 1e9));
    correct();
  }

  /**
   * Ingests one late batch of {@code shape} into bronze, then times {@code correct} and a full
   * recompute of gold from bronze, and compares their closed rows.
   */
  Run measure(Shape shape) {
    batches++;
    List<SyntheticEvents.Event> late =
        shape == Shape.CONTIGUOUS ? contiguousLateBatch(batches) : spreadLateBatch(batches);
    SyntheticEvents.write(late, landing.resolve(String.format("offline-%03d.json", batches)));
    Instant beforeBatch = Instant.now();
    new BronzeJob(JobContext.start(spark, t), bc).run();
    CorrectResult[] result = new CorrectResult[1];
    double correct = Bench.time(() -> result[0] = correct());
    String recomputed = ref + "/recomputed-" + days + "d";
    double recompute =
        Bench.time(
            () -> BatchBaselines.recompute(spark, t.bronzeEvents(), recomputed, metric.window()));
    Instant watermark = result[0].metrics().get(0).watermark();
    Dataset<Row> published =
        CorrectionBench.closed(spark.read().format("delta").load(t.gold(metric.name())), watermark);
    Dataset<Row> expected =
        CorrectionBench.closed(spark.read().format("delta").load(recomputed), watermark);
    long differences = differences(published, expected);
    double bound =
        Bench.time(
            () ->
                BatchBaselines.incrementalRecompute(
                    spark, t.bronzeEvents(), recomputed, beforeBatch, metric.window()));
    differences +=
        differences(
            published,
            CorrectionBench.closed(spark.read().format("delta").load(recomputed), watermark));
    Run run =
        new Run(
            days,
            bronzeRows(),
            correct,
            recompute,
            bound,
            differences,
            result[0].metrics().get(0).rowsChanged());
    LOG.info(
        "bench history {} days, {} bronze rows, {} late batch: correct {} s ({} gold rows "
            + "restated), full recompute {} s, least incremental correction {} s, {} closed gold "
            + "rows differ",
        run.days(),
        run.bronzeRows(),
        shape.name().toLowerCase(java.util.Locale.ROOT),
        String.format(java.util.Locale.ROOT, "%.2f", correct),
        run.restated(),
        String.format(java.util.Locale.ROOT, "%.2f", recompute),
        String.format(java.util.Locale.ROOT, "%.2f", bound),
        differences);
    return run;
  }

  /**
   * @return the rows of {@code a} not in {@code b} plus those of {@code b} not in {@code a}
   *     (duplicates counted): 0 when the two hold the same rows
   */
  static long differences(Dataset<Row> a, Dataset<Row> b) {
    return a.exceptAll(b).count() + b.exceptAll(a).count();
  }

  private CorrectResult correct() {
    return new CorrectJob(
            JobContext.start(spark, t),
            new CorrectJob.Options(cc, List.of(metric), Optional.empty()))
        .run();
  }

  private long bronzeRows() {
    return spark.read().format("delta").load(t.bronzeEvents()).count();
  }

  /** Batch {@code n} (1-based): the same size and event-time range for every n, new ids. */
  private List<SyntheticEvents.Event> contiguousLateBatch(int n) {
    long count = Math.max(1, Math.round(data.records() * 0.01));
    Duration span = data.eventTimeSpan();
    Instant from = SyntheticEvents.START.plus(span.dividedBy(2));
    long stepNanos = Math.max(1, span.multipliedBy(2).dividedBy(100).toNanos() / count);
    Instant arrival = data.sliceEnd(data.sliceCount() - 1).plusSeconds(120L + n);
    List<SyntheticEvents.Event> out = new ArrayList<>();
    for (long i = 0; i < count; i++) {
      out.add(
          new SyntheticEvents.Event(
              "offline-" + n + "-" + i,
              from.plusNanos(i * stepNanos),
              arrival,
              "dev_offline",
              "offline",
              i,
              200 + (i * 37) % 2000));
    }
    return out;
  }

  /**
   * Batch {@code n} (1-based) of {@link Shape#SPREAD}: as many events as {@link
   * #contiguousLateBatch}, in about 2% of the metric's windows evenly over the first nine tenths of
   * the span (all closed), devices in turn; new ids, deterministic.
   */
  private List<SyntheticEvents.Event> spreadLateBatch(int n) {
    long count = Math.max(1, Math.round(data.records() * 0.01));
    long windowMillis = metric.window().toMillis();
    long windows = Math.max(1, data.eventTimeSpan().toMillis() / windowMillis);
    long touched = Math.max(1, Math.round(windows * 0.02));
    long stride = Math.max(1, (windows * 9 / 10) / touched);
    Instant arrival = data.sliceEnd(data.sliceCount() - 1).plusSeconds(120L + n);
    List<SyntheticEvents.Event> out = new ArrayList<>();
    for (long i = 0; i < count; i++) {
      long w = (i % touched) * stride;
      out.add(
          new SyntheticEvents.Event(
              "spread-" + n + "-" + i,
              SyntheticEvents.START.plusMillis(w * windowMillis + (i * 7919) % windowMillis),
              arrival,
              "dev_" + (i % SyntheticEvents.DEVICES),
              "spread",
              i,
              200 + (i * 37) % 2000));
    }
    return out;
  }
}

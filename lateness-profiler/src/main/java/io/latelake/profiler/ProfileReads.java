package io.latelake.profiler;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.latelake.core.event.BronzeRows;
import io.latelake.core.table.DeltaTables;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.time.DayRange;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * What the profile reads: the range's received copies from bronze, pruned by {@code ingest_date}
 * ({@link BronzeRows#ingestDateFrom}) and widened by the id horizon for the dedup, and silver's
 * watermark replayed over them ({@link WatermarkReplay}). Used by {@link ProfileJob}, the report
 * and the summary.
 */
public final class ProfileReads {
  private ProfileReads() {}

  /**
   * Received copies of the range ({@link LatenessStats#arrivals} schema), first arrivals told from
   * redeliveries over the id horizon: bronze is read from ingest date {@code from − 1 day −
   * dedupHorizon} on, so a copy that first arrived before the range makes its in-range copy a
   * redelivery; the rows returned are those with ingest date {@code >= from − 1 day} and an arrival
   * day in the range.
   *
   * @param dedupHorizon the id horizon ({@code lake.correction.dedup-horizon})
   * @throws io.latelake.core.table.MissingTableException (exit 2) when there is no bronze table
   */
  public static Dataset<Row> readArrivals(
      SparkSession spark, TableRegistry tables, DayRange range, Duration dedupHorizon) {
    String path = tables.bronzeEvents();
    io.latelake.core.table.MissingTableException.require(
        spark, "profile lateness", "bronze_events", path, "run `latelake bronze` first");
    Dataset<Row> bronze = readBronze(spark, tables, dedupFrom(range, dedupHorizon));
    return LatenessStats.arrivals(bronze)
        .filter(
            BronzeRows.ingestDateFrom(range.from())
                .and(col("arrival_day").geq(lit(java.sql.Date.valueOf(range.from()))))
                .and(col("arrival_day").leq(lit(java.sql.Date.valueOf(range.to())))));
  }

  /**
   * The first arrival day whose bronze partitions {@link #readArrivals} reads for the dedup: {@code
   * range.from()} minus the id horizon in whole days, rounded up ({@link BronzeRows#ingestDateFrom}
   * takes one day more).
   *
   * @param dedupHorizon the id horizon ({@code lake.correction.dedup-horizon})
   */
  public static java.time.LocalDate dedupFrom(DayRange range, Duration dedupHorizon) {
    long horizonDays = (dedupHorizon.toSeconds() + 86_399) / 86_400;
    return range.from().minusDays(horizonDays);
  }

  /**
   * @return bronze rows that can have arrived on {@code from} or later ({@link
   *     BronzeRows#ingestDateFrom}: older partitions are pruned)
   */
  private static Dataset<Row> readBronze(
      SparkSession spark, TableRegistry tables, java.time.LocalDate from) {
    return spark
        .read()
        .format("delta")
        .load(tables.bronzeEvents())
        .filter(BronzeRows.ingestDateFrom(from));
  }

  /**
   * Silver's watermark replayed over the range's bronze rows for its configured delay and the
   * candidates ({@link WatermarkReplay}), in silver's micro-batches as {@code
   * monitoring.stream_progress} recorded them.
   *
   * @return the rows of {@code monitoring.watermark_replay}, by delay
   */
  public static List<Row> replay(
      SparkSession spark,
      TableRegistry tables,
      DayRange range,
      ProfilerConfig cfg,
      Instant computedAt) {
    String query = TableRegistry.SILVER_QUERY;
    Dataset<Row> progress =
        DeltaTables.exists(spark, tables.streamProgress())
            ? spark.read().format("delta").load(tables.streamProgress())
            : null;
    // with auto, the delay silver's latest micro-batch ran with (else the fallback)
    Duration configured =
        cfg.silverAuto() && progress != null
            ? ReplayBatches.lastDelay(progress, query).orElse(cfg.silverDelay())
            : cfg.silverDelay();
    List<ReplayOutcome> outcomes =
        WatermarkReplay.replay(
            spark,
            WatermarkReplay.input(readBronze(spark, tables, range.from()), range),
            progress,
            query,
            cfg.sources(),
            cfg.replayDelays(configured),
            cfg.windows());
    // through a local DataFrame: rows that carry their schema (read by name)
    return spark
        .createDataFrame(
            ReplayOutcome.rows(
                query, range, outcomes, configured, cfg.targetDropShare(), computedAt),
            ReplayOutcome.SCHEMA)
        .collectAsList();
  }

  /**
   * The measured events of the range with their lateness: {@link #readArrivals} that are first
   * arrivals on a broker clock ({@link LatenessStats#measured}).
   *
   * @throws io.latelake.core.table.MissingTableException (exit 2) when there is no bronze table
   */
  public static Dataset<Row> readLateness(
      SparkSession spark, TableRegistry tables, DayRange range, Duration dedupHorizon) {
    return readArrivals(spark, tables, range, dedupHorizon).filter(LatenessStats.measured());
  }
}

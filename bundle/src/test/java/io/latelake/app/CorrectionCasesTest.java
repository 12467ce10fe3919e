package io.latelake.app;

import static io.latelake.app.LakeFixture.event;
import static io.latelake.app.LakeFixture.goldRows;
import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.core.job.JobContext;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.testing.SparkTestBase;
import io.latelake.core.time.DayRange;
import io.latelake.correction.audit.AuditJob;
import io.latelake.correction.correct.CorrectJob;
import io.latelake.correction.correct.CorrectResult;
import io.latelake.correction.rollup.RebuildJob;
import io.latelake.correction.shared.CorrectionConfig;
import io.latelake.correction.shared.RangeSpec;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Encoders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Case C02 (an event exactly at the watermark) and a duplicate whose copies arrive further apart
 * than the watermark, in one lake (cases' common settings: 10-minute watermark, 5-minute windows by
 * page, count and sum of value).
 *
 * <p>C02 as the correction path sees it: c02-b (12:10:00) is dropped because 12:10:00 ≤ the
 * watermark 12:10:00 (inclusive); its window [12:10, 12:15) is then still open (end 12:15 &gt;
 * watermark), so the stream may still update it and correct defers it — correcting it now would let
 * the next stream update overwrite the correction with a smaller value. Once the watermark passes
 * 12:15 the next run restates it to count 2, sum 6, the case's expected value.
 */
class CorrectionCasesTest extends SparkTestBase {
  @TempDir Path tmp;

  List<String> gold(LakeFixture f) {
    return spark
        .read()
        .format("delta")
        .load(f.root + "/gold/page_5m")
        .selectExpr(
            "concat_ws(' ', page, date_format(window_start, 'HH:mm'), events, value_sum, "
                + "corrected_at IS NOT NULL)")
        .as(Encoders.STRING())
        .collectAsList()
        .stream()
        .sorted()
        .toList();
  }

  @Test
  void c02EventAtTheWatermarkIsFoundAndADistantDuplicateCountsOnce() {
    LakeFixture f = new LakeFixture(tmp.resolve("c02"));
    CorrectionConfig config = CorrectionConfig.fromConfig(f.config);
    TableRegistry tables = TableRegistry.fromConfig(f.config);
    FastPath fast = new FastPath(spark, f.config);
    f.land(
        event("c02-a", "2024-05-14T12:20:00Z", "2024-05-14T12:20:01Z", "p", 1),
        event("dup-1", "2024-05-14T12:06:00Z", "2024-05-14T12:06:01Z", "q", 3));
    fast.step();
    // The second copy of dup-1 arrives 20 minutes after the first: beyond the watermark.
    f.land(
        event("c02-b", "2024-05-14T12:10:00Z", "2024-05-14T12:20:30Z", "p", 4),
        event("c02-c", "2024-05-14T12:10:01Z", "2024-05-14T12:20:31Z", "p", 2),
        event("dup-1", "2024-05-14T12:06:00Z", "2024-05-14T12:26:01Z", "q", 3));
    fast.step();
    assertThat(gold(f))
        .containsExactly("p 12:10 1 2 false", "p 12:20 1 1 false", "q 12:05 1 3 false");

    CorrectResult first =
        new CorrectJob(
                JobContext.start(spark, tables),
                new CorrectJob.Options(
                    config, config.metrics(), Optional.of(Instant.parse("2000-01-01T00:00:00Z"))))
            .run();

    // Watermark 12:10: [12:05, 12:10) is closed (its duplicate counted once, unchanged);
    // [12:10, 12:15) and [12:20, 12:25) are open and deferred.
    assertThat(first.metrics().get(0).watermark()).isEqualTo(Instant.parse("2024-05-14T12:10:00Z"));
    assertThat(first.metrics().get(0).closedWindows()).isEqualTo(1);
    assertThat(first.metrics().get(0).deferredWindows()).isEqualTo(2);
    assertThat(first.rowsChanged()).isZero();
    assertThat(gold(f))
        .containsExactly("p 12:10 1 2 false", "p 12:20 1 1 false", "q 12:05 1 3 false");

    f.land(event("later", "2024-05-14T12:40:00Z", "2024-05-14T12:40:01Z", "z", 1));
    fast.step();
    CorrectResult second =
        new CorrectJob(
                JobContext.start(spark, tables),
                new CorrectJob.Options(config, config.metrics(), Optional.empty()))
            .run();

    assertThat(second.metrics().get(0).watermark())
        .isEqualTo(Instant.parse("2024-05-14T12:30:00Z"));
    assertThat(second.metrics().get(0).closedWindows()).isEqualTo(2);
    assertThat(second.metrics().get(0).deferredWindows()).isEqualTo(1);
    assertThat(second.rowsChanged()).isEqualTo(1);
    assertThat(gold(f))
        .containsExactly(
            "p 12:10 2 6 true", "p 12:20 1 1 false", "q 12:05 1 3 false", "z 12:40 1 1 false");
    assertThat(goldRows(spark, f.root + "/gold/page_5m")).hasSize(4);
  }

  List<String> table(String path, String expr) {
    return LakeFixture.rows(spark, path, expr);
  }

  /**
   * C31: a retry re-stamped with a later event time passes the stream's dedup (the first copy's
   * state has expired) and is counted in a second window; once that window closes, the correction's
   * exact dedup sees the first copy (within the id horizon) and the window, whose correct content
   * is empty, loses its published row (deleted, logged).
   */
  @Test
  void c31ReStampedRetryIsRemovedOnceItsWindowClosesAndTheAuditFindsNothing() {
    LakeFixture f = new LakeFixture(tmp.resolve("c31"));
    CorrectionConfig config = CorrectionConfig.fromConfig(f.config);
    TableRegistry tables = TableRegistry.fromConfig(f.config);
    FastPath fast = new FastPath(spark, f.config);
    f.land(event("c31-x", "2024-05-14T12:01:00Z", "2024-05-14T12:01:01Z", "home", 5));
    fast.step();
    f.land(event("c31-y", "2024-05-14T12:30:00Z", "2024-05-14T12:30:01Z", "other", 1));
    fast.step();
    f.land(event("c31-x", "2024-05-14T12:25:00Z", "2024-05-14T12:31:00Z", "home", 5));
    fast.step();
    assertThat(gold(f))
        .containsExactly("home 12:00 1 5 false", "home 12:25 1 5 false", "other 12:30 1 1 false");

    CorrectResult first =
        new CorrectJob(
                JobContext.start(spark, tables),
                new CorrectJob.Options(
                    config, config.metrics(), Optional.of(Instant.parse("2000-01-01T00:00:00Z"))))
            .run();
    assertThat(first.metrics().get(0).deferredWindows()).isEqualTo(2);
    assertThat(first.rowsChanged()).isZero();

    f.land(event("c31-w", "2024-05-14T12:50:00Z", "2024-05-14T12:50:01Z", "zz", 1));
    fast.step();
    CorrectResult second =
        new CorrectJob(
                JobContext.start(spark, tables),
                new CorrectJob.Options(config, config.metrics(), Optional.empty()))
            .run();

    assertThat(second.metrics().get(0).watermark())
        .isEqualTo(Instant.parse("2024-05-14T12:40:00Z"));
    assertThat(second.rowsChanged()).isEqualTo(1);
    assertThat(gold(f))
        .containsExactly("home 12:00 1 5 false", "other 12:30 1 1 false", "zz 12:50 1 1 false");
    assertThat(
            table(
                f.root + "/monitoring/corrections_log",
                "concat_ws(' | ', "
                    + "date_format(window_start, 'HH:mm'), keys, reason, old_values, "
                    + "coalesce(new_values, '-'), corrected_at IS NOT NULL)"))
        .containsExactly(
            "12:25 | {\"page\":\"home\"} | DUPLICATE_REMOVED | "
                + "{\"events\":1,\"value_sum\":5} | - | true");

    AuditJob.Result audit =
        new AuditJob(
                JobContext.start(spark, tables),
                new RangeSpec(
                    config,
                    config.metrics(),
                    new DayRange(LocalDate.parse("2024-05-14"), LocalDate.parse("2024-05-14"))))
            .run();
    assertThat(audit.differences()).isZero();
    assertThat(audit.beyondTolerance()).isZero();
  }

  /**
   * C30: a retried export lands the same records again under another file name (same event ids,
   * same enqueued times). The stream drops them as late; correct and rebuild keep exactly one copy
   * of each.
   */
  @Test
  void c30RetriedExportWithIdenticalCopiesCountsEachEventOnce() {
    LakeFixture f = new LakeFixture(tmp.resolve("c30"));
    CorrectionConfig config = CorrectionConfig.fromConfig(f.config);
    TableRegistry tables = TableRegistry.fromConfig(f.config);
    FastPath fast = new FastPath(spark, f.config);
    String[] export1200 = {
      event("c30-r1", "2024-05-14T12:01:00Z", "2024-05-14T12:01:50Z", "home", 3),
      event("c30-r2", "2024-05-14T12:02:00Z", "2024-05-14T12:03:00Z", "home", 4),
      event("c30-r3", "2024-05-14T12:03:00Z", "2024-05-14T12:04:10Z", "cart", 5)
    };
    f.land(export1200);
    fast.step();
    f.land(event("c30-r4", "2024-05-14T12:30:00Z", "2024-05-14T12:30:01Z", "home", 1));
    fast.step();
    f.land(export1200);
    FastPath.Step retried = fast.step();
    assertThat(retried.droppedByWatermark()).isGreaterThanOrEqualTo(3);
    assertThat(spark.read().format("delta").load(tables.bronzeEvents()).count()).isEqualTo(7);

    new CorrectJob(
            JobContext.start(spark, tables),
            new CorrectJob.Options(
                config, config.metrics(), Optional.of(Instant.parse("2000-01-01T00:00:00Z"))))
        .run();
    assertThat(gold(f))
        .containsExactly("cart 12:00 1 5 false", "home 12:00 2 7 false", "home 12:30 1 1 false");
    new RebuildJob(
            JobContext.start(spark, tables),
            new RangeSpec(
                config,
                config.metrics(),
                new DayRange(LocalDate.parse("2024-05-14"), LocalDate.parse("2024-05-14"))))
        .run();
    assertThat(
            table(
                f.root + "/gold/daily_page_5m",
                "concat_ws(' ', event_date, page, events, value_sum)"))
        .containsExactly("2024-05-14 cart 1 5", "2024-05-14 home 3 8");
  }
}

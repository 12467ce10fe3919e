package io.latelake.app;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.core.job.JobContext;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.testing.HostileRecords;
import io.latelake.core.testing.HostileRecords.Fate;
import io.latelake.core.testing.HostileRecords.Record;
import io.latelake.core.testing.SparkTestBase;
import io.latelake.core.time.DayRange;
import io.latelake.correction.audit.AuditJob;
import io.latelake.correction.correct.CorrectJob;
import io.latelake.correction.shared.CorrectionConfig;
import io.latelake.correction.shared.RangeSpec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hostile input through bronze → silver → gold: a seeded corpus of many kinds of bad and odd
 * records, where every record is accounted for; and case C23 (a NULL page and an empty page are two
 * groups, each one gold row).
 */
class HostileInputTest extends SparkTestBase {
  private static final Logger LOG = LoggerFactory.getLogger(HostileInputTest.class);

  @TempDir Path tmp;

  @Test
  void everyHostileRecordIsKeptWithItsReasonAndNoValidOneVanishes() throws IOException {
    LakeFixture f = new LakeFixture(tmp.resolve("corpus"));
    FastPath fast = new FastPath(spark, f.config);
    List<List<Record>> steps =
        HostileRecords.generate(20261130L, 4, 300, Instant.parse("2024-05-14T10:00:00Z"));
    List<Record> all = steps.stream().flatMap(List::stream).toList();
    for (int k = 0; k < steps.size(); k++) {
      landBytes(f.landing, "corpus-" + k + ".jsonl", steps.get(k));
      fast.step();
    }

    // The corpus: 1,000+ records of 50+ kinds, each kind present.
    assertThat(HostileRecords.kinds()).hasSize(83);
    assertThat(all.stream().map(Record::kind).distinct().count()).isEqualTo(83);
    assertThat(all).hasSize(1239);

    // Bronze: one row per record sent, each with the reason its kind must get.
    Dataset<Row> bronze = spark.read().format("delta").load(f.root + "/bronze/events");
    List<String> actual = new ArrayList<>();
    for (Row r : bronze.select("payload", "payload_bytes", "error").collectAsList()) {
      String key = r.isNullAt(1) ? r.getString(0) : Record.key((byte[]) r.get(1));
      actual.add(key + " -> " + (r.isNullAt(2) ? "valid" : r.getString(2)));
    }
    List<String> expected =
        all.stream()
            .map(r -> r.key() + " -> " + (r.error() == null ? "valid" : r.error()))
            .toList();
    assertThat(actual).hasSize(all.size()).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(bronze.filter("error IS NOT NULL AND error_detail IS NULL").count()).isZero();
    assertThat(
            bronze
                .filter(
                    "error IS NULL AND (event_id IS NULL OR event_time IS NULL "
                        + "OR enqueued_time IS NULL OR error_detail IS NOT NULL)")
                .count())
        .isZero();
    Map<String, Long> byReason =
        new TreeMap<>(
            bronze.groupBy("error").count().collectAsList().stream()
                .collect(
                    Collectors.toMap(
                        r -> r.isNullAt(0) ? "valid" : r.getString(0), r -> r.getLong(1))));
    assertThat(byReason)
        .isEqualTo(
            Map.of(
                "valid", 507L,
                "MALFORMED", 288L,
                "MISSING_EVENT_ID", 52L,
                "INVALID_EVENT_ID", 59L,
                "MISSING_EVENT_TIME", 31L,
                "INVALID_EVENT_TIME", 82L,
                "EVENT_TIME_BEFORE_MIN", 41L,
                "FUTURE_EVENT_TIME", 30L,
                "INVALID_FIELD", 124L,
                "INVALID_ENQUEUED_TIME", 25L));

    // Silver: every valid row is in silver, removed as a duplicate, or dropped by the watermark
    // and counted in monitoring.stream_progress.
    long valid = byReason.get("valid");
    List<String> silverIds = ids(f.root + "/silver/events");
    List<String> expectedIds =
        all.stream().filter(r -> r.fate() == Fate.SILVER).map(Record::eventId).sorted().toList();
    assertThat(silverIds).isEqualTo(expectedIds);
    long silver = silverIds.size();
    long dropped = droppedByWatermark(f, "silver_events");
    Dataset<Row> validRows = bronze.filter("error IS NULL");
    Dataset<Row> silverRows = spark.read().format("delta").load(f.root + "/silver/events");
    long validInSilver =
        validRows.join(silverRows.select("event_id").distinct(), "event_id").count();
    long duplicates = validInSilver - silver;
    long vanished = valid - silver - duplicates - dropped;
    LOG.info(
        "Hostile corpus: {} records of {} kinds; bronze by reason {}; silver {}, duplicates "
            + "removed {}, dropped by the watermark {}, vanished {}",
        all.size(),
        HostileRecords.kinds().size(),
        byReason,
        silver,
        duplicates,
        dropped,
        vanished);
    assertThat(silver).isEqualTo(all.stream().filter(r -> r.fate() == Fate.SILVER).count());
    assertThat(duplicates).isEqualTo(all.stream().filter(r -> r.fate() == Fate.DUPLICATE).count());
    assertThat(dropped).isEqualTo(all.stream().filter(r -> r.fate() == Fate.WATERMARK).count());
    assertThat(vanished).isZero();
    assertThat(List.of(silver, duplicates, dropped)).containsExactly(453L, 35L, 19L);

    // Gold: every silver row counted once, its value summed; gold drops nothing.
    Row g =
        spark
            .read()
            .format("delta")
            .load(f.root + "/gold/page_5m")
            .selectExpr("sum(events)", "sum(value_sum)")
            .first();
    Row s = silverRows.selectExpr("count(*)", "sum(value)").first();
    assertThat(g.getLong(0)).isEqualTo(s.getLong(0));
    // a sum of a long field is exact DECIMAL(38,0) in gold
    assertThat(g.getDecimal(1).longValueExact()).isEqualTo(s.getLong(1));
    assertThat(droppedByWatermark(f, "gold_page_5m")).isZero();
  }

  @Test
  void c23NullAndEmptyPagesAreTwoGroupsWithOneGoldRowEach() {
    LakeFixture f = new LakeFixture(tmp.resolve("c23"));
    FastPath fast = new FastPath(spark, f.config);
    f.land(
        c23("c23-n1", "12:01:00", "12:01:01", "null", 5),
        c23("c23-h1", "12:02:00", "12:02:01", "\"home\"", 1));
    fast.step();
    f.land(
        c23("c23-n2", "12:03:00", "12:03:01", "null", 7),
        c23("c23-x1", "12:04:00", "12:04:01", "\"\"", 2));
    fast.step();
    assertThat(gold(f))
        .containsExactly("'' 12:00 1 2 false", "'home' 12:00 1 1 false", "NULL 12:00 2 12 false");
    f.land(c23("c23-z1", "12:30:00", "12:30:01", "\"home\"", 1));
    fast.step();
    f.land(c23("c23-n3", "12:04:30", "12:31:00", "null", 4));
    FastPath.Step late = fast.step();
    assertThat(late.silver().droppedByWatermark()).isEqualTo(1);

    CorrectionConfig config = CorrectionConfig.fromConfig(f.config);
    TableRegistry tables = TableRegistry.fromConfig(f.config);
    new CorrectJob(
            JobContext.start(spark, tables),
            new CorrectJob.Options(
                config, config.metrics(), Optional.of(Instant.parse("2000-01-01T00:00:00Z"))))
        .run();
    assertThat(gold(f))
        .containsExactly(
            "'' 12:00 1 2 false",
            "'home' 12:00 1 1 false",
            "'home' 12:30 1 1 false",
            "NULL 12:00 3 16 true");
    LocalDate day = LocalDate.parse("2024-05-14");
    AuditJob.Result audit =
        new AuditJob(
                JobContext.start(spark, tables),
                new RangeSpec(config, config.metrics(), new DayRange(day, day)))
            .run();
    assertThat(audit.differences()).isZero();
  }

  private static String c23(String id, String time, String enqueued, String page, int value) {
    return "{\"event_id\":\""
        + id
        + "\",\"event_time\":\"2024-05-14T"
        + time
        + "Z\",\"enqueued_time\":\"2024-05-14T"
        + enqueued
        + "Z\",\"page\":"
        + page
        + ",\"value\":"
        + value
        + "}";
  }

  /**
   * @return gold rows as "page window events value_sum corrected", page quoted or NULL
   */
  private List<String> gold(LakeFixture f) {
    return spark
        .read()
        .format("delta")
        .load(f.root + "/gold/page_5m")
        .selectExpr(
            "concat_ws(' ', coalesce(concat('''', page, ''''), 'NULL'), "
                + "date_format(window_start, 'HH:mm'), events, value_sum, corrected_at IS NOT NULL)")
        .as(Encoders.STRING())
        .collectAsList()
        .stream()
        .sorted()
        .toList();
  }

  private List<String> ids(String path) {
    return spark
        .read()
        .format("delta")
        .load(path)
        .select("event_id")
        .as(Encoders.STRING())
        .collectAsList()
        .stream()
        .sorted()
        .toList();
  }

  private long droppedByWatermark(LakeFixture f, String query) {
    return spark
        .read()
        .format("delta")
        .load(f.root + "/monitoring/stream_progress")
        .filter(col("query_name").equalTo(query))
        .selectExpr("coalesce(sum(rows_dropped_by_watermark), 0)")
        .first()
        .getLong(0);
  }

  /** Writes the records as one landing file, one a line, then renames it into place. */
  private static void landBytes(Path landing, String name, List<Record> records)
      throws IOException {
    Files.createDirectories(landing);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Record r : records) {
      out.write(r.bytes());
      out.write('\n');
    }
    Path part = landing.resolve("_" + name + ".tmp");
    Files.write(part, out.toByteArray());
    Files.move(part, landing.resolve(name), StandardCopyOption.ATOMIC_MOVE);
  }
}

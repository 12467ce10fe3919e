package io.latelake.core.streaming;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.tables.DeltaTable;
import io.latelake.core.table.DeltaTables;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exactly-once commits of a stream's micro-batches to a Delta table, without Delta rebuilding the
 * table's state for every micro-batch.
 *
 * <p><b>Why.</b> Delta's idempotent writes (its streaming sink, and the {@code txnAppId}/{@code
 * txnVersion} writer options) look up the last micro-batch the table records for the writer before
 * every commit. Delta 4.3 answers that from the table's reconstructed state ({@code
 * Snapshot.transactions}), a Spark job over the log's last checkpoint and commits, not from the
 * version checksum it writes after each commit (delta-io/delta pull request 6929, not in a release
 * yet): in the demo one such job per micro-batch and query, about a sixth of each stage's time.
 *
 * <p><b>The rule.</b> Only a micro-batch whose outcome this JVM does not know can be one the table
 * already holds: Spark reruns at most the last planned micro-batch of a checkpoint (its offsets
 * written, its commit not), and only when a query starts; within a run no micro-batch runs twice.
 * So each commit carries a marker in its {@code commitInfo.userMetadata}, {@code
 * {"latelake_writer":"<writer id>","micro_batch":<batch id>}} (seen in {@code DESCRIBE HISTORY}),
 * and {@link #before} decides:
 *
 * <ul>
 *   <li>the JVM settled the writer's previous micro-batch on this table ({@link #settled}: written,
 *       found written, or without rows): {@link Decision#WRITE}, with no look at the table;
 *   <li>it settled this one: {@link Decision#SKIP};
 *   <li>otherwise (the first micro-batch after a start or a failure) the newest marker of the
 *       writer in the table's history (its last 100 commits, then 1,000, then all) decides: {@link
 *       Decision#SKIP} when it records this micro-batch or a later one, else {@link
 *       Decision#WRITE};
 *   <li>and when no commit of the history carries the writer's marker (a table written before
 *       markers, by Delta's streaming sink or an idempotent write, or a new table): {@link
 *       Decision#WRITE_CHECKED_BY_DELTA}, a write with Delta's {@code txnAppId}/{@code txnVersion}
 *       (the same writer id and batch id), which Delta skips when it recorded them.
 * </ul>
 *
 * <p>The limit: a writer's newest marker must still be in the table's log when its query starts
 * again. A query that committed a micro-batch, stopped before its checkpoint recorded it (a crash),
 * and starts again after the table's log retention ({@code delta.logRetentionDuration}, 30 days)
 * while other writers committed to the table, finds no marker; Delta's identifiers then know only
 * the writer's first commit after each start, and that micro-batch is written twice (a WARN names
 * it). Only bronze with several sources and gold (corrections) have other writers.
 *
 * <p>A write that fails leaves the micro-batch unknown, so its rerun looks at the table. Several
 * queries may write one table (bronze's per-source queries, gold's corrections): each has its own
 * writer id, and the others' commits are skipped over in the history.
 */
public final class MicroBatchCommits {
  private static final Logger LOG = LoggerFactory.getLogger(MicroBatchCommits.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The key of a marker's writer id. */
  static final String WRITER_KEY = "latelake_writer";

  /** The key of a marker's micro-batch id. */
  static final String BATCH_KEY = "micro_batch";

  /** History pages read for a writer's newest marker, newest commits first; then all. */
  private static final List<Integer> PAGES = List.of(100, 1000);

  /** The last micro-batch this JVM settled per table and writer ({@link #key}). */
  private static final ConcurrentMap<String, Long> SETTLED = new ConcurrentHashMap<>();

  private MicroBatchCommits() {}

  /** What to do with one micro-batch. */
  public enum Decision {
    /** The table holds it: write nothing. */
    SKIP,
    /** The table does not hold it: write it with its marker. */
    WRITE,
    /** Unknown from markers: write it with its marker and Delta's txnAppId/txnVersion. */
    WRITE_CHECKED_BY_DELTA
  }

  /**
   * Decides how to write micro-batch {@code batchId} of {@code writer} to {@code path}, and forgets
   * what this JVM settled for them: until {@link #settled} is called again, the next call looks at
   * the table.
   *
   * @param spark the session that reads the table's history
   * @param path the Delta table
   * @param writer the writer id (a query's, unique per checkpoint)
   * @param batchId the micro-batch id
   * @return the decision
   */
  public static Decision before(SparkSession spark, String path, String writer, long batchId) {
    Long last = SETTLED.remove(key(path, writer));
    if (last != null && last == batchId - 1) {
      return Decision.WRITE;
    }
    if (last != null && last == batchId) {
      return Decision.SKIP;
    }
    Optional<Long> marked = lastMarked(spark, path, writer, batchId);
    if (marked.isEmpty()) {
      return Decision.WRITE_CHECKED_BY_DELTA;
    }
    if (marked.get() >= batchId) {
      LOG.info(
          "Micro-batch {} of {} is already committed to {} (its newest commit marks micro-batch"
              + " {}): not written again",
          batchId,
          writer,
          path,
          marked.get());
      return Decision.SKIP;
    }
    return Decision.WRITE;
  }

  /**
   * Records that {@code batchId} of {@code writer} is settled on {@code path}: committed, found
   * committed, or without rows to commit.
   */
  public static void settled(String path, String writer, long batchId) {
    SETTLED.put(key(path, writer), batchId);
  }

  /**
   * @return the marker of micro-batch {@code batchId} of {@code writer}, for the commit's {@code
   *     userMetadata}
   */
  public static String marker(String writer, long batchId) {
    return JSON.createObjectNode().put(WRITER_KEY, writer).put(BATCH_KEY, batchId).toString();
  }

  /**
   * @return the micro-batch id of the writer's newest marker in the table's history; empty when the
   *     table does not exist or none of its commits carries one
   */
  static Optional<Long> lastMarked(SparkSession spark, String path, String writer, long batchId) {
    if (!DeltaTables.exists(spark, path)) {
      return Optional.empty();
    }
    String needle;
    try {
      needle = "\"" + WRITER_KEY + "\":" + JSON.writeValueAsString(writer);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e); // a plain string always serializes
    }
    DeltaTable table = DeltaTable.forPath(spark, path);
    for (int page = 0; page <= PAGES.size(); page++) {
      boolean all = page == PAGES.size();
      var history =
          (all ? table.history() : table.history(PAGES.get(page)))
              .select("version", "userMetadata");
      // a page's rows are few: read whole, newest first; the whole history only its marked rows
      List<Row> rows =
          (all ? history.where(functions.col("userMetadata").contains(needle)) : history)
              .orderBy(functions.col("version").desc())
              .collectAsList();
      for (Row r : rows) {
        if (!r.isNullAt(1) && r.getString(1).contains(needle)) {
          Optional<Long> batch = batchOf(r.getString(1), writer);
          if (batch.isPresent()) {
            return batch;
          }
        }
      }
      if (!all && rows.size() < PAGES.get(page)) {
        return Optional.empty(); // the page held the whole history
      }
    }
    long earliest =
        table
            .history()
            .agg(functions.min("version"))
            .as(org.apache.spark.sql.Encoders.LONG())
            .first();
    if (earliest > 0) {
      LOG.warn(
          "No commit kept in the log of {} (versions {} on) carries the marker of {}: its"
              + " micro-batch {} is written with Delta's txnAppId/txnVersion, which record this"
              + " writer's first commit after each start only. Had the query committed micro-batch"
              + " {} and stopped before its checkpoint recorded it, longer ago than the table keeps"
              + " its log (delta.logRetentionDuration), that micro-batch is now in the table twice.",
          path,
          earliest,
          writer,
          batchId,
          batchId);
    }
    return Optional.empty();
  }

  /** The marker's micro-batch id when {@code userMetadata} is the writer's marker. */
  private static Optional<Long> batchOf(String userMetadata, String writer) {
    try {
      JsonNode n = JSON.readTree(userMetadata);
      if (n != null
          && n.path(WRITER_KEY).isTextual()
          && n.path(WRITER_KEY).asText().equals(writer)
          && n.path(BATCH_KEY).canConvertToLong()) {
        return Optional.of(n.path(BATCH_KEY).asLong());
      }
    } catch (JsonProcessingException e) {
      // someone else's metadata, not JSON
    }
    return Optional.empty();
  }

  /**
   * Forgets what this JVM settled: the next micro-batch of every writer is looked up in its table,
   * as in a new JVM (tests of a restart).
   */
  public static void forgetAll() {
    SETTLED.clear();
  }

  private static String key(String path, String writer) {
    return path + '\u0000' + writer;
  }
}

package io.latelake.core.streaming;

import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps {@code monitoring.stream_progress} in few files for {@link ProgressWriter}, on its writer
 * thread.
 *
 * <p>Each append writes one small file (one-second micro-batches of three queries make up to
 * 259,200 a day), and every reader of the table lists and opens them. So after every {@value
 * #COMPACT_EVERY} appends the writer thread compacts the table's files smaller than {@value
 * #SMALL_FILE_BYTES} bytes into one (Delta's {@code OPTIMIZE}, with its {@code
 * spark.databricks.delta.optimize.minFileSize} set in a session of its own, not the application's).
 * The bound keeps the rewriting small: a compacted file is rewritten with the next small files only
 * until it reaches the bound, then left alone (Delta's default bound, 1 GB, would rewrite the
 * growing file on every compaction). A compaction changes no row; one that fails (e.g. two
 * processes compacting at once: Delta lets one commit) is logged (INFO, WARN from the third in a
 * row) and left to the next. The files it replaced stay in storage until a {@code VACUUM} of the
 * table; readers do not list them.
 */
final class ProgressCompaction {
  private static final Logger LOG = LoggerFactory.getLogger(ProgressCompaction.class);

  /** Appends by one writer between two compactions (class comment). */
  static final int COMPACT_EVERY = 200;

  /** Files smaller than this (bytes) are compacted (class comment). */
  static final long SMALL_FILE_BYTES = 1L << 20;

  private final SparkSession spark;
  private final String tablePath;
  private final int compactEvery;
  private final long smallFileBytes;

  /** Appends since the last compaction. */
  private int appends;

  /** The compactions' session (made at the first). */
  private SparkSession session;

  /** Compactions that failed since the last one that ran. */
  private int failed;

  /**
   * @param compactEvery appends between two compactions (0: none)
   * @param smallFileBytes files smaller than this are compacted
   */
  ProgressCompaction(SparkSession spark, String tablePath, int compactEvery, long smallFileBytes) {
    this.spark = spark;
    this.tablePath = tablePath;
    this.compactEvery = compactEvery;
    this.smallFileBytes = smallFileBytes;
  }

  /** Counts one append to the table. */
  void appended() {
    appends++;
  }

  /** Compacts when {@code compactEvery} appends were counted since the last compaction. */
  void compactWhenDue() {
    if (compactEvery > 0 && appends >= compactEvery) {
      compact();
    }
  }

  /** Compacts the table's small files into one; never fails the writer. */
  private void compact() {
    appends = 0;
    try {
      if (session == null) {
        // a session of its own, with the application session's runtime settings (e.g. storage
        // credentials given to a session that already existed) and the bound
        session = spark.newSession();
        for (var e :
            scala.jdk.javaapi.CollectionConverters.asJava(spark.conf().getAll()).entrySet()) {
          if (spark.conf().isModifiable(e.getKey())) {
            session.conf().set(e.getKey(), e.getValue());
          }
        }
        session
            .conf()
            .set("spark.databricks.delta.optimize.minFileSize", String.valueOf(smallFileBytes));
      }
      io.delta.tables.DeltaTable.forPath(session, tablePath).optimize().executeCompaction();
      failed = 0;
      LOG.debug("Compacted the small files of {}", tablePath);
    } catch (Exception e) { // Spark's job failures are checked exceptions thrown undeclared
      failed++;
      String message =
          "Compaction of {} skipped ({} in a row), the next one follows in {} appends: {}";
      if (failed >= 3) {
        LOG.warn(message, tablePath, failed, compactEvery, e.toString());
      } else {
        LOG.info(message, tablePath, failed, compactEvery, e.toString());
      }
    }
  }
}

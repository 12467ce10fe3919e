package io.latelake.bench;

import static org.apache.spark.sql.functions.col;

import io.latelake.core.table.TableRegistry;
import io.latelake.silver.SilverConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.DoubleSupplier;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Silver's dedup state in the dedup group: the state-store providers it runs on, a lake of its own
 * for silver on RocksDB, the state rows silver reports after its last micro-batch and their bound.
 */
final class DedupState {
  /** Spark's default state store (Spark 4.1): versioned maps in memory, snapshots and deltas. */
  static final String HDFS_STATE_STORE =
      "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider";

  /** Spark's RocksDB state store: state in RocksDB on local disk, changelog checkpoints. */
  static final String ROCKSDB_STATE_STORE =
      "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider";

  private static final String STATE_STORE_KEY = "spark.sql.streaming.stateStore.providerClass";

  private final SparkSession spark;
  private final SyntheticEvents data;

  DedupState(SparkSession spark, SyntheticEvents data) {
    this.spark = spark;
    this.data = data;
  }

  /**
   * A lake for silver on the RocksDB state store: its {@code bronze/events} is a symbolic link to
   * the lock-step lake's bronze table (the bench is local only), everything else its own.
   */
  static TableRegistry rocksDbLake(Path root, TableRegistry t) {
    Path lake = root.resolve("rocksdb-lake");
    TableRegistry rocks = new TableRegistry(lake.toString());
    try {
      Path link = Path.of(rocks.bronzeEvents());
      Files.createDirectories(link.getParent());
      Files.createDirectories(Path.of(t.bronzeEvents()));
      Files.createSymbolicLink(link, Path.of(t.bronzeEvents()));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot link the RocksDB lake's bronze table", e);
    }
    return rocks;
  }

  /**
   * Runs {@code work} with {@code spark.sql.streaming.stateStore.providerClass} set to {@code
   * provider}, then restores the session's setting. The provider is recorded in a query's
   * checkpoint at its first start and kept on restarts, so each provider needs its own checkpoint.
   */
  double withStateStore(String provider, DoubleSupplier work) {
    String before = spark.conf().get(STATE_STORE_KEY, HDFS_STATE_STORE);
    spark.conf().set(STATE_STORE_KEY, provider);
    try {
      return work.getAsDouble();
    } finally {
      spark.conf().set(STATE_STORE_KEY, before);
    }
  }

  /** State rows of silver's dedup after its last micro-batch. */
  double silverStateRows(TableRegistry t) {
    Row last =
        spark
            .read()
            .format("delta")
            .load(t.streamProgress())
            .filter(col("query_name").equalTo(SilverConfig.QUERY_NAME))
            .orderBy(col("recorded_at").desc(), col("batch_id").desc())
            .first();
    return last.isNullAt(last.fieldIndex("state_rows"))
        ? 0
        : last.getLong(last.fieldIndex("state_rows"));
  }

  /** 1.3 × rate × (2·delay + trigger), trigger = event time per micro-batch, in rows. */
  double stateBound(Duration delay) {
    double spanS = data.eventTimeSpan().toMillis() / 1000.0;
    double rate = data.records() / spanS;
    double trigger = spanS / data.sliceCount();
    return 1.3 * rate * (2 * delay.toMillis() / 1000.0 + trigger);
  }
}

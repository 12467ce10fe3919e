package io.latelake.core.spark;

import com.typesafe.config.Config;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.config.Secrets;
import io.latelake.core.config.Settings;
import io.latelake.core.config.SparkConfOptions;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.SparkSession;

/**
 * Builds the SparkSession every job uses. It never sets a master or cluster sizing: {@code
 * spark-submit} (or the local launcher through {@code -Dspark.master}) decides. It adds Delta
 * Lake's SQL extension and catalog, UTC as session time zone, and the configured shuffle
 * partitions, the {@link #CODEGEN_DEFAULTS} (and with a local master the {@link
 * #LOCAL_FS_DEFAULTS}) unless Spark's configuration (spark-submit's {@code --conf}, {@code
 * spark-defaults.conf}, {@code -Dspark.*}) sets them, then the settings under {@code
 * lake.spark.conf} (validated by {@link SparkConfOptions}; never logged by latelake unmasked), and
 * last Spark's redaction settings widened to latelake's masking rule ({@link
 * Secrets#sparkRedactionRegex}, {@link Secrets#sparkStringRedactionRegex}), so that Spark's event
 * log, web UI and History Server mask every secret latelake masks.
 */
public final class SparkSessions {
  /**
   * Two Spark settings that let a process reuse the classes Spark generates for its queries, set
   * when the session is created (both can only be set then).
   *
   * <ul>
   *   <li>{@code spark.sql.artifact.isolation.enabled=false}: Spark 4 gives each session that has
   *       artifact isolation its own class loader on the executors, and every streaming query runs
   *       in a clone of its session; generated classes are cached per class loader, so each query
   *       start (each run of a scheduled or lock-step stream) compiled all of its classes again.
   *       latelake adds no session artifacts (jars come with spark-submit, for the whole
   *       application), so isolation only cost compile time. PySpark turns it off by default too.
   *   <li>{@code spark.sql.codegen.cache.maxEntries=1000} (Spark's default: 100): the bronze,
   *       silver and gold queries, the gold MERGE and Delta's own jobs need more than 100 classes
   *       between two micro-batches of the same query, so with 100 the least recently used were
   *       evicted and compiled again in every micro-batch.
   * </ul>
   *
   * Measured on a lock step of the fast path (bronze, silver, gold on 3 new events per step, {@code
   * local[2]}, 2 cores): 8.1 s per step and about 180 class compilations per step with Spark's
   * defaults, 5.1 s and 12 compilations with these (the 12 are code whose constants change with
   * each micro-batch, such as the watermark).
   */
  public static final Map<String, String> CODEGEN_DEFAULTS =
      Map.of(
          "spark.sql.artifact.isolation.enabled", "false",
          "spark.sql.codegen.cache.maxEntries", "1000");

  /**
   * With a local master ({@code local}, {@code local[N]}, {@code local[*]}, {@code local[N,F]}) on
   * a file system with POSIX permissions: {@code file:} paths through {@link NioLocalFileSystem}
   * and {@link NioLocalFs}, Hadoop's local file system without a process per created file and per
   * rename (see {@link NioLocalFileSystem}). Measured on QuietSourceTest's 16 lock steps (bronze,
   * silver, gold; 2 cores): with Hadoop's classes 8,805 processes started by them (6,624 {@code
   * readlink}, 2,181 {@code chmod}) and 194.4 s; with these none and 111.7 s. Set only when Spark's
   * configuration does not name them (e.g. {@code --conf
   * spark.hadoop.fs.file.impl=org.apache.hadoop.fs.LocalFileSystem} and {@code --conf
   * spark.hadoop.fs.AbstractFileSystem.file.impl=org.apache.hadoop.fs.local.LocalFs} give Hadoop's
   * back); never for a cluster master, whose executors load classes before the application's jar.
   */
  public static final Map<String, String> LOCAL_FS_DEFAULTS =
      Map.of(
          "spark.hadoop.fs.file.impl", NioLocalFileSystem.class.getName(),
          "spark.hadoop.fs.AbstractFileSystem.file.impl", NioLocalFs.class.getName());

  /** Spark's ANSI SQL mode, which latelake requires (true, Spark 4's default). */
  static final String ANSI_KEY = "spark.sql.ansi.enabled";

  /** Spark's regex for secrets inside texts (plans, command lines). */
  static final String STRING_REDACTION_KEY = "spark.redaction.string.regex";

  private SparkSessions() {}

  /**
   * @return {@code lake.spark.shuffle-partitions}
   * @throws LakeConfigException (exit 2) unless it is a whole number from 1 to 100,000
   */
  public static int shufflePartitions(Config config) {
    return Settings.of(config).intBetween("lake.spark.shuffle-partitions", 1, 100_000);
  }

  /**
   * @param appName Spark application name
   * @param config the effective config
   * @return a new or the active session
   * @throws LakeConfigException (exit 2) when {@code spark.sql.ansi.enabled} is set to anything but
   *     true (by {@code lake.spark.conf} or spark-submit's {@code --conf})
   */
  public static SparkSession create(String appName, Config config) {
    int partitions = shufflePartitions(config);
    KernelLogs.quiet();
    SparkSession.Builder builder =
        SparkSession.builder()
            .appName(appName)
            .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
            .config(
                "spark.sql.catalog.spark_catalog",
                "org.apache.spark.sql.delta.catalog.DeltaCatalog")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.shuffle.partitions", partitions)
            .config("spark.sql.streaming.stateStore.stateSchemaCheck", "true");
    SparkConf given = new SparkConf();
    for (var e : CODEGEN_DEFAULTS.entrySet()) {
      if (!given.contains(e.getKey())) {
        builder = builder.config(e.getKey(), e.getValue());
      }
    }
    if (isLocalMaster(given.get("spark.master", ""))
        && java.nio.file.FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      for (var e : LOCAL_FS_DEFAULTS.entrySet()) {
        if (!given.contains(e.getKey())) {
          builder = builder.config(e.getKey(), e.getValue());
        }
      }
    }
    Map<String, String> lakeConf = SparkConfOptions.fromConfig(config);
    String ansi = lakeConf.getOrDefault(ANSI_KEY, given.get(ANSI_KEY, "true")).trim();
    if (!ansi.equalsIgnoreCase("true")) {
      throw LakeConfigException.invalid(
          ANSI_KEY,
          ansi,
          "latelake needs Spark's ANSI mode (its default): without it an overflowing sum or cast "
              + "gives a wrong number or NULL instead of an error, and a published number could be "
              + "wrong without anyone knowing (sums of whole numbers are exact DECIMAL(38,0) and "
              + "need no ANSI exception); remove the setting");
    }
    for (var e : lakeConf.entrySet()) {
      builder = builder.config(e.getKey(), e.getValue());
    }
    // Spark masks what latelake masks (applied last: they widen any regex set above).
    builder =
        builder.config(
            Secrets.SPARK_REDACTION_KEY,
            Secrets.fromConfig(config)
                .sparkRedactionRegex(given.get(Secrets.SPARK_REDACTION_KEY, null)));
    Optional<String> values =
        Secrets.sparkStringRedactionRegex(
            lakeConf.getOrDefault(STRING_REDACTION_KEY, given.get(STRING_REDACTION_KEY, null)));
    if (values.isPresent()) {
      builder = builder.config(STRING_REDACTION_KEY, values.get());
    }
    SparkSession spark = builder.getOrCreate();
    // Spark's own default may come from SPARK_ANSI_SQL_MODE, or the session may exist already
    String effective = spark.conf().get(ANSI_KEY, "true").trim();
    if (!effective.equalsIgnoreCase("true")) {
      throw LakeConfigException.invalid(
          ANSI_KEY,
          effective,
          "latelake needs Spark's ANSI mode (its default): without it an overflowing sum or cast "
              + "gives a wrong number or NULL instead of an error, and a published number could be "
              + "wrong without anyone knowing; unset SPARK_ANSI_SQL_MODE or the setting");
    }
    return spark;
  }

  /**
   * @param master Spark's master URL
   * @return whether it runs every task in this JVM ({@code local}, {@code local[...]}; not {@code
   *     local-cluster[...]})
   */
  static boolean isLocalMaster(String master) {
    return master.equals("local") || master.startsWith("local[");
  }

  /**
   * Stops {@code spark}, first closing the state stores its streams left loaded in this JVM when
   * none of its streams is still active. Spark's state store maintenance thread otherwise keeps
   * running past the stop and, on its next tick, logs a WARN with a stack trace per store because
   * the driver's state store coordinator is gone (local mode, where the stores live in the driver's
   * JVM; executors on a cluster end with their own JVMs).
   */
  public static void stop(SparkSession spark) {
    if (spark.streams().active().length == 0) {
      // Spark's own shutdown of its state stores (internal API, public in the bytecode)
      org.apache.spark.sql.execution.streaming.state.StateStore$.MODULE$.stop();
    }
    spark.stop();
  }
}

package io.latelake.core.catalog;

import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registration of the tables a job creates, for jobs with {@code lake.catalog.enabled} ({@link
 * io.latelake.core.cli.JobCommand} runs it): {@link CatalogRegister#forJob} — every latelake table
 * under {@code lake.root} by name, and the {@code <metric>_status} views (replaced when a
 * monitoring table they read has appeared) — at three points:
 *
 * <ol>
 *   <li>{@link #start}, before the job's work: what exists already; a name registered at another
 *       location fails here (exit 2) before anything is read or written;
 *   <li>when each streaming query starts (a {@link StreamingQueryListener}; Spark calls {@code
 *       onQueryStarted} before the query's first micro-batch): the tables the stream just created,
 *       so a long-running stream's tables have their names while it runs;
 *   <li>{@link #register} after the job's run: what a batch job created.
 * </ol>
 *
 * <p>Each point registers only what is missing (idempotent); nothing is registered when the
 * session's catalog lives in memory (it would be gone when the job ends).
 */
public final class JobCatalog implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(JobCatalog.class);

  private final SparkSession spark;
  private final CatalogConfig config;
  private final StreamingQueryListener listener =
      new StreamingQueryListener() {
        @Override
        public void onQueryStarted(QueryStartedEvent event) {
          // The query runs on; the next point (or `catalog register`) registers what this missed.
          try {
            register();
          } catch (RuntimeException e) {
            LOG.warn(
                "Cannot register the lake's tables as query {} starts: {}",
                event.name(),
                e.getMessage());
          }
        }

        @Override
        public void onQueryProgress(QueryProgressEvent event) {}

        @Override
        public void onQueryTerminated(QueryTerminatedEvent event) {}
      };

  private JobCatalog(SparkSession spark, CatalogConfig config) {
    this.spark = spark;
    this.config = config;
  }

  /**
   * Registers what exists and starts registering at each query's start.
   *
   * @return the registration, empty when {@code lake.catalog.enabled} is false or the session's
   *     catalog is in memory ({@code spark.sql.catalogImplementation=in-memory})
   * @throws CatalogException (exit 2) when a name is registered at another location
   */
  public static Optional<JobCatalog> start(SparkSession spark, CatalogConfig config) {
    if (!config.registeredByJobs()) {
      return Optional.empty();
    }
    String impl = spark.sparkContext().conf().get("spark.sql.catalogImplementation", "in-memory");
    if (impl.equals("in-memory")) {
      LOG.info(
          "Tables are not registered by name: the session's catalog is in memory "
              + "(spark.sql.catalogImplementation=in-memory)");
      return Optional.empty();
    }
    JobCatalog c = new JobCatalog(spark, config);
    c.register();
    spark.streams().addListener(c.listener);
    return Optional.of(c);
  }

  /**
   * Registers every table and view not yet registered.
   *
   * @return what was registered
   */
  public CatalogRegister.Result register() {
    return CatalogRegister.forJob(spark, config).run();
  }

  /** Stops registering at query starts. */
  @Override
  public void close() {
    spark.streams().removeListener(listener);
  }
}

package io.latelake.correction;

import io.latelake.core.job.JobContext;
import io.latelake.core.metric.MetricSpec;
import io.latelake.core.table.TableRegistry;
import java.sql.Timestamp;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A batch action of the correction path, in the manner of Iceberg's Spark actions: built from the
 * run's {@link JobContext} and its typed options, one {@link #run()} that returns an immutable
 * result. Each step runs under a Spark job description ({@code <run id>: <step>}), so the Spark UI
 * shows which step a job belongs to.
 *
 * @param <O> the validated options
 * @param <R> the result record
 */
public abstract class CorrectionAction<O, R> {
  private static final Logger LOG = LoggerFactory.getLogger(CorrectionAction.class);

  protected final JobContext context;
  protected final SparkSession spark;
  protected final TableRegistry registry;
  protected final CorrectionTables tables;
  protected final CorrectionConfig config;
  protected final O options;
  private final String runId;

  /**
   * @param action the action's name, e.g. {@code correct}: the prefix of its run id
   * @param options the action's validated options
   * @param config the correction config (part of the options)
   */
  protected CorrectionAction(
      String action, JobContext context, O options, CorrectionConfig config) {
    this.options = options;
    this.context = context;
    this.spark = context.spark();
    this.registry = context.tables();
    this.tables = new CorrectionTables(context.tables());
    this.config = config;
    this.runId = context.runId(action);
  }

  /**
   * Runs the action once.
   *
   * @throws io.latelake.core.config.LakeConfigException (exit 2) when an input table is missing or
   *     an option does not fit the tables, before anything is written
   * @throws io.latelake.core.LatelakeException (exit 1) when a commit keeps conflicting
   */
  public abstract R run();

  /**
   * @return this run's id, {@code <action>-<start>-<suffix>} ({@link JobContext#runId})
   */
  public final String runId() {
    return runId;
  }

  /**
   * @return the run's start (UTC, microseconds) as a Spark timestamp
   */
  protected final Timestamp startedAt() {
    return Timestamp.from(context.startedAt());
  }

  /**
   * Runs {@code body} with the Spark job description {@code <run id>: <description>} and logs its
   * wall-clock time at DEBUG.
   */
  protected final <T> T step(String description, Supplier<T> body) {
    SparkContext sc = spark.sparkContext();
    String previous = sc.getLocalProperty("spark.job.description");
    sc.setJobDescription(runId + ": " + description);
    long start = System.nanoTime();
    try {
      return body.get();
    } finally {
      sc.setJobDescription(previous);
      LOG.debug("{}: {} took {} ms", runId, description, (System.nanoTime() - start) / 1_000_000);
    }
  }

  /** As {@link #step(String, Supplier)}, for a step without a value. */
  protected final void perform(String description, Runnable body) {
    step(
        description,
        () -> {
          body.run();
          return null;
        });
  }

  /**
   * @throws io.latelake.core.config.LakeConfigException (exit 2) when a gold table is missing
   */
  protected final void requireGold(String action, List<MetricSpec> metrics) {
    for (MetricSpec m : metrics) {
      LakeReads.requireTable(
          spark, action, "gold." + m.name(), registry.gold(m.name()), "run `latelake gold` first");
    }
  }

  /**
   * @throws io.latelake.core.config.LakeConfigException (exit 2) when bronze is missing
   */
  protected final void requireBronze(String action) {
    LakeReads.requireTable(
        spark, action, "bronze_events", registry.bronzeEvents(), "run `latelake bronze` first");
  }
}

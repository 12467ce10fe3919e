package io.latelake.core.streaming;

import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;

/**
 * One stream of a {@link StreamingJob}: where it reads, how it transforms, where and how it writes.
 * A plan does nothing by itself; {@link StreamingJob#starts()} runs its steps.
 *
 * @param queryName the query's name, also its checkpoint folder under {@code _checkpoints}
 * @param source builds the input stream; it may check its input first and throw {@link
 *     io.latelake.core.config.LakeConfigException} (see {@link StreamingJob#lakeTable})
 * @param transform a pure function from input rows to output rows (the job's package-private
 *     transform, which tests call on small static Datasets)
 * @param outputPath the output Delta table, created when missing
 * @param sink how micro-batches reach the output table
 * @param trigger the query's trigger
 * @param restartOn the source's known failures after which the query is restarted on its checkpoint
 *     ({@link RestartableFailure}); empty for most sources
 */
public record StreamPlan(
    String queryName,
    Supplier<Dataset<Row>> source,
    UnaryOperator<Dataset<Row>> transform,
    String outputPath,
    Sink sink,
    TriggerSpec trigger,
    List<RestartableFailure> restartOn) {

  /** A plan whose source has no restartable failure. */
  public StreamPlan(
      String queryName,
      Supplier<Dataset<Row>> source,
      UnaryOperator<Dataset<Row>> transform,
      String outputPath,
      Sink sink,
      TriggerSpec trigger) {
    this(queryName, source, transform, outputPath, sink, trigger, List.of());
  }

  /** How a stream writes its output table. */
  public sealed interface Sink {
    /**
     * @return the schema of the output table for the transform's output schema
     */
    StructType tableSchema(StructType output);
  }

  /**
   * Append output mode into the Delta table, exactly once per micro-batch with the checkpoint
   * ({@link AppendRows}).
   *
   * @param partitionBy partition columns of the table (may be empty)
   * @param options Delta writer options of the append, e.g. {@code mergeSchema=true}
   * @param ownRows for a table that several queries append to (bronze: one query per source), the
   *     rows this query writes; the checkpoint guard then asks whether the table holds such rows,
   *     not whether it has any commits, so a new source's first start is allowed ({@link
   *     CheckpointGuard})
   * @param emptyCommits false ({@link #withoutEmptyCommits}) for a stateful stream: Spark runs a
   *     no-data micro-batch after one that moved the watermark (it evicts state and records the new
   *     watermark in the checkpoint, which a restart starts from); its micro-batches are computed
   *     once (persisted, their rows counted: the stateful plan runs as in a sink) and only one with
   *     rows is appended. True for a stream whose every micro-batch has rows (bronze: one row per
   *     record), written without the count. Either way the stream writes through {@code
   *     foreachBatch} ({@link AppendRows}), exactly once by {@link MicroBatchCommits}
   */
  public record Append(
      List<String> partitionBy,
      Map<String, String> options,
      Optional<Column> ownRows,
      boolean emptyCommits)
      implements Sink {
    /** Append, no partitions, no options. */
    public Append() {
      this(List.of(), Map.of());
    }

    /** Append to a table only this query writes. */
    public Append(List<String> partitionBy, Map<String, String> options) {
      this(partitionBy, options, Optional.empty());
    }

    /** Append, each micro-batch written without counting its rows first. */
    public Append(List<String> partitionBy, Map<String, String> options, Optional<Column> ownRows) {
      this(partitionBy, options, ownRows, true);
    }

    /**
     * @return this sink without a table version for a micro-batch without rows ({@code
     *     emptyCommits} above)
     */
    public Append withoutEmptyCommits() {
      return new Append(partitionBy, options, ownRows, false);
    }

    @Override
    public StructType tableSchema(StructType output) {
      return output;
    }
  }

  /**
   * Update output mode; each micro-batch goes to {@code merge} ({@code foreachBatch}), which MERGEs
   * it into the table.
   *
   * @param schema the table's schema for the transform's output schema
   * @param tableProperties properties of the table when it is created
   * @param merge writes one micro-batch (called with the batch id)
   */
  public record Merge(
      UnaryOperator<StructType> schema, Map<String, String> tableProperties, BatchMerge merge)
      implements Sink {
    @Override
    public StructType tableSchema(StructType output) {
      return schema.apply(output);
    }
  }

  /** Writes one micro-batch of a {@link Merge} sink. */
  @FunctionalInterface
  public interface BatchMerge extends Serializable {
    void merge(Dataset<Row> batch, long batchId);
  }
}

package io.latelake.core;

/**
 * Base of latelake's errors: a small catalogue of named classes, each with one exit code that a
 * launcher returns and one wording for its messages. A test or a scheduler matches the class or the
 * exit code, never the text.
 *
 * <table>
 *   <caption>The catalogue</caption>
 *   <tr><th>class</th><th>exit</th><th>raised when</th></tr>
 *   <tr><td>{@link io.latelake.core.config.LakeConfigException}</td><td>2</td><td>a config key or
 *       command option has a value latelake refuses, or one that contradicts what the lake
 *       records (a changed metric, a checkpoint built for other listed sources): "Invalid value
 *       '&lt;v&gt;' for key '&lt;key&gt;': &lt;why&gt;" ({@code option} for a command option)</td>
 *   </tr>
 *   <tr><td>{@link io.latelake.core.table.MissingTableException}</td><td>2</td><td>a table the
 *       command reads does not exist yet: "Cannot &lt;action&gt;: table &lt;t&gt; does not exist
 *       at &lt;path&gt; (lake.root); &lt;remedy&gt;"</td></tr>
 *   <tr><td>{@link io.latelake.core.streaming.CheckpointException}</td><td>2</td><td>a stream's
 *       checkpoint does not fit its output table (the table has data, the checkpoint has none):
 *       restarting would read the input again</td></tr>
 *   <tr><td>{@link io.latelake.core.catalog.CatalogException}</td><td>2</td><td>a table's name is
 *       registered in the catalog at another path</td></tr>
 *   <tr><td>{@code io.latelake.analyst.RefusedSqlException}</td><td>2</td><td>the analysts' SQL
 *       sandbox refused or could not parse a statement, a file or a notebook</td></tr>
 *   <tr><td>{@link io.latelake.core.streaming.StreamFailedException}</td><td>1</td><td>a streaming
 *       query could not start or failed: "Stream &lt;query&gt; failed: &lt;cause&gt;"</td></tr>
 *   <tr><td>{@link io.latelake.core.table.StorageException}</td><td>1</td><td>a Delta commit or
 *       write (after its retries), a checkpoint file operation or a send to Kafka failed: "Cannot
 *       &lt;what&gt;: &lt;cause&gt;"</td></tr>
 * </table>
 *
 * <p>Exit code 3 (an audit or alert beyond tolerance) is a result, not an error; 143 is a command
 * stopped by SIGTERM (a stream after its running micro-batch, a batch command with its Spark jobs
 * cancelled).
 */
public abstract class LatelakeException extends RuntimeException {
  private final ExitCode exitCode;

  protected LatelakeException(String message, ExitCode exitCode) {
    super(message);
    this.exitCode = exitCode;
  }

  protected LatelakeException(String message, ExitCode exitCode, Throwable cause) {
    super(message, cause);
    this.exitCode = exitCode;
  }

  /**
   * @return the exit code for this failure
   */
  public ExitCode exitCode() {
    return exitCode;
  }
}

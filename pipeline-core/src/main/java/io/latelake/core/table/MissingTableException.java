package io.latelake.core.table;

import io.latelake.core.config.LakeConfigException;
import org.apache.spark.sql.SparkSession;

/**
 * A command needs a table of the lake that does not exist yet (exit 2, a usage error: another
 * command has to run first). One wording for every command: "Cannot &lt;action&gt;: table
 * &lt;table&gt; does not exist at &lt;path&gt; (lake.root); &lt;remedy&gt;", e.g. "Cannot start
 * silver stream: table bronze_events does not exist at /lake/bronze/events (lake.root); run
 * `latelake bronze` first".
 */
public final class MissingTableException extends LakeConfigException {
  private final String table;
  private final String path;

  /**
   * @param action what the command could not do, e.g. {@code run correct}
   * @param table the table's name, e.g. {@code bronze_events}
   * @param path where it was looked for
   * @param remedy what to do, e.g. {@code run `latelake bronze` first}
   */
  public MissingTableException(String action, String table, String path, String remedy) {
    super(
        "Cannot "
            + action
            + ": table "
            + table
            + " does not exist at "
            + path
            + " (lake.root); "
            + remedy);
    this.table = table;
    this.path = path;
  }

  /**
   * @throws MissingTableException when no Delta table exists at {@code path}
   */
  public static void require(
      SparkSession spark, String action, String table, String path, String remedy) {
    if (!DeltaTables.exists(spark, path)) {
      throw new MissingTableException(action, table, path, remedy);
    }
  }

  /**
   * @return the missing table's name
   */
  public String table() {
    return table;
  }

  /**
   * @return where it was looked for
   */
  public String path() {
    return path;
  }
}

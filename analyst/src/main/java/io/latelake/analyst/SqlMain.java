package io.latelake.analyst;

import com.typesafe.config.Config;
import io.latelake.core.ExitCode;
import io.latelake.core.catalog.CatalogConfig;
import io.latelake.core.cli.Launcher;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.job.JobContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code latelake sql}: runs SQL statements against the catalog (tables and views registered by
 * {@code latelake catalog register}) and prints each result: an aligned table (default), CSV or
 * JSON lines. Statements come from the argument, from {@code -f FILE} or from standard input,
 * separated by semicolons. Read-only unless {@code --allow-writes}: every statement is checked
 * ({@link ReadOnlyGuard}: no write, no session change, only Spark's built-in functions without
 * reflection and file access, reads of catalog tables and of Delta tables under {@code lake.root})
 * before the first one runs, and each query's analyzed plan again before it runs. Time travel is
 * Delta's SQL: {@code SELECT * FROM latelake_gold.page_views_5m TIMESTAMP AS OF '2024-05-14
 * 10:00:00'} or {@code VERSION AS OF 3}. spark-submit entry point: {@code --class
 * io.latelake.analyst.SqlMain}. Exit codes: 0 ok, 1 runtime failure, 2 bad usage (a statement the
 * guard refuses without --allow-writes, a statement that does not parse, a missing table or
 * column).
 */
@Command(
    name = "sql",
    mixinStandardHelpOptions = true,
    description = "Run SQL against the latelake catalog (read-only unless --allow-writes).")
public final class SqlMain extends AnalystCommand<List<String>> {
  private static final Logger LOG = LoggerFactory.getLogger(SqlMain.class);

  @Parameters(
      arity = "0..1",
      paramLabel = "SQL",
      description = "Statements (default: -f FILE, else standard input).")
  String text;

  @Option(
      names = {"-f", "--file"},
      paramLabel = "FILE",
      description = "Read statements from FILE.")
  Path file;

  @Option(
      names = "--format",
      defaultValue = "table",
      paramLabel = "FORMAT",
      description = "table | csv | json (JSON lines). Default: ${DEFAULT-VALUE}.")
  String format;

  @Option(
      names = "--max-rows",
      defaultValue = "1000",
      paramLabel = "N",
      description = "Rows printed per statement. Default: ${DEFAULT-VALUE}.")
  int maxRows;

  @Option(
      names = "--allow-writes",
      description =
          "Lift the read-only guard: writes, session changes (SET, ADD JAR), any function, any"
              + " path.")
  boolean allowWrites;

  @Spec CommandSpec spec;

  /** Standard input, replaceable by tests. */
  InputStream stdin = System.in;

  public static void main(String[] args) {
    System.exit(Launcher.execute(new SqlMain(), args));
  }

  @Override
  String appName() {
    return "latelake-sql";
  }

  @Override
  List<String> prepare(Config config) {
    CatalogConfig.fromConfig(config);
    format = format.toLowerCase(Locale.ROOT);
    if (!List.of("table", "csv", "json").contains(format)) {
      throw LakeConfigException.invalid("--format", format, "expected table, csv or json");
    }
    if (maxRows < 1 || maxRows > 10_000_000) {
      throw LakeConfigException.invalid("--max-rows", maxRows, "must be between 1 and 10000000");
    }
    if (text != null && file != null) {
      throw new LakeConfigException("Invalid options: give SQL text or -f FILE, not both");
    }
    String sql;
    try {
      sql =
          text != null
              ? text
              : file != null
                  ? Files.readString(file)
                  : new String(stdin.readAllBytes(), StandardCharsets.UTF_8);
    } catch (java.nio.file.NoSuchFileException e) {
      throw LakeConfigException.invalid("--file", file, "no such file");
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the statements", e);
    }
    List<String> statements = Statements.split(sql);
    if (statements.isEmpty()) {
      throw new LakeConfigException("No SQL statement given (argument, -f FILE or standard input)");
    }
    return statements;
  }

  @Override
  ExitCode run(JobContext context, Config config, List<String> statements) {
    PrintWriter out = spec.commandLine().getOut();
    Optional<ReadOnlyGuard> guard =
        allowWrites
            ? Optional.empty()
            : Optional.of(ReadOnlyGuard.forLake(context.spark(), context.tables().root()));
    return execute(context, statements, guard, format, maxRows, out).exitCode();
  }

  /**
   * Checks every statement, then runs them in order and prints each result ({@link SqlAction}).
   *
   * @param guard the read-only guard; empty with {@code --allow-writes}
   * @return how many statements ran
   * @throws RefusedSqlException (exit 2) for a refused or unparsable statement, or one naming a
   *     missing table or column
   */
  static SqlAction.Result execute(
      JobContext context,
      List<String> statements,
      Optional<ReadOnlyGuard> guard,
      String format,
      int maxRows,
      PrintWriter out) {
    return new SqlAction(context, new SqlAction.Options(statements, guard, format, maxRows, out))
        .run();
  }

  /** Added to a missing table's error: the lake's tables are known by name once registered. */
  static final String NOT_REGISTERED_HINT =
      "The lake's tables and views are known by name once `latelake catalog register` has run"
          + " (again after a job created new tables; jobs register their own only with"
          + " lake.catalog.jobs-register = true).";

  /**
   * @param guard checks the analyzed plan before the result is computed (Spark runs a query only
   *     when its rows are asked for; SHOW and DESCRIBE run at once and call no function)
   * @return the statement's result
   * @throws RefusedSqlException (exit 2) when Spark's analysis rejects it (missing table, column)
   *     or the guard refuses its analyzed plan; a missing table's message ends with {@link
   *     #NOT_REGISTERED_HINT}
   */
  static Dataset<Row> run(
      SparkSession spark, String statement, String label, Optional<ReadOnlyGuard> guard) {
    LOG.debug("Running {}: {}", label, statement);
    Dataset<Row> df = sql(spark, statement, label);
    guard.ifPresent(g -> g.checkAnalyzed(df.queryExecution().analyzed(), label));
    return df;
  }

  private static Dataset<Row> sql(SparkSession spark, String statement, String label) {
    try {
      return spark.sql(statement);
    } catch (Exception e) {
      if (e instanceof AnalysisException a) {
        String hint =
            "TABLE_OR_VIEW_NOT_FOUND".equals(a.getCondition()) ? " " + NOT_REGISTERED_HINT : "";
        throw new RefusedSqlException(
            "Cannot run " + label + ": " + a.getSimpleMessage() + hint, e);
      }
      throw e;
    }
  }

  static String label(int i, int n) {
    return n == 1 ? "the statement" : "statement " + (i + 1);
  }

  static void print(Dataset<Row> df, String format, int maxRows, PrintWriter out) {
    if (format.equals("json")) {
      List<String> lines = df.limit(maxRows).toJSON().collectAsList();
      lines.forEach(out::println);
      return;
    }
    ResultTable t = ResultTable.of(df, maxRows);
    if (format.equals("csv")) {
      try {
        CSVPrinter csv =
            new CSVPrinter(out, CSVFormat.RFC4180.builder().setRecordSeparator('\n').get());
        csv.printRecord(t.columns());
        for (List<String> r : t.rows()) {
          csv.printRecord(r);
        }
        csv.flush();
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot write CSV", e);
      }
      return;
    }
    out.print(aligned(t));
  }

  /**
   * @return the result as an aligned text table with a row count line
   */
  public static String aligned(ResultTable t) {
    int n = t.columns().size();
    int[] width = new int[n];
    for (int c = 0; c < n; c++) {
      width[c] = t.columns().get(c).length();
      for (List<String> r : t.rows()) {
        width[c] = Math.max(width[c], cell(r.get(c)).length());
      }
    }
    StringBuilder sb = new StringBuilder();
    line(sb, t.columns(), width);
    StringBuilder rule = new StringBuilder();
    for (int c = 0; c < n; c++) {
      rule.append(c == 0 ? "" : "-+-").append("-".repeat(width[c]));
    }
    sb.append(rule).append('\n');
    for (List<String> r : t.rows()) {
      line(sb, r, width);
    }
    sb.append('(')
        .append(t.rows().size())
        .append(t.rows().size() == 1 ? " row" : " rows")
        .append(t.truncated() ? ", more not shown" : "")
        .append(")\n");
    return sb.toString();
  }

  private static void line(StringBuilder sb, List<String> values, int[] width) {
    StringBuilder line = new StringBuilder();
    for (int c = 0; c < values.size(); c++) {
      String v = cell(values.get(c));
      line.append(c == 0 ? "" : " | ").append(v).append(" ".repeat(width[c] - v.length()));
    }
    sb.append(line.toString().stripTrailing()).append('\n');
  }

  private static String cell(String v) {
    return v == null ? "NULL" : v;
  }
}

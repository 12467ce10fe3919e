package io.latelake.analyst;

import io.latelake.core.job.ActionResult;
import io.latelake.core.job.BatchAction;
import io.latelake.core.job.JobContext;
import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * {@code latelake sql}'s work as a batch action: every statement is checked first (with a guard:
 * its parsed plan; else that it parses), then each runs and its result is printed, in order. Each
 * statement runs under the Spark job description {@code sql-<start>-<suffix>: statement i of n}
 * ({@code the statement} when there is one). With a guard, each query's analyzed plan is checked
 * before it runs, so the statements before one refused there have run.
 */
final class SqlAction extends BatchAction<SqlAction.Options, SqlAction.Result> {
  /**
   * @param statements the statements, split ({@link Statements#split})
   * @param guard the read-only guard; empty with {@code --allow-writes}
   * @param format table, csv or json
   * @param maxRows rows printed per statement
   * @param out where results are printed
   */
  record Options(
      List<String> statements,
      Optional<ReadOnlyGuard> guard,
      String format,
      int maxRows,
      PrintWriter out) {}

  /**
   * @param statements statements run, each result printed
   */
  record Result(int statements) implements ActionResult {
    @Override
    public String summary() {
      return "sql: " + statements + (statements == 1 ? " statement" : " statements") + " run";
    }
  }

  SqlAction(JobContext context, Options options) {
    super("sql", context, options);
  }

  /**
   * @throws RefusedSqlException (exit 2) for a refused or unparsable statement, or one naming a
   *     missing table or column
   */
  @Override
  public Result run() {
    List<String> statements = options.statements();
    int n = statements.size();
    perform(
        n == 1 ? "check the statement" : "check " + n + " statements",
        () -> {
          for (int i = 0; i < n; i++) {
            String label = SqlMain.label(i, n);
            if (options.guard().isPresent()) {
              options.guard().get().check(statements.get(i), label);
            } else {
              ReadOnlyGuard.parse(spark, statements.get(i), label);
            }
          }
        });
    for (int i = 0; i < n; i++) {
      String label = SqlMain.label(i, n);
      String statement = statements.get(i);
      perform(
          n == 1 ? "the statement" : "statement " + (i + 1) + " of " + n,
          () -> {
            Dataset<Row> df = SqlMain.run(spark, statement, label, options.guard());
            SqlMain.print(df, options.format(), options.maxRows(), options.out());
            options.out().flush();
          });
    }
    return new Result(n);
  }
}

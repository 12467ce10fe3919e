package io.latelake.analyst;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.commonmark.parser.Parser;
import org.commonmark.renderer.html.HtmlRenderer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link Notebook}'s cells in order against the session's catalog and renders a
 * self-contained HTML page: markdown rendered (commonmark), each SQL cell with its text, the result
 * of its last statement as a table, its row count and time. A SQL cell is read-only: each statement
 * passes the {@link ReadOnlyGuard} on its parsed plan (after its parameters are bound) and on its
 * analyzed plan before it runs, as {@code latelake sql} without {@code --allow-writes}. A failing
 * or refused cell is shown with its error and the run goes on with the next cell.
 */
public final class NotebookRunner {
  private static final Logger LOG = LoggerFactory.getLogger(NotebookRunner.class);

  private final SparkSession spark;
  private final int maxRows;
  private final ReadOnlyGuard guard;

  /**
   * A runner whose cells read catalog tables only ({@link ReadOnlyGuard#catalogOnly}).
   *
   * @param maxRows rows shown per cell
   */
  public NotebookRunner(SparkSession spark, int maxRows) {
    this(spark, maxRows, ReadOnlyGuard.catalogOnly(spark));
  }

  /**
   * @param maxRows rows shown per cell
   * @param guard what a cell may do ({@link ReadOnlyGuard#forLake} for {@code latelake notebook
   *     run})
   */
  public NotebookRunner(SparkSession spark, int maxRows, ReadOnlyGuard guard) {
    this.spark = spark;
    this.maxRows = maxRows;
    this.guard = guard;
  }

  /**
   * @param cell the cell
   * @param result the last statement's result (SQL cells that ran)
   * @param millis wall-clock time of the cell, ms
   * @param error the error message of a failed cell
   */
  public record CellResult(
      Notebook.Cell cell, Optional<ResultTable> result, long millis, Optional<String> error) {}

  /**
   * @param notebook the notebook
   * @param parameters the values used ({@code --param} over the declared defaults)
   * @param cells one result per cell, in order
   */
  public record Result(Notebook notebook, Map<String, String> parameters, List<CellResult> cells) {
    /**
     * @return the number of failed cells
     */
    public long failed() {
      return cells.stream().filter(c -> c.error().isPresent()).count();
    }

    /**
     * @return the results of the SQL cells that ran, in order
     */
    public List<ResultTable> tables() {
      return cells.stream().flatMap(c -> c.result().stream()).toList();
    }
  }

  /**
   * @param given parameter values ({@code --param key=value})
   * @throws io.latelake.core.config.LakeConfigException (exit 2) when a given parameter is not
   *     declared by the notebook
   */
  public Result run(Notebook notebook, Map<String, String> given) {
    Map<String, String> params = new LinkedHashMap<>(notebook.parameters());
    for (Map.Entry<String, String> e : given.entrySet()) {
      if (!params.containsKey(e.getKey())) {
        throw new io.latelake.core.config.LakeConfigException(
            "Invalid value '"
                + e.getKey()
                + "="
                + e.getValue()
                + "' for option '--param': notebook "
                + notebook.name()
                + " declares "
                + (params.isEmpty() ? "no parameters" : "only " + params.keySet()));
      }
      params.put(e.getKey(), e.getValue());
    }
    List<CellResult> out = new ArrayList<>();
    // a caller's description (a batch action's step) stays in front of each cell's
    String outer = spark.sparkContext().getLocalProperty("spark.job.description");
    int index = 0;
    for (Notebook.Cell cell : notebook.cells()) {
      index++;
      if (cell.kind() != Notebook.Kind.SQL) {
        out.add(new CellResult(cell, Optional.empty(), 0, Optional.empty()));
        continue;
      }
      long start = System.nanoTime();
      spark
          .sparkContext()
          .setJobDescription(
              (outer == null ? "" : outer + ", ") + notebook.name() + " cell " + index);
      try {
        ResultTable last = null;
        List<String> statements = Statements.split(cell.text());
        for (int i = 0; i < statements.size(); i++) {
          String label = "cell " + index + " statement " + (i + 1);
          String bound = Statements.bind(statements.get(i), params);
          guard.check(bound, label);
          Dataset<Row> df = spark.sql(bound);
          guard.checkAnalyzed(df.queryExecution().analyzed(), label);
          last = ResultTable.of(df, maxRows);
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        out.add(new CellResult(cell, Optional.ofNullable(last), ms, Optional.empty()));
        LOG.info(
            "{} cell {}: {} rows in {} ms",
            notebook.name(),
            index,
            last == null ? 0 : last.rows().size(),
            ms);
      } catch (Exception e) {
        long ms = (System.nanoTime() - start) / 1_000_000;
        String message =
            e instanceof org.apache.spark.sql.AnalysisException a
                ? a.getSimpleMessage()
                : String.valueOf(e.getMessage());
        LOG.warn("{} cell {} failed: {}", notebook.name(), index, message);
        out.add(new CellResult(cell, Optional.empty(), ms, Optional.of(message)));
      } finally {
        spark.sparkContext().setJobDescription(outer);
      }
    }
    return new Result(notebook, params, out);
  }

  /**
   * @return the run as a self-contained HTML page
   */
  public static String html(Result r) {
    Parser parser = Parser.builder().build();
    HtmlRenderer renderer = HtmlRenderer.builder().escapeHtml(true).build();
    StringBuilder h = new StringBuilder();
    h.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>")
        .append(esc(r.notebook().name()))
        .append("</title><style>")
        .append("body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}")
        .append("pre{background:#f4f4f4;padding:.6em;overflow-x:auto}")
        .append("table{border-collapse:collapse;font-size:.9em;margin:.5em 0}")
        .append("td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}")
        .append("th{background:#eee}.meta{color:#666;font-size:.85em}")
        .append(".error{background:#fdd;border:1px solid #c00;padding:.6em;white-space:pre-wrap}")
        .append(".null{color:#999}</style></head><body>\n");
    h.append("<p class=\"meta\">latelake notebook <b>")
        .append(esc(r.notebook().name()))
        .append("</b>");
    if (!r.parameters().isEmpty()) {
      h.append(" — parameters: ");
      List<String> ps = new ArrayList<>();
      r.parameters().forEach((k, v) -> ps.add(esc(k) + " = <code>" + esc(v) + "</code>"));
      h.append(String.join(", ", ps));
    }
    h.append(" — ")
        .append(r.failed() == 0 ? "all cells ran" : r.failed() + " cell(s) failed")
        .append("</p>\n");
    int index = 0;
    for (CellResult c : r.cells()) {
      index++;
      if (c.cell().kind() == Notebook.Kind.MARKDOWN) {
        h.append(renderer.render(parser.parse(c.cell().text()))).append('\n');
        continue;
      }
      h.append("<pre>").append(esc(c.cell().text())).append("</pre>\n");
      if (c.cell().kind() == Notebook.Kind.WIDGETS) {
        continue;
      }
      if (c.error().isPresent()) {
        h.append("<div class=\"error\">Cell ")
            .append(index)
            .append(" failed: ")
            .append(esc(c.error().get()))
            .append("</div>\n");
      } else if (c.result().isPresent()) {
        ResultTable t = c.result().get();
        h.append("<table><tr>");
        t.columns().forEach(col -> h.append("<th>").append(esc(col)).append("</th>"));
        h.append("</tr>\n");
        for (List<String> row : t.rows()) {
          h.append("<tr>");
          for (String v : row) {
            h.append(v == null ? "<td class=\"null\">NULL</td>" : "<td>" + esc(v) + "</td>");
          }
          h.append("</tr>\n");
        }
        h.append("</table>\n");
      }
      h.append("<p class=\"meta\">cell ")
          .append(index)
          .append(": ")
          .append(
              c.result()
                  .map(
                      t ->
                          t.rows().size()
                              + (t.truncated()
                                  ? "+ rows (first " + t.rows().size() + " shown)"
                                  : t.rows().size() == 1 ? " row" : " rows"))
                  .orElse(c.error().isPresent() ? "failed" : "no result"))
          .append(", ")
          .append(c.millis())
          .append(" ms</p>\n");
    }
    h.append("</body></html>\n");
    return h.toString();
  }

  private static String esc(String s) {
    return s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}

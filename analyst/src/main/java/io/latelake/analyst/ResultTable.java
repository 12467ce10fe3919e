package io.latelake.analyst;

import static org.apache.spark.sql.functions.col;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The result of one statement as text: column names and rows of values formatted by Spark ({@code
 * CAST(... AS STRING)} in the session time zone, UTC), null for SQL NULL.
 *
 * @param columns column names
 * @param rows up to the row limit
 * @param truncated true when the result had more rows than the limit
 */
public record ResultTable(List<String> columns, List<List<String>> rows, boolean truncated) {

  /**
   * @return at most {@code limit} rows of {@code df}
   */
  public static ResultTable of(Dataset<Row> df, int limit) {
    String[] names = df.columns();
    Column[] asText = new Column[names.length];
    for (int i = 0; i < names.length; i++) {
      asText[i] = col("`" + names[i].replace("`", "``") + "`").cast("string");
    }
    Dataset<Row> text = df.select(asText);
    List<Row> taken = text.limit(limit + 1).collectAsList();
    List<List<String>> rows = new ArrayList<>();
    for (int r = 0; r < Math.min(limit, taken.size()); r++) {
      List<String> values = new ArrayList<>();
      for (int c = 0; c < names.length; c++) {
        values.add(taken.get(r).isNullAt(c) ? null : taken.get(r).getString(c));
      }
      rows.add(values);
    }
    return new ResultTable(Arrays.asList(names), rows, taken.size() > limit);
  }

  /**
   * @return the rows as "v1 v2 ..." lines (NULL for null), for logs and tests
   */
  public List<String> lines() {
    return rows.stream()
        .map(r -> String.join(" ", r.stream().map(v -> v == null ? "NULL" : v).toList()))
        .toList();
  }
}

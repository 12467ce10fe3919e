package io.latelake.analyst;

import io.latelake.core.catalog.Sql;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Splits SQL text into statements at semicolons outside string literals, quoted identifiers and
 * comments. Only a lexical split: each statement is then parsed by Spark on its own, so a piece
 * that still holds two statements fails to parse and is refused.
 */
public final class Statements {
  private Statements() {}

  /**
   * @return the statements, trimmed, without empty or comment-only ones
   */
  public static List<String> split(String sql) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    boolean hasCode = false;
    int i = 0;
    int n = sql.length();
    while (i < n) {
      char c = sql.charAt(i);
      if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
        int end = sql.indexOf('\n', i);
        end = end < 0 ? n : end;
        cur.append(sql, i, end);
        i = end;
      } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
        int end = sql.indexOf("*/", i + 2);
        end = end < 0 ? n : end + 2;
        cur.append(sql, i, end);
        i = end;
      } else if (c == '\'' || c == '"' || c == '`') {
        int j = i + 1;
        while (j < n && sql.charAt(j) != c) {
          j += sql.charAt(j) == '\\' && c != '`' ? 2 : 1;
        }
        j = Math.min(j + 1, n);
        cur.append(sql, i, j);
        hasCode = true;
        i = j;
      } else if (c == ';') {
        add(out, cur, hasCode);
        cur.setLength(0);
        hasCode = false;
        i++;
      } else {
        cur.append(c);
        hasCode |= !Character.isWhitespace(c);
        i++;
      }
    }
    add(out, cur, hasCode);
    return out;
  }

  private static void add(List<String> out, StringBuilder cur, boolean hasCode) {
    if (hasCode) {
      out.add(cur.toString().trim());
    }
  }

  /**
   * Binds named parameter markers {@code :name} outside string literals, quoted identifiers and
   * comments to the given values, each written as a SQL string literal (quoted, backslashes and
   * quotes escaped), so a value can never become SQL. Markers without a value are left as they are
   * ({@code ::} casts too). Used instead of {@code spark.sql(text, args)} because Delta's SQL
   * parser does not pass Spark 4.1's parameter context on.
   *
   * @return the statement with the markers replaced
   */
  public static String bind(String sql, Map<String, String> values) {
    StringBuilder out = new StringBuilder();
    int i = 0;
    int n = sql.length();
    while (i < n) {
      char c = sql.charAt(i);
      int end;
      if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
        end = sql.indexOf('\n', i);
        end = end < 0 ? n : end;
      } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
        end = sql.indexOf("*/", i + 2);
        end = end < 0 ? n : end + 2;
      } else if (c == '\'' || c == '"' || c == '`') {
        end = i + 1;
        while (end < n && sql.charAt(end) != c) {
          end += sql.charAt(end) == '\\' && c != '`' ? 2 : 1;
        }
        end = Math.min(end + 1, n);
      } else if (c == ':'
          && (i == 0 || !isPart(sql.charAt(i - 1)) && sql.charAt(i - 1) != ':')
          && i + 1 < n
          && Character.isLetter(sql.charAt(i + 1))) {
        end = i + 1;
        while (end < n && isPart(sql.charAt(end))) {
          end++;
        }
        String name = sql.substring(i + 1, end);
        if (values.containsKey(name)) {
          out.append(Sql.literal(values.get(name)));
          i = end;
          continue;
        }
      } else {
        end = i + 1;
      }
      out.append(sql, i, end);
      i = end;
    }
    return out.toString();
  }

  private static boolean isPart(char c) {
    return Character.isLetterOrDigit(c) || c == '_';
  }
}

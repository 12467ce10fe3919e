package io.latelake.analyst;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits SQL text into statements at semicolons outside string literals, quoted identifiers and
 * comments. Only a lexical split: each statement is then parsed by Spark on its own, so a piece
 * that still holds two statements fails to parse and is refused.
 */
public final class Statements {
  private Statements() {}

  /** @return the statements, trimmed, without empty or comment-only ones */
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
}

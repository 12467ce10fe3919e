package io.latelake.analyst;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A SQL notebook in Databricks source format: the first line {@code -- Databricks notebook source},
 * cells separated by lines {@code -- COMMAND ----------}, markdown cells written as {@code -- MAGIC
 * %md} followed by {@code -- MAGIC <text>} lines. Parameters are Databricks widgets: a cell of
 * {@code CREATE WIDGET TEXT name DEFAULT 'value'} statements declares them, and queries refer to
 * them as named parameter markers {@code :name}, each bound as a quoted and escaped SQL string
 * literal ({@link Statements#bind}).
 *
 * @param name file name without {@code .sql}
 * @param cells the cells in order
 * @param parameters declared parameters and their defaults, in order
 */
public record Notebook(String name, List<Cell> cells, Map<String, String> parameters) {
  public static final String HEADER = "-- Databricks notebook source";
  private static final String SEPARATOR = "-- COMMAND ----------";
  private static final String MAGIC = "-- MAGIC";
  private static final Pattern WIDGET =
      Pattern.compile(
          "(?is)CREATE\\s+WIDGET\\s+TEXT\\s+([a-z_][a-z0-9_]*)\\s+DEFAULT\\s+'([^'\\\\]*)'");

  /** A cell's kind. */
  public enum Kind {
    MARKDOWN,
    SQL,
    WIDGETS
  }

  /**
   * @param kind markdown, SQL or widget declarations
   * @param text markdown text (without the MAGIC prefixes) or SQL text
   */
  public record Cell(Kind kind, String text) {}

  /**
   * @param name the notebook's name
   * @param source the file's text
   * @throws RefusedSqlException (exit 2) when the header is missing or a widget cell holds anything
   *     but widget declarations
   */
  public static Notebook parse(String name, String source) {
    String[] lines = source.replace("\r\n", "\n").split("\n", -1);
    if (lines.length == 0 || !lines[0].strip().equals(HEADER)) {
      throw new RefusedSqlException(
          "Cannot read notebook " + name + ": the first line must be '" + HEADER + "'");
    }
    List<List<String>> raw = new ArrayList<>();
    raw.add(new ArrayList<>());
    for (int i = 1; i < lines.length; i++) {
      if (lines[i].strip().equals(SEPARATOR)) {
        raw.add(new ArrayList<>());
      } else {
        raw.get(raw.size() - 1).add(lines[i]);
      }
    }
    List<Cell> cells = new ArrayList<>();
    Map<String, String> params = new LinkedHashMap<>();
    for (List<String> cellLines : raw) {
      String text = String.join("\n", cellLines).strip();
      if (text.isEmpty()) {
        continue;
      }
      if (text.startsWith(MAGIC + " %md")) {
        StringBuilder md = new StringBuilder();
        for (String l : cellLines) {
          String s = l.strip();
          if (s.startsWith(MAGIC)) {
            String rest = s.substring(MAGIC.length());
            rest = rest.startsWith(" ") ? rest.substring(1) : rest;
            if (!rest.strip().equals("%md")) {
              md.append(rest).append('\n');
            }
          }
        }
        cells.add(new Cell(Kind.MARKDOWN, md.toString().strip()));
      } else if (text.toUpperCase(java.util.Locale.ROOT).startsWith("CREATE WIDGET")) {
        for (String st : Statements.split(text)) {
          Matcher m = WIDGET.matcher(st);
          if (!m.matches()) {
            throw new RefusedSqlException(
                "Cannot read notebook "
                    + name
                    + ": expected CREATE "
                    + "WIDGET TEXT <name> DEFAULT '<value>', got: "
                    + st);
          }
          params.put(m.group(1).toLowerCase(java.util.Locale.ROOT), m.group(2));
        }
        cells.add(new Cell(Kind.WIDGETS, text));
      } else {
        cells.add(new Cell(Kind.SQL, text));
      }
    }
    return new Notebook(name, List.copyOf(cells), java.util.Collections.unmodifiableMap(params));
  }
}

package io.latelake.core.catalog;

import java.util.regex.Pattern;

/** Quoting of identifiers and literals for the SQL latelake generates (catalog, notebooks). */
public final class Sql {
  private static final Pattern IDENT = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private Sql() {}

  /**
   * @return the name in backticks
   * @throws IllegalArgumentException when it is not a plain identifier
   */
  public static String ident(String name) {
    if (!IDENT.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "Invalid identifier '" + name + "': expected letters, digits and underscores");
    }
    return "`" + name + "`";
  }

  /**
   * @return a single-quoted SQL string literal
   */
  public static String literal(String value) {
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }
}

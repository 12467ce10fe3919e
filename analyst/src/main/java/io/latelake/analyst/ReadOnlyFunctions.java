package io.latelake.analyst;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry;
import org.apache.spark.sql.catalyst.analysis.TableFunctionRegistry;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.UserDefinedExpression;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The functions read-only SQL may call: Spark's built-in functions ({@code
 * FunctionRegistry.builtin}: scalar, aggregate, window and generator functions) and built-in table
 * functions ({@code TableFunctionRegistry.builtin}), called by their plain name, minus {@link
 * #DENIED}. Refused, naming the function:
 *
 * <ul>
 *   <li>the built-ins of {@link #DENIED}: reflection ({@code reflect}, {@code java_method}, {@code
 *       try_reflect} call a Java method the query names, e.g. {@code FileUtil.chmod} or {@code
 *       System.exit}) and file access ({@code from_protobuf} / {@code to_protobuf} read a
 *       descriptor file or load a class by name; {@code from_xml} / {@code schema_of_xml} open the
 *       file of their {@code rowValidationXSDPath} option; {@code from_avro} / {@code to_avro} /
 *       {@code schema_of_avro} that of their {@code avroSchemaUrl} option) and network access (the
 *       nine {@code xpath*} functions: their XML parser loads an external DTD from any URL); of the
 *       table functions, {@link #DENIED_TABLE} ({@code python_worker_logs});
 *   <li>every other name: temporary functions, persistent (Hive or catalog) functions and UDFs run
 *       code Spark does not ship, and the table functions extensions add (Delta's {@code
 *       table_changes_by_path} reads any path);
 *   <li>qualified names ({@code db.f}, {@code system.builtin.f}): they reach catalog functions.
 * </ul>
 *
 * The allow-list follows Spark: a Spark upgrade that adds functions allows them, and {@code
 * ReadOnlyGuardTest} compares Spark's list with the one reviewed for this release, so each new
 * function gets a decision (allow, or add it to {@link #DENIED}).
 */
final class ReadOnlyFunctions {
  private static final String REFLECTION = "reflection: it calls a Java method the query names";
  private static final String PROTOBUF =
      "file access: it reads a descriptor file, or loads a class by name";
  private static final String XML = "file access: its rowValidationXSDPath option opens a file";
  private static final String XPATH =
      "network and file access: its XML parser loads an external DTD from any URL or file";
  private static final String AVRO = "file access: its avroSchemaUrl option opens a file";

  /** Spark built-in functions read-only SQL may not call, each with why. */
  static final Map<String, String> DENIED =
      Map.ofEntries(
          Map.entry("reflect", REFLECTION),
          Map.entry("java_method", REFLECTION),
          Map.entry("try_reflect", REFLECTION),
          Map.entry("from_protobuf", PROTOBUF),
          Map.entry("to_protobuf", PROTOBUF),
          Map.entry("from_xml", XML),
          Map.entry("schema_of_xml", XML),
          Map.entry("from_avro", AVRO),
          Map.entry("to_avro", AVRO),
          Map.entry("schema_of_avro", AVRO),
          Map.entry("xpath", XPATH),
          Map.entry("xpath_boolean", XPATH),
          Map.entry("xpath_double", XPATH),
          Map.entry("xpath_float", XPATH),
          Map.entry("xpath_int", XPATH),
          Map.entry("xpath_long", XPATH),
          Map.entry("xpath_number", XPATH),
          Map.entry("xpath_short", XPATH),
          Map.entry("xpath_string", XPATH));

  /** Spark built-in table functions read-only SQL may not call, each with why. */
  static final Map<String, String> DENIED_TABLE =
      Map.of(
          "python_worker_logs",
          "it reads the logs of the session's Python workers, which are not lake tables");

  /** Lower-case names of Spark's built-in functions (before {@link #DENIED}). */
  static final Set<String> BUILTIN = names(FunctionRegistry.functionSet());

  /** Lower-case names of Spark's built-in table functions ({@code range}, {@code explode}, ...). */
  static final Set<String> BUILTIN_TABLE = names(TableFunctionRegistry.functionSet());

  /**
   * Expression class name → why, for the denied functions: how they look in an analyzed plan (a
   * view's text is resolved there).
   */
  private static final Map<String, String> DENIED_CLASSES = deniedClasses();

  private ReadOnlyFunctions() {}

  /**
   * @param nameParts a function call's name as written ({@code UnresolvedFunction}, {@code
   *     UnresolvedGenerator})
   * @return why read-only SQL may not call it, as "function 'x' is not allowed ..."; empty when it
   *     may
   */
  static Optional<String> callRefusal(List<String> nameParts) {
    String shown = String.join(".", nameParts);
    if (nameParts.size() != 1) {
      return Optional.of(
          refusal("function", shown, "a qualified name: only Spark's built-in functions"));
    }
    String name = nameParts.get(0).toLowerCase(Locale.ROOT);
    if (DENIED.containsKey(name)) {
      return Optional.of(refusal("function", shown, DENIED.get(name)));
    }
    if (!BUILTIN.contains(name)) {
      return Optional.of(
          refusal(
              "function",
              shown,
              "not one of Spark's built-in functions: user-defined and catalog functions can run"
                  + " any code"));
    }
    return Optional.empty();
  }

  /**
   * @param nameParts a table function's name as written ({@code SELECT * FROM f(...)})
   * @return why read-only SQL may not call it; empty when it may
   */
  static Optional<String> tableCallRefusal(List<String> nameParts) {
    String shown = String.join(".", nameParts);
    String name = nameParts.get(nameParts.size() - 1).toLowerCase(Locale.ROOT);
    if (nameParts.size() == 1 && DENIED_TABLE.containsKey(name)) {
      return Optional.of(refusal("table function", shown, DENIED_TABLE.get(name)));
    }
    if (nameParts.size() != 1 || !BUILTIN_TABLE.contains(name)) {
      return Optional.of(
          refusal("table function", shown, "not one of Spark's built-in table functions"));
    }
    return Optional.empty();
  }

  /**
   * {@code DESCRIBE FUNCTION} reads a function's documentation and calls nothing, so a denied
   * built-in may be described; a catalog function may not (looking it up can load its resources).
   *
   * @return why read-only SQL may not describe it; empty when it may
   */
  static Optional<String> describeRefusal(List<String> nameParts) {
    String shown = String.join(".", nameParts);
    String name = nameParts.get(nameParts.size() - 1).toLowerCase(Locale.ROOT);
    if (nameParts.size() != 1 || (!BUILTIN.contains(name) && !BUILTIN_TABLE.contains(name))) {
      return Optional.of(
          refusal("function", shown, "not one of Spark's built-in functions, so not described"));
    }
    return Optional.empty();
  }

  /**
   * @param e an expression of an analyzed plan
   * @return why read-only SQL may not evaluate it: a denied built-in or any user-defined function
   *     (Scala, Python, Hive UDFs); empty when it may
   */
  static Optional<String> analyzedRefusal(Expression e) {
    String why = DENIED_CLASSES.get(e.getClass().getName());
    if (why != null) {
      return Optional.of(refusal("function", e.prettyName(), why));
    }
    if (e instanceof UserDefinedExpression u) {
      return Optional.of(refusal("user-defined function", u.name(), "it can run any code"));
    }
    return Optional.empty();
  }

  private static String refusal(String kind, String name, String why) {
    return kind + " '" + name + "' is not allowed in read-only SQL (" + why + ")";
  }

  private static Set<String> names(scala.collection.immutable.Set<FunctionIdentifier> ids) {
    return CollectionConverters.asJava(ids).stream()
        .map(id -> id.funcName().toLowerCase(Locale.ROOT))
        .collect(Collectors.toUnmodifiableSet());
  }

  private static Map<String, String> deniedClasses() {
    var builtins = CollectionConverters.asJava(FunctionRegistry.expressions());
    Map<String, String> classes = new TreeMap<>();
    DENIED.forEach(
        (name, why) -> {
          var entry = builtins.get(name);
          if (entry != null) {
            classes.put(entry._1().getClassName(), why);
          }
        });
    return Map.copyOf(classes);
  }
}

package io.latelake.analyst;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latelake.core.ExitCode;
import io.latelake.core.cli.Launcher;
import io.latelake.core.testing.SparkTestBase;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The read-only guard of {@code latelake sql} and the notebooks: every statement of {@code
 * read-only-refused.sql} (reflection, file access, functions that are not Spark built-ins, function
 * DDL, ADD JAR / FILE, SET / RESET and other session changes, writes, reads by path) is refused
 * with exit code 2 and a message naming the function, node or path; every statement of {@code
 * read-only-allowed.sql} passes. Also: the exact message of each kind of refusal, Spark's built-in
 * function lists as reviewed for this release, the check of the analyzed plan (a view calling
 * {@code reflect}, a temporary view calling a UDF, a notebook cell), and the command's exit code.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReadOnlyGuardTest extends SparkTestBase {
  private static final String READ_ONLY =
      "; latelake sql only reads unless --allow-writes is given";
  private static final String REFLECTION =
      " is not allowed in read-only SQL (reflection: it calls a Java method the query names)";
  private static final Pattern REFUSED = Pattern.compile("\\[(.+?)\\] (.+)");

  @TempDir static Path tmp;

  @BeforeAll
  void catalog() {
    spark.sql("CREATE DATABASE latelake_gold");
  }

  static String lake() {
    return tmp.resolve("lake").toString();
  }

  /** A context on this test's lake, for {@link SqlMain#execute}. */
  io.latelake.core.job.JobContext context() {
    return io.latelake.core.job.JobContext.start(
        spark, new io.latelake.core.table.TableRegistry(lake()));
  }

  ReadOnlyGuard guard() {
    return ReadOnlyGuard.forLake(spark, lake());
  }

  /**
   * @return the statements of a corpus resource, comments and blank lines left out, {@code ${lake}}
   *     replaced by the lake root
   */
  static List<String> corpus(String resource) {
    try (InputStream in = ReadOnlyGuardTest.class.getResourceAsStream(resource)) {
      return new String(in.readAllBytes(), UTF_8)
          .lines()
          .filter(line -> !line.isBlank() && !line.startsWith("--"))
          .map(line -> line.replace("${lake}", lake()))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Stream<Arguments> refused() {
    return corpus("read-only-refused.sql").stream()
        .map(
            line -> {
              Matcher m = REFUSED.matcher(line);
              assertThat(m.matches()).as("corpus line %s", line).isTrue();
              return Arguments.of(m.group(1), m.group(2));
            });
  }

  static Stream<String> allowed() {
    return corpus("read-only-allowed.sql").stream();
  }

  static Set<String> reviewed(String resource) {
    try (InputStream in = ReadOnlyGuardTest.class.getResourceAsStream(resource)) {
      return new TreeSet<>(
          new String(in.readAllBytes(), UTF_8)
              .lines()
              .filter(line -> !line.isEmpty() && !line.startsWith("#"))
              .toList());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void assertRefused(String sql, String why) {
    assertThatThrownBy(() -> guard().check(sql, "the statement"))
        .isInstanceOfSatisfying(
            RefusedSqlException.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCode.USAGE))
        .hasMessage("Refused the statement: " + why + READ_ONLY);
  }

  @Test
  @Order(1)
  void theCorporaHoldEveryKindOfStatement() {
    assertThat(refused()).hasSize(214);
    assertThat(allowed()).hasSize(54);
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("refused")
  @Order(2)
  void everyRefusedStatementIsRefusedWithExitTwoNamingWhat(String named, String sql) {
    assertThatThrownBy(() -> guard().check(sql, "the statement"))
        .isInstanceOfSatisfying(
            RefusedSqlException.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCode.USAGE))
        .hasMessageStartingWith("Refused the statement: ")
        .hasMessageContaining(named)
        .hasMessageEndingWith(READ_ONLY);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("allowed")
  @Order(3)
  void everyAllowedStatementPasses(String sql) {
    assertThatCode(() -> guard().check(sql, "the statement")).doesNotThrowAnyException();
  }

  @Test
  @Order(4)
  void eachKindOfRefusalSaysWhatWasRefusedAndWhy() {
    String root = "file:" + lake();
    assertRefused(
        "SELECT java_method('org.apache.hadoop.fs.FileUtil', 'chmod', '" + lake() + "', '000')",
        "function 'java_method'" + REFLECTION);
    assertRefused(
        "SELECT from_xml('<a>1</a>', 'a INT', map('rowValidationXSDPath', '/etc/passwd'))",
        "function 'from_xml' is not allowed in read-only SQL (file access: its"
            + " rowValidationXSDPath option opens a file)");
    assertRefused(
        "SELECT shout(page) FROM latelake_gold.page_5m",
        "function 'shout' is not allowed in read-only SQL (not one of Spark's built-in functions:"
            + " user-defined and catalog functions can run any code)");
    assertRefused(
        "SELECT latelake_gold.shout(page) FROM latelake_gold.page_5m",
        "function 'latelake_gold.shout' is not allowed in read-only SQL (a qualified name: only"
            + " Spark's built-in functions)");
    assertRefused(
        "SELECT * FROM table_changes_by_path('/etc', 0)",
        "table function 'table_changes_by_path' is not allowed in read-only SQL (not one of"
            + " Spark's built-in table functions)");
    assertRefused(
        "SELECT * FROM text.`/etc/passwd`",
        "it reads text.`/etc/passwd` by path, and read-only SQL reads only catalog tables and"
            + " Delta tables under lake.root ("
            + root
            + ")");
    assertRefused(
        "SELECT * FROM delta.`" + lake() + "/../outside`",
        "it reads delta.`" + lake() + "/../outside`, which is not under lake.root (" + root + ")");
    assertRefused(
        "SELECT * FROM delta.`gold/page_5m`",
        "it reads delta.`gold/page_5m`, which is not an absolute path under lake.root ("
            + root
            + ")");
    assertRefused(
        "DESCRIBE HISTORY '/etc'", "it reads '/etc', which is not under lake.root (" + root + ")");
    assertRefused(
        "SELECT * FROM latelake_gold.page_5m WITH ('path' = '/etc')",
        "the option 'path' on latelake_gold.page_5m is not allowed in read-only SQL (only"
            + " versionAsOf and timestampAsOf: another option can point the read at another"
            + " location or file)");
    assertRefused(
        "SELECT * FROM IDENTIFIER(concat('text.', '`/etc/passwd`'))",
        "IDENTIFIER(...) is not allowed in read-only SQL unless its argument is a string literal"
            + " or string literals joined with ||");
    assertRefused(
        "ADD JAR /tmp/evil.jar", "it is not read-only (Spark plans it as AddJarsCommand)");
    assertRefused(
        "SET spark.sql.runSQLOnFiles = true", "it is not read-only (Spark plans it as SetCommand)");
    assertThatThrownBy(
            () ->
                ReadOnlyGuard.catalogOnly(spark)
                    .check("SELECT * FROM delta.`" + lake() + "/gold/page_5m`", "cell 1"))
        .hasMessage(
            "Refused cell 1: it reads delta.`"
                + lake()
                + "/gold/page_5m` by path, and this read-only session reads only catalog tables"
                + READ_ONLY);
  }

  @Test
  @Order(5)
  void sparksBuiltInFunctionsAreTheOnesReviewedForThisRelease() {
    Set<String> functions = reviewed("spark-builtin-functions.txt");
    Set<String> added = new TreeSet<>(ReadOnlyFunctions.BUILTIN);
    added.removeAll(functions);
    Set<String> removed = new TreeSet<>(functions);
    removed.removeAll(ReadOnlyFunctions.BUILTIN);
    assertThat(added)
        .as(
            "Spark functions not reviewed for read-only SQL: allow each (list it in"
                + " spark-builtin-functions.txt) or deny it (ReadOnlyFunctions.DENIED)")
        .isEmpty();
    assertThat(removed).as("reviewed functions Spark no longer has").isEmpty();
    assertThat(new TreeSet<>(ReadOnlyFunctions.BUILTIN_TABLE))
        .containsExactlyElementsOf(reviewed("spark-builtin-table-functions.txt"));
    assertThat(ReadOnlyFunctions.DENIED.keySet())
        .containsExactlyInAnyOrder(
            "reflect",
            "java_method",
            "try_reflect",
            "from_protobuf",
            "to_protobuf",
            "from_xml",
            "schema_of_xml",
            "from_avro",
            "to_avro",
            "schema_of_avro",
            "xpath",
            "xpath_boolean",
            "xpath_double",
            "xpath_float",
            "xpath_int",
            "xpath_long",
            "xpath_number",
            "xpath_short",
            "xpath_string");
    assertThat(ReadOnlyFunctions.BUILTIN).containsAll(ReadOnlyFunctions.DENIED.keySet());
  }

  @Test
  @Order(6)
  void aViewIsCheckedOnItsAnalyzedPlanBeforeItRuns() {
    spark.sql(
        "CREATE VIEW latelake_gold.sneaky AS "
            + "SELECT reflect('java.lang.System', 'setProperty', 'latelake.sandbox', 'view') AS x");
    spark.udf().register("shout", (UDF1<String, String>) s -> s + "!", DataTypes.StringType);
    spark.sql("CREATE TEMPORARY VIEW shouted AS SELECT shout('a') AS x");
    StringWriter out = new StringWriter();

    assertThatThrownBy(
            () ->
                SqlMain.execute(
                    context(),
                    List.of("SELECT * FROM latelake_gold.sneaky"),
                    Optional.of(guard()),
                    "table",
                    10,
                    new PrintWriter(out)))
        .isInstanceOfSatisfying(
            RefusedSqlException.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCode.USAGE))
        .hasMessage("Refused the statement: function 'reflect'" + REFLECTION + READ_ONLY);
    assertThatThrownBy(
            () ->
                SqlMain.execute(
                    context(),
                    List.of("SELECT x FROM shouted"),
                    Optional.of(guard()),
                    "table",
                    10,
                    new PrintWriter(out)))
        .isInstanceOfSatisfying(
            RefusedSqlException.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCode.USAGE))
        .hasMessage(
            "Refused the statement: user-defined function 'shout' is not allowed in read-only SQL"
                + " (it can run any code)"
                + READ_ONLY);
    assertThat(out.toString()).isEmpty();
    assertThat(System.getProperty("latelake.sandbox")).isNull();
  }

  @Test
  @Order(7)
  void aNotebookCellIsCheckedAsSqlAndTheOtherCellsStillRun() {
    Notebook notebook =
        Notebook.parse(
            "sandbox",
            """
            -- Databricks notebook source
            CREATE WIDGET TEXT folder DEFAULT '/etc'

            -- COMMAND ----------

            SELECT 1 AS one

            -- COMMAND ----------

            SELECT java_method('java.lang.System', 'setProperty', 'latelake.sandbox', 'cell')

            -- COMMAND ----------

            SELECT * FROM IDENTIFIER('delta.`' || :folder || '`')

            -- COMMAND ----------

            SELECT * FROM latelake_gold.sneaky
            """);

    NotebookRunner.Result r = new NotebookRunner(spark, 10, guard()).run(notebook, Map.of());

    assertThat(r.cells().stream().map(c -> c.error().orElse("ok")).toList())
        .containsExactly(
            "ok",
            "ok",
            "Refused cell 3 statement 1: function 'java_method'" + REFLECTION + READ_ONLY,
            "Refused cell 4 statement 1: it reads delta.`/etc`, which is not under lake.root (file:"
                + lake()
                + ")"
                + READ_ONLY,
            "Refused cell 5 statement 1: function 'reflect'" + REFLECTION + READ_ONLY);
    assertThat(r.tables()).hasSize(1);
    assertThat(r.tables().get(0).rows()).containsExactly(List.of("1"));
    assertThat(System.getProperty("latelake.sandbox")).isNull();
  }

  @Test
  @Order(8)
  void theCommandRefusesWithExitTwoAndTheFolderKeepsItsPermissions() throws IOException {
    // Last: the command stops the session it ran on.
    Path gold = Files.createDirectories(tmp.resolve("lake/gold"));
    Set<PosixFilePermission> mode = PosixFilePermissions.fromString("rwxr-x---");
    Files.setPosixFilePermissions(gold, mode);
    StringWriter err = new StringWriter();

    int code =
        Launcher.execute(
            new SqlMain(),
            new PrintWriter(new StringWriter()),
            new PrintWriter(err),
            "--set",
            "lake.root=\"" + lake() + "\"",
            "SELECT java_method('org.apache.hadoop.fs.FileUtil', 'chmod', '" + gold + "', '000')");

    assertThat(code).isEqualTo(2);
    assertThat(err.toString())
        .isEqualTo(
            "latelake: Refused the statement: function 'java_method'"
                + REFLECTION
                + READ_ONLY
                + "\n");
    assertThat(Files.getPosixFilePermissions(gold)).isEqualTo(mode);
  }
}

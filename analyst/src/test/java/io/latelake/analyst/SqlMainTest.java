package io.latelake.analyst;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latelake.core.ExitCode;
import io.latelake.core.cli.Launcher;
import io.latelake.core.testing.SparkTestBase;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
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
 * {@code latelake sql}: output formats, the read-only guard on Spark's parsed plan (every kind of
 * write refused with exit 2 and no table version changed; reflection refused and neither the gold
 * folder's permissions nor the JVM changed; a Delta table under the lake root read by path, other
 * paths refused), SHOW TABLES, multi-statement input, missing tables. Tables are registered by name
 * in the session's catalog; the lake root is the test's temporary folder. The corpus of refused and
 * allowed statements is {@link ReadOnlyGuardTest}'s.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SqlMainTest extends SparkTestBase {
  @TempDir static Path tmp;
  String gold;
  String log;

  @BeforeAll
  void tables() {
    gold = tmp.resolve("gold/page_5m").toString();
    log = tmp.resolve("monitoring/corrections_log").toString();
    AnalystLake.save(
        spark,
        gold,
        "SELECT * FROM VALUES "
            + "(TIMESTAMP'2024-05-14 10:00:00', '/home', 2L, 12.0D), "
            + "(TIMESTAMP'2024-05-14 10:00:00', '/pricing', 2L, 10.0D) "
            + "AS t(window_start, page, views, total_duration_s)");
    AnalystLake.save(spark, log, "SELECT 'r1' AS run_id, 'page_5m' AS metric");
    spark.sql("CREATE DATABASE latelake_gold");
    spark.sql("CREATE TABLE latelake_gold.page_5m USING delta LOCATION '" + gold + "'");
    spark.sql("CREATE TABLE latelake_gold.corrections_log USING delta LOCATION '" + log + "'");
  }

  /** A context on this test's lake, for {@link SqlMain#execute}. */
  io.latelake.core.job.JobContext context() {
    return io.latelake.core.job.JobContext.start(
        spark, new io.latelake.core.table.TableRegistry(tmp.toString()));
  }

  ReadOnlyGuard guard() {
    return ReadOnlyGuard.forLake(spark, tmp.toString());
  }

  String run(String sql, String format) {
    StringWriter text = new StringWriter();
    SqlMain.execute(
        context(),
        Statements.split(sql),
        Optional.of(guard()),
        format,
        1000,
        new PrintWriter(text));
    return text.toString();
  }

  List<Long> versions() {
    return List.of(AnalystLake.version(spark, gold), AnalystLake.version(spark, log));
  }

  @Test
  @Order(1)
  void printsEachResultAsAnAlignedTableCsvOrJsonLines() {
    assertThat(
            run(
                "SELECT page, views, total_duration_s, CAST(NULL AS STRING) AS note "
                    + "FROM latelake_gold.page_5m ORDER BY page; SHOW TABLES IN latelake_gold",
                "table"))
        .isEqualTo(
            """
            page     | views | total_duration_s | note
            ---------+-------+------------------+-----
            /home    | 2     | 12.0             | NULL
            /pricing | 2     | 10.0             | NULL
            (2 rows)
            namespace     | tableName       | isTemporary
            --------------+-----------------+------------
            latelake_gold | corrections_log | false
            latelake_gold | page_5m         | false
            (2 rows)
            """);
    assertThat(
            run(
                "SELECT page, window_start, 'a,\"b' AS x FROM latelake_gold.page_5m "
                    + "ORDER BY page",
                "csv"))
        .isEqualTo(
            """
            page,window_start,x
            /home,2024-05-14 10:00:00,"a,""b"
            /pricing,2024-05-14 10:00:00,"a,""b"
            """);
    assertThat(
            run(
                "SELECT page, views, window_start FROM latelake_gold.page_5m ORDER BY page",
                "json"))
        .isEqualTo(
            """
            {"page":"/home","views":2,"window_start":"2024-05-14T10:00:00.000Z"}
            {"page":"/pricing","views":2,"window_start":"2024-05-14T10:00:00.000Z"}
            """);
  }

  @Test
  @Order(2)
  void readOnlyStatementsPassTheGuard() {
    for (String sql :
        List.of(
            "WITH t AS (SELECT * FROM latelake_gold.page_5m) SELECT page FROM t WHERE views > "
                + "(SELECT min(views) - 1 FROM latelake_gold.page_5m)",
            "SELECT * FROM latelake_gold.page_5m VERSION AS OF 0",
            "SELECT * FROM latelake_gold.page_5m TIMESTAMP AS OF '2100-01-01 00:00:00'",
            "SELECT page, count(*) FROM latelake_gold.page_5m GROUP BY page HAVING count(*) > 0 "
                + "UNION ALL SELECT 'x', 1",
            "SELECT * FROM latelake_gold.page_5m a JOIN latelake_gold.page_5m b USING (page) "
                + "WHERE EXISTS (SELECT 1 FROM latelake_gold.corrections_log) LIMIT 1",
            "SHOW TABLES IN latelake_gold",
            "DESCRIBE TABLE latelake_gold.page_5m",
            "DESCRIBE HISTORY latelake_gold.page_5m",
            "SHOW DATABASES")) {
      guard().check(sql, "the statement");
    }
    assertThat(run("SELECT count(*) AS n FROM latelake_gold.page_5m VERSION AS OF 0", "csv"))
        .isEqualTo("n\n2\n");
  }

  static Stream<Arguments> writes() {
    return Stream.of(
        Arguments.of(
            "INSERT INTO latelake_gold.page_5m SELECT * FROM latelake_gold.page_5m",
            "InsertIntoStatement"),
        Arguments.of(
            "MERGE INTO latelake_gold.page_5m t USING latelake_gold.page_5m s "
                + "ON t.page = s.page WHEN MATCHED THEN UPDATE SET views = 0",
            "MergeIntoTable"),
        Arguments.of("DELETE FROM latelake_gold.page_5m WHERE views > 0", "DeleteFromTable"),
        Arguments.of("UPDATE latelake_gold.page_5m SET views = 0", "UpdateTable"),
        Arguments.of("DROP TABLE latelake_gold.page_5m", "DropTable"),
        Arguments.of(
            "CREATE TABLE latelake_gold.x USING delta AS SELECT 1 AS a", "CreateTableAsSelect"),
        Arguments.of("CREATE VIEW latelake_gold.v AS SELECT 1 AS a", "CreateView"),
        Arguments.of(
            "ALTER TABLE latelake_gold.page_5m SET TBLPROPERTIES ('a' = 'b')",
            "SetTableProperties"),
        Arguments.of("OPTIMIZE latelake_gold.page_5m", "OptimizeTableCommand"),
        Arguments.of("VACUUM latelake_gold.page_5m", "VacuumTableCommand"),
        Arguments.of("TRUNCATE TABLE latelake_gold.page_5m", "TruncateTable"),
        Arguments.of(
            "RESTORE TABLE latelake_gold.page_5m TO VERSION AS OF 0", "RestoreTableStatement"),
        Arguments.of(
            "WITH s AS (SELECT * FROM latelake_gold.page_5m) "
                + "INSERT INTO latelake_gold.page_5m SELECT * FROM s",
            "InsertIntoStatement"),
        Arguments.of(
            "INSERT OVERWRITE DIRECTORY '" + tmp.resolve("out") + "' USING parquet " + "SELECT 1",
            "InsertIntoDir"),
        Arguments.of("CACHE TABLE latelake_gold.page_5m", "CacheTable"),
        Arguments.of("SET spark.sql.shuffle.partitions = 3", "SetCommand"));
  }

  @ParameterizedTest
  @MethodSource("writes")
  @Order(3)
  void everyKindOfWriteIsRefusedFromThePlanAndChangesNothing(String sql, String node) {
    List<Long> before = versions();

    assertThatThrownBy(() -> run(sql, "table"))
        .isInstanceOfSatisfying(
            RefusedSqlException.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCode.USAGE))
        .hasMessage(
            "Refused the statement: it is not read-only (Spark plans it as "
                + node
                + "); latelake sql only reads unless --allow-writes is given");
    assertThat(versions()).isEqualTo(before);
    assertThat(spark.catalog().tableExists("latelake_gold.page_5m")).isTrue();
  }

  @Test
  @Order(4)
  void aMultiStatementInputWithOneWriteRunsNothing() {
    List<Long> before = versions();
    StringWriter text = new StringWriter();

    assertThatThrownBy(
            () ->
                SqlMain.execute(
                    context(),
                    Statements.split(
                        "SELECT 1; -- fine; really\nDELETE FROM latelake_gold.page_5m; SELECT 2"),
                    Optional.of(guard()),
                    "table",
                    10,
                    new PrintWriter(text)))
        .hasMessage(
            "Refused statement 2: it is not read-only (Spark plans it as "
                + "DeleteFromTable); latelake sql only reads unless --allow-writes is given");
    assertThat(text.toString()).isEmpty();
    assertThat(versions()).isEqualTo(before);
    assertThat(Statements.split("SELECT ';' AS a; SELECT `;` FROM t /* ; */; -- ;\n"))
        .containsExactly("SELECT ';' AS a", "SELECT `;` FROM t /* ; */");
    assertThat(
            Statements.bind(
                "SELECT :a, ':a', x::int, :b -- :a\nFROM t WHERE c=:a",
                java.util.Map.of("a", "it's \\")))
        .isEqualTo("SELECT 'it\\'s \\\\', ':a', x::int, :b -- :a\nFROM t WHERE c='it\\'s \\\\'");
    assertThatThrownBy(() -> run("SELECT 1 SELECT 2", "table"))
        .isInstanceOfSatisfying(
            RefusedSqlException.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCode.USAGE))
        .hasMessageStartingWith("Cannot parse the statement: [PARSE_SYNTAX_ERROR]");
  }

  @Test
  @Order(5)
  void allowWritesLiftsTheGuard() {
    long before = AnalystLake.version(spark, log);
    SqlMain.execute(
        context(),
        List.of("INSERT INTO latelake_gold.corrections_log VALUES " + "('r2', 'page_5m')"),
        Optional.empty(),
        "table",
        10,
        new PrintWriter(new StringWriter()));
    assertThat(AnalystLake.version(spark, log)).isEqualTo(before + 1);
  }

  @Test
  @Order(6)
  void aMissingTableIsABadUsageNamingIt() {
    assertThatThrownBy(() -> run("SELECT * FROM latelake_gold.nope", "table"))
        .isInstanceOfSatisfying(
            RefusedSqlException.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCode.USAGE))
        .hasMessageStartingWith(
            "Cannot run the statement: [TABLE_OR_VIEW_NOT_FOUND] The table "
                + "or view `latelake_gold`.`nope` cannot be found.")
        .hasMessageEndingWith(
            " The lake's tables and views are known by name once `latelake catalog register` has"
                + " run (again after a job created new tables; jobs register their own only with"
                + " lake.catalog.jobs-register = true).");
    StringWriter err = new StringWriter();
    assertThat(
            Launcher.execute(
                new SqlMain(),
                new PrintWriter(new StringWriter()),
                new PrintWriter(err),
                "--format",
                "xml",
                "SELECT 1"))
        .isEqualTo(2);
    assertThat(err.toString())
        .isEqualTo(
            "latelake: Invalid value 'xml' for option '--format': "
                + "expected table, csv or json\n");
  }

  @Test
  @Order(7)
  void reflectionIsRefusedAndNeitherTheGoldFolderNorTheJvmChange() throws IOException {
    Path goldDir = tmp.resolve("gold");
    Set<PosixFilePermission> mode = PosixFilePermissions.fromString("rwxr-x---");
    Files.setPosixFilePermissions(goldDir, mode);
    List<Long> before = versions();
    String reflection =
        " is not allowed in read-only SQL (reflection: it calls a Java method the query names);"
            + " latelake sql only reads unless --allow-writes is given";

    assertThatThrownBy(
            () ->
                run(
                    "SELECT java_method('org.apache.hadoop.fs.FileUtil', 'chmod', '"
                        + goldDir
                        + "', '000')",
                    "table"))
        .isInstanceOfSatisfying(
            RefusedSqlException.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCode.USAGE))
        .hasMessage("Refused the statement: function 'java_method'" + reflection);
    assertThatThrownBy(
            () ->
                run(
                    "SELECT reflect('java.lang.System', 'setProperty', 'latelake.sandbox',"
                        + " 'breached')",
                    "table"))
        .isInstanceOfSatisfying(
            RefusedSqlException.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCode.USAGE))
        .hasMessage("Refused the statement: function 'reflect'" + reflection);

    assertThat(Files.getPosixFilePermissions(goldDir)).isEqualTo(mode);
    assertThat(System.getProperty("latelake.sandbox")).isNull();
    assertThat(versions()).isEqualTo(before);
    assertThat(run("SELECT count(*) AS n FROM latelake_gold.page_5m", "csv")).isEqualTo("n\n2\n");
  }

  @Test
  @Order(8)
  void showTablesListsTheCurrentDatabase() {
    spark.catalog().setCurrentDatabase("latelake_gold");
    try {
      assertThat(run("SHOW TABLES", "table"))
          .isEqualTo(
              """
              namespace     | tableName       | isTemporary
              --------------+-----------------+------------
              latelake_gold | corrections_log | false
              latelake_gold | page_5m         | false
              (2 rows)
              """);
    } finally {
      spark.catalog().setCurrentDatabase("default");
    }
    assertThat(run("SHOW DATABASES LIKE 'latelake*'", "csv"))
        .isEqualTo("namespace\nlatelake_gold\n");
  }

  @Test
  @Order(9)
  void aDeltaTableUnderTheLakeRootIsReadByPathAndNoOtherPath() {
    assertThat(
            run(
                "SELECT page, views FROM delta.`" + gold + "` VERSION AS OF 0 ORDER BY page",
                "csv"))
        .isEqualTo("page,views\n/home,2\n/pricing,2\n");
    assertThatThrownBy(() -> run("SELECT * FROM text.`/etc/passwd`", "table"))
        .isInstanceOfSatisfying(
            RefusedSqlException.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCode.USAGE))
        .hasMessage(
            "Refused the statement: it reads text.`/etc/passwd` by path, and read-only SQL reads"
                + " only catalog tables and Delta tables under lake.root (file:"
                + tmp
                + "); latelake sql only reads unless --allow-writes is given");
    assertThatThrownBy(() -> run("SELECT * FROM delta.`" + tmp + "/../elsewhere`", "table"))
        .hasMessage(
            "Refused the statement: it reads delta.`"
                + tmp
                + "/../elsewhere`, which is not under lake.root (file:"
                + tmp
                + "); latelake sql only reads unless --allow-writes is given");
  }

  @Test
  @Order(99)
  void theCommandExitsTwoOnAMissingTable() {
    // Last: the command stops the session it ran on.
    StringWriter err = new StringWriter();
    assertThat(
            Launcher.execute(
                new SqlMain(),
                new PrintWriter(new StringWriter()),
                new PrintWriter(err),
                "--set",
                "lake.root=\"" + tmp + "\"",
                "SELECT * FROM latelake_gold.nope"))
        .isEqualTo(2);
    assertThat(err.toString())
        .startsWith(
            "latelake: Cannot run the statement: "
                + "[TABLE_OR_VIEW_NOT_FOUND] The table or view `latelake_gold`.`nope` cannot be found.");
  }
}

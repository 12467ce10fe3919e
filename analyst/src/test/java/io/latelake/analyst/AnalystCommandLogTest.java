package io.latelake.analyst;

import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.core.cli.Launcher;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.WriterAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.logging.log4j.core.layout.PatternLayout;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code latelake sql} as a user runs it (its own session, the local metastore in the lake): the
 * result on standard output, nothing from latelake on standard error or in the log at the default
 * level; the effective configuration only at DEBUG.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AnalystCommandLogTest {
  @TempDir static Path tmp;
  final StringWriter log = new StringWriter();
  WriterAppender capture;

  @BeforeAll
  void captureLatelakeLogs() {
    System.setProperty("spark.master", "local[2]");
    System.setProperty("spark.ui.enabled", "false");
    LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
    Configuration cfg = ctx.getConfiguration();
    capture =
        WriterAppender.newBuilder()
            .setName("capture")
            .setTarget(log)
            .setLayout(PatternLayout.newBuilder().withPattern("%-5p %c{1}: %m%n").build())
            .build();
    capture.start();
    cfg.addAppender(capture);
    cfg.getLoggerConfig("io.latelake").addAppender(capture, null, null);
    ctx.updateLoggers();
  }

  @AfterAll
  void stop() {
    LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
    ctx.getConfiguration().getLoggerConfig("io.latelake").removeAppender("capture");
    ctx.updateLoggers();
    SparkSession.clearActiveSession();
    SparkSession.clearDefaultSession();
  }

  int sql(StringWriter out, StringWriter err, String statement) {
    try {
      // an (empty) lake folder: the analyst commands refuse one that does not exist
      java.nio.file.Files.createDirectories(tmp.resolve("lake"));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return Launcher.execute(
        new SqlMain(),
        new PrintWriter(out),
        new PrintWriter(err),
        "--set",
        "lake.root=\"" + tmp.resolve("lake") + "\"",
        "--set",
        "lake.spark.shuffle-partitions=2",
        statement);
  }

  @Test
  void sqlPrintsItsResultAndLogsTheConfigurationOnlyAtDebug() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();

    assertThat(sql(out, err, "SELECT 1 AS one")).isZero();

    assertThat(out.toString())
        .isEqualTo(
            """
        one
        ---
        1
        (1 row)
        """);
    assertThat(err.toString()).isEmpty();
    // nothing at the default level but, on a slow machine, the one line of a step that took 5 s
    // or more (BatchAction.SLOW_STEP_MS)
    assertThat(
            log.toString()
                .replaceAll(
                    "(?m)^INFO  BatchAction: sql-\\S+: the statement took \\d+\\.\\d s\n", ""))
        .isEmpty();

    Configurator.setLevel("io.latelake.analyst", Level.DEBUG);
    try {
      assertThat(sql(new StringWriter(), new StringWriter(), "SELECT 2 AS two")).isZero();
    } finally {
      Configurator.setLevel("io.latelake.analyst", Level.INFO);
    }
    assertThat(log.toString())
        .contains(
            "DEBUG AnalystCommand: Effective configuration:\n",
            "lake.catalog.databases.gold = \"latelake_gold\"",
            "DEBUG SqlMain: Running the statement: SELECT 2 AS two");
  }
}

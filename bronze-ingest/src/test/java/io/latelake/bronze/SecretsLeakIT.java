package io.latelake.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import io.latelake.bronze.replay.LandingWriter;
import io.latelake.core.testing.SparkTestBase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.spark.sql.Encoders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Plants a distinct secret under every kind of credential key, in a config file and with {@code
 * --set}, runs {@code latelake bronze} as its own process (a run from files, a failing run, two
 * refused configurations), then searches everything those processes wrote — stdout, stderr, the log
 * file (everything at INFO), the Delta tables (raw bytes and their rows read back), checkpoints,
 * whatever else lands under the work folder — for each planted secret.
 */
class SecretsLeakIT extends SparkTestBase {
  @TempDir Path tmp;

  /** Config key (HOCON, as written) → planted secret. */
  private static final Map<String, String> FILE_SECRETS = new LinkedHashMap<>();

  private static final Map<String, String> SET_SECRETS = new LinkedHashMap<>();

  static {
    String k = "lake.bronze.kafka.properties.";
    String s = "lake.spark.conf.";
    FILE_SECRETS.put(
        k + "\"sasl.jaas.config\"",
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\\\"svc\\\" "
            + "password=\\\"pl4nt-01-jaas\\\";");
    FILE_SECRETS.put(k + "\"ssl.keystore.key\"", "pl4nt-02-keystore-key");
    FILE_SECRETS.put(k + "\"ssl.key.password\"", "pl4nt-03-key-pass");
    FILE_SECRETS.put(k + "\"ssl.truststore.password\"", "pl4nt-04-truststore-pass");
    FILE_SECRETS.put(
        s + "\"spark.hadoop.fs.azure.account.key.acct.dfs.core.windows.net\"",
        "pl4nt-05-azure-account-key");
    FILE_SECRETS.put(
        s + "\"spark.hadoop.fs.gs.auth.service.account.private.key\"", "pl4nt-06-gcs-private-key");
    FILE_SECRETS.put(s + "\"spark.hadoop.fs.s3a.secret.key\"", "pl4nt-07-s3a-secret");
    FILE_SECRETS.put(s + "\"spark.hadoop.fs.s3a.access.key\"", "pl4nt-08-s3a-access");
    FILE_SECRETS.put(s + "\"spark.hadoop.fs.s3a.session.token\"", "pl4nt-09-s3a-token");
    FILE_SECRETS.put(s + "\"spark.latelake.vault\"", "pl4nt-10-configured-regex");
    FILE_SECRETS.put(s + "\"spark.hadoop.fs.gs.encryption.key\"", "pl4nt-15-gcs-encryption-key");
    FILE_SECRETS.put(
        s + "\"spark.hadoop.fs.gs.auth.service.account.private.key.id\"", "pl4nt-16-gcs-key-id");
    FILE_SECRETS.put(s + "\"spark.hadoop.fs.s3a.encryption.key\"", "pl4nt-17-s3a-encryption-key");
    FILE_SECRETS.put(
        s + "\"spark.hadoop.fs.s3a.server-side-encryption.key\"", "pl4nt-18-s3a-sse-key");
    FILE_SECRETS.put(s + "\"spark.hadoop.fs.adl.oauth2.credential\"", "pl4nt-19-adl-oauth2");
    SET_SECRETS.put(k + "\"ssl.keystore.password\"", "pl4nt-11-keystore-pass");
    SET_SECRETS.put(
        s + "\"spark.hadoop.fs.azure.account.key.other.blob.core.windows.net\"",
        "pl4nt-12-azure-set");
  }

  /** An Azure account key that the config file takes from the environment. */
  private static final String ENV_SECRET = "pl4nt-20-azure-from-env";

  /** The planted secret text of a value (the jaas one: its password). */
  private static List<String> planted() {
    List<String> out = new ArrayList<>();
    Stream.concat(FILE_SECRETS.values().stream(), SET_SECRETS.values().stream())
        .forEach(v -> out.add(v.contains("pl4nt-01") ? "pl4nt-01-jaas" : v));
    out.add("pl4nt-13-mistyped-jaas");
    out.add("pl4nt-14-basic-auth");
    out.add(ENV_SECRET);
    return out;
  }

  /**
   * @param stderr standard error
   */
  private record Run(int code, String stdout, String stderr) {}

  private Run bronze(Path work, String name, Path config, List<String> sets) throws Exception {
    // Spark's module flags and the test JVM's Delta and codegen settings
    List<String> cmd = new ArrayList<>(io.latelake.core.testing.ChildJvm.java());
    cmd.addAll(List.of("-XX:TieredStopAtLevel=1", "-XX:ReservedCodeCacheSize=240m"));
    cmd.addAll(
        List.of(
            "-Xmx1g",
            "-Dspark.master=local[1]",
            "-Dspark.ui.enabled=false",
            // Spark's event log: what a History Server shows.
            "-Dspark.eventLog.enabled=true",
            "-Dspark.eventLog.dir=" + work.resolve("events").toUri(),
            // Uncompressed, so that the search below reads the text a History Server shows.
            "-Dspark.eventLog.compress=false",
            "-Dlog4j2.configurationFile=" + work.resolve("log4j2.properties").toUri(),
            "-cp",
            classpath(),
            "io.latelake.bronze.BronzeMain",
            "--config",
            config.toString()));
    for (String s : sets) {
      cmd.addAll(List.of("--set", s));
    }
    Path out = work.resolve(name + ".stdout");
    Path err = work.resolve(name + ".stderr");
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .directory(work.toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    pb.environment().put("LATELAKE_PLANTED_AZURE_KEY", ENV_SECRET);
    Files.createDirectories(work.resolve("events"));
    Process p = pb.start();
    if (!p.waitFor(10, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IllegalStateException(name + " did not finish");
    }
    return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
  }

  private static String classpath() {
    String cp = System.getProperty("surefire.test.class.path");
    return cp != null && !cp.isBlank() ? cp : System.getProperty("java.class.path");
  }

  @Test
  void noPlantedSecretAppearsInAnythingTheProcessesWrote() throws Exception {
    Path work = Files.createDirectories(tmp.resolve("work"));
    Path root = tmp.resolve("work/lake");
    Files.writeString(
        work.resolve("log4j2.properties"),
        String.join(
            "\n",
            "rootLogger.level = info",
            // the effective configuration, secrets masked, is logged at DEBUG
            "logger.config.name = io.latelake.core.config.ConfigLoader",
            "logger.config.level = debug",
            "rootLogger.appenderRef.file.ref = file",
            "rootLogger.appenderRef.err.ref = err",
            "appender.file.type = File",
            "appender.file.name = file",
            "appender.file.fileName = " + work.resolve("latelake.log"),
            "appender.file.layout.type = PatternLayout",
            "appender.file.layout.pattern = %d %p %c: %m%n%throwable",
            "appender.err.type = Console",
            "appender.err.name = err",
            "appender.err.target = SYSTEM_ERR",
            "appender.err.layout.type = PatternLayout",
            "appender.err.layout.pattern = %p %c{1}: %m%n%throwable",
            ""));
    new LandingWriter(work.resolve("landing"))
        .writeLines(
            "a.jsonl",
            List.of(
                "{\"event_id\":\"e1\",\"event_time\":\"2024-05-14T12:01:00Z\"}",
                "{\"event_id\":\"e2\",\"event_time\":\"2024-05-14T12:02:00Z\"}",
                "not json"));
    StringBuilder conf = new StringBuilder();
    conf.append("lake.root = \"").append(root).append("\"\n");
    conf.append("lake.bronze.files.path = \"").append(work.resolve("landing")).append("\"\n");
    conf.append("lake.spark.shuffle-partitions = 1\n");
    conf.append(
        "lake.spark.conf.\"spark.redaction.regex\" = "
            + "\"(?i)secret|password|token|access[.]?key|vault\"\n");
    FILE_SECRETS.forEach((k, v) -> conf.append(k).append(" = \"").append(v).append("\"\n"));
    conf.append(
        "lake.spark.conf.\"spark.hadoop.fs.azure.account.key.env.dfs.core.windows.net\" = "
            + "${?LATELAKE_PLANTED_AZURE_KEY}\n");
    Path config = work.resolve("secrets.conf");
    Files.writeString(config, conf.toString());
    List<String> sets = new ArrayList<>();
    SET_SECRETS.forEach((k, v) -> sets.add(k + "=\"" + v + "\""));

    Run ok = bronze(work, "files", config, sets);
    assertThat(ok.code()).as(ok.stderr()).isEqualTo(0);
    assertThat(ok.stderr())
        .contains(
            "Effective configuration:",
            "lake.bronze.kafka.properties.\"ssl.keystore.password\" = ******",
            "lake.spark.conf.\"spark.hadoop.fs.gs.encryption.key\" = ******",
            "lake.spark.conf.\"spark.hadoop.fs.azure.account.key.env.dfs.core.windows.net\" = ******");
    assertThat(spark.read().format("delta").load(root + "/bronze/events").count()).isEqualTo(3);

    // A runtime failure: lake.root is a file, so no table can be created there.
    Path fileRoot = Files.writeString(work.resolve("root-is-a-file"), "x");
    List<String> failing = new ArrayList<>(sets);
    failing.add("lake.root=\"" + fileRoot + "\"");
    Run failed = bronze(work, "failing", config, failing);
    assertThat(failed.code()).as(failed.stderr()).isEqualTo(1);

    // Refused before any work: a mistyped secret override, an unknown Kafka option.
    List<String> mistyped = new ArrayList<>(sets);
    mistyped.add(
        "lake.bronze.kafka.properties.\"sasl.jaas.config=org.apache.kafka.common."
            + "security.plain.PlainLoginModule required username=\"svc\" "
            + "password=\"pl4nt-13-mistyped-jaas\";");
    Run typo = bronze(work, "mistyped", config, mistyped);
    assertThat(typo.code()).isEqualTo(2);
    assertThat(typo.stderr())
        .isEqualTo(
            "latelake: Invalid override "
                + "'lake.bronze.kafka.properties.\"sasl.jaas.config=******' for --set: the key is not a "
                + "valid path (quote a name that holds dots, e.g. lake.spark.conf.\"spark.x.y\"=value)"
                + System.lineSeparator());
    List<String> unknown = new ArrayList<>(sets);
    unknown.add(
        "lake.bronze.kafka.properties.\"basic.auth.user.info\"=\"svc:pl4nt-14-basic-auth\"");
    Run refused = bronze(work, "unknown-option", config, unknown);
    assertThat(refused.code()).isEqualTo(2);
    assertThat(refused.stderr())
        .isEqualTo(
            "latelake: Unknown Kafka option "
                + "'basic.auth.user.info' (lake.bronze.kafka.properties.\"basic.auth.user.info\"): "
                + "neither a Kafka consumer property nor a Spark Kafka source option"
                + System.lineSeparator());

    // Every file the processes wrote (the config file, which holds the secrets, aside).
    List<Path> written;
    try (Stream<Path> files = Files.walk(work)) {
      written = files.filter(Files::isRegularFile).filter(f -> !f.equals(config)).toList();
    }
    assertThat(written).contains(work.resolve("latelake.log"), work.resolve("files.stderr"));
    assertThat(written.stream().filter(f -> f.toString().contains("_delta_log"))).isNotEmpty();
    assertThat(written.stream().filter(f -> f.toString().contains("_checkpoints"))).isNotEmpty();
    // Spark's event logs (one folder per application: Spark 4 rolls them) hold every planted
    // key, its value redacted.
    List<Path> eventLogs;
    try (Stream<Path> files = Files.walk(work.resolve("events"))) {
      eventLogs = files.filter(f -> f.getFileName().toString().startsWith("events_")).toList();
    }
    assertThat(eventLogs).hasSize(2);
    String eventLog = "";
    for (Path f : eventLogs) {
      eventLog += Files.readString(f, StandardCharsets.ISO_8859_1);
    }
    for (String key :
        List.of(
            "spark.hadoop.fs.gs.encryption.key",
            "spark.hadoop.fs.s3a.server-side-encryption.key",
            "spark.hadoop.fs.adl.oauth2.credential",
            "spark.hadoop.fs.azure.account.key.env.dfs.core.windows.net")) {
      assertThat(eventLog).contains("\"" + key + "\":\"*********(redacted)\"");
    }
    assertThat(Files.readString(work.resolve("latelake.log")))
        .contains("Effective configuration:", "= ******");
    // Rows of every Delta table under the root, read back (Parquet pages are compressed).
    List<String> rows = new ArrayList<>();
    try (Stream<Path> logs = Files.walk(root)) {
      for (Path log : logs.filter(d -> d.getFileName().toString().equals("_delta_log")).toList()) {
        rows.addAll(
            spark
                .read()
                .format("delta")
                .load(log.getParent().toString())
                .selectExpr("to_json(struct(*))")
                .as(Encoders.STRING())
                .collectAsList());
      }
    }
    assertThat(rows).hasSizeGreaterThanOrEqualTo(3);
    List<String> environments = historyServerEnvironments(work.resolve("events"));
    assertThat(environments).hasSize(2);
    for (String env : environments) {
      assertThat(env)
          .contains(
              "[ \"spark.hadoop.fs.gs.encryption.key\", \"*********(redacted)\" ]",
              "[ \"spark.hadoop.fs.azure.account.key.env.dfs.core.windows.net\", "
                  + "\"*********(redacted)\" ]");
    }
    for (String secret : planted()) {
      for (Path f : written) {
        assertThat(contains(f, secret)).as(secret + " in " + f).isFalse();
      }
      assertThat(rows).as(secret + " in a table row").noneMatch(r -> r.contains(secret));
      assertThat(environments)
          .as(secret + " in the History Server's environment")
          .noneMatch(e -> e.contains(secret));
    }
  }

  /**
   * Spark's History Server, in this JVM on a free loopback port, over the runs' event logs: the
   * environment (Spark properties, Hadoop properties, system properties) of every application, as
   * its REST API serves it to a browser or a script.
   */
  private static List<String> historyServerEnvironments(Path events) throws Exception {
    org.apache.spark.SparkConf conf =
        new org.apache.spark.SparkConf(false)
            .set("spark.history.fs.logDirectory", events.toUri().toString());
    var provider = new org.apache.spark.deploy.history.FsHistoryProvider(conf);
    var server =
        new org.apache.spark.deploy.history.HistoryServer(
            conf,
            provider,
            new org.apache.spark.SecurityManager(
                conf,
                org.apache.spark.SecurityManager$.MODULE$.$lessinit$greater$default$2(),
                org.apache.spark.SecurityManager$.MODULE$.$lessinit$greater$default$3()),
            0);
    try {
      server.bind();
      provider.checkForLogs();
      var http = java.net.http.HttpClient.newHttpClient();
      String base = "http://127.0.0.1:" + server.boundPort() + "/api/v1/applications";
      var ids =
          new com.fasterxml.jackson.databind.ObjectMapper()
              .readTree(get(http, base))
              .findValuesAsText("id");
      List<String> out = new ArrayList<>();
      for (String id : ids) {
        out.add(get(http, base + "/" + id + "/environment"));
      }
      return out;
    } finally {
      server.stop();
      provider.stop();
    }
  }

  private static String get(java.net.http.HttpClient http, String url) throws Exception {
    var response =
        http.send(
            java.net.http.HttpRequest.newBuilder(java.net.URI.create(url)).build(),
            java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(url).isEqualTo(200);
    return response.body();
  }

  private static boolean contains(Path file, String secret) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    return new String(bytes, StandardCharsets.ISO_8859_1).contains(secret);
  }
}

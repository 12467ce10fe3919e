package io.latelake.app;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.Config;
import io.latelake.bronze.replay.CapturedEvents;
import io.latelake.bronze.replay.LandingWriter;
import io.latelake.bronze.replay.ReplayPlan;
import io.latelake.core.config.ConfigLoader;
import io.latelake.core.job.JobContext;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.testing.SparkTestBase;
import io.latelake.correction.correct.CorrectJob;
import io.latelake.correction.correct.CorrectResult;
import io.latelake.correction.shared.CorrectionConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bundle jar under spark-submit on a real Spark standalone cluster: a master and two workers
 * (each its own JVM, started by {@code scripts/spark-cluster.sh} from Spark's Maven jars, on
 * 127.0.0.1), client deploy mode, the phone data's first {@value #EVENTS} events as landing files
 * in 10-second replay slices. {@code run --available-now} runs as cron would run it: once after
 * every {@value #SLICES_PER_RUN} slices have landed, so the slices of a later run that are behind
 * the watermark the earlier run left are dropped by the fast path; then {@code correct} restates
 * them. Gold must equal, row for row, the lock-step fast path in this JVM ({@link FastPath}: one
 * step, the same code as {@code run --available-now}, after the same slices) followed by {@code
 * correct}, and both sides must have dropped and restated the same rows. The applications must have
 * run their tasks on the cluster's executors (the master's JSON and each application's event log
 * say so). The lake is a local folder: driver and executors share the file system.
 */
class SparkClusterIT extends SparkTestBase {
  private static final Logger LOG = LoggerFactory.getLogger(SparkClusterIT.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  static final int EVENTS = 2000;
  static final Duration SLICE = Duration.ofSeconds(10);

  /**
   * Slices landed between two {@code run --available-now} submits on the cluster: the first run
   * takes slices 1-10, the second 11-13, whose stragglers are behind the watermark the first run
   * left.
   */
  static final int SLICES_PER_RUN = 10;

  static final String METRIC = "events_per_device_10s";

  /**
   * Rows the fast path drops by the watermark in the second run (silver and gold together): the
   * events of slices 11-13 whose event time is at or before the first run's last watermark (its
   * highest event time − 100 ms); computed from the data by that rule.
   */
  static final long DROPPED = 3;

  /** Gold rows {@code correct} restates afterwards: the (window, device) rows of those events. */
  static final long RESTATED = 3;

  /**
   * A bound for one spark-submit (one {@code run} takes three layers), so a hung application fails
   * the test instead of CI.
   */
  static final long SUBMIT_TIMEOUT_MINUTES = 20;

  /**
   * JVM options of the driver (the submit JVM) and the executors: each lives for about a minute and
   * runs many small Spark jobs, so the client compiler alone, as in the test JVMs, leaves the two
   * cores to Spark instead of to C2 compiler threads.
   */
  static final String CHILD_JIT = "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m";

  private static final Path REPO =
      Path.of(System.getProperty("latelake.repo", "..")).toAbsolutePath().normalize();
  private static final Path BUNDLE_JAR =
      Path.of(
          System.getProperty(
              "latelake.bundle.jar", REPO.resolve("bundle/target/latelake-bundle.jar").toString()));
  private static final Path CLUSTER_SCRIPT = REPO.resolve("scripts/spark-cluster.sh");
  private static final Path DATASET = REPO.resolve("data/ooo-iot-umts/ooo_umts_events.csv.gz");
  private static final Path LOCAL_CONF = REPO.resolve("conf/local.conf");
  private static final String WHOLE_STAGE = "spark.sql.codegen.wholeStage";
  private static final String FACTORY_MODE = "spark.sql.codegen.factoryMode";

  @TempDir static Path tmp;

  private Path clusterDir;
  private String masterUrl;
  private int submits;

  @BeforeAll
  void startCluster() throws Exception {
    assertThat(BUNDLE_JAR).as("the bundle jar (mvn package)").isRegularFile();
    clusterDir = tmp.resolve("cluster");
    Process p =
        new ProcessBuilder(
                CLUSTER_SCRIPT.toString(),
                "start",
                "--dir",
                clusterDir.toString(),
                "--workers",
                "2",
                "--worker-cores",
                "1",
                "--worker-memory",
                "1g")
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(p.waitFor()).as("spark-cluster.sh start (logs in %s)", clusterDir).isZero();
    masterUrl = out.lines().reduce((a, b) -> b).orElse("");
    assertThat(masterUrl).startsWith("spark://127.0.0.1:");
    LOG.info("cluster up: {}", masterUrl);
  }

  @AfterAll
  void stopCluster() throws Exception {
    if (clusterDir == null) {
      return;
    }
    List<ProcessHandle> started = clusterProcesses();
    Process p =
        new ProcessBuilder(CLUSTER_SCRIPT.toString(), "stop", "--dir", clusterDir.toString())
            .inheritIO()
            .start();
    if (!p.waitFor(2, TimeUnit.MINUTES)) {
      p.destroyForcibly();
    }
    // Whatever the script could not stop is stopped here; nothing outlives the test.
    started.forEach(ProcessHandle::destroyForcibly);
    for (ProcessHandle h : started) {
      h.onExit().get(30, TimeUnit.SECONDS);
    }
    assertThat(started).noneMatch(ProcessHandle::isAlive);
  }

  /**
   * @return the master and workers recorded in the pid files, and their executors
   */
  private List<ProcessHandle> clusterProcesses() throws IOException {
    List<ProcessHandle> out = new ArrayList<>();
    try (Stream<Path> files = Files.list(clusterDir)) {
      for (Path f : files.filter(x -> x.toString().endsWith(".pid")).toList()) {
        ProcessHandle.of(Long.parseLong(Files.readString(f).strip()))
            .ifPresent(
                h -> {
                  out.addAll(h.descendants().toList());
                  out.add(h);
                });
      }
    }
    return out;
  }

  @Test
  void goldOnTheClusterEqualsTheLockStepResult() throws Exception {
    List<List<CapturedEvents.Event>> slices =
        ReplayPlan.slices(CapturedEvents.read(DATASET, "arrival_time").subList(0, EVENTS), SLICE);
    assertThat(slices).hasSize(13);
    // The cluster: the fast path with `run --available-now`, then the correction there.
    Path clusterLake = tmp.resolve("cluster-lake");
    Path events = Files.createDirectories(tmp.resolve("event-logs"));
    runFastPathOnCluster(clusterLake, events, slices);
    submit("io.latelake.correction.CorrectMain", clusterLake, events, "--since", "2000-01-01");

    // The same slices in lock step in this JVM, a step where the cluster ran, then `correct`.
    Path localLake = tmp.resolve("local-lake");
    Config local = lakeConfig(localLake);
    FastPath fast = new FastPath(spark, local);
    LandingWriter writer = new LandingWriter(localLake.resolve("landing"));
    long dropped = 0;
    for (int i = 0; i < slices.size(); i++) {
      writer.write(i + 1, slices.get(i));
      if ((i + 1) % SLICES_PER_RUN == 0 || i + 1 == slices.size()) {
        dropped += fast.step().droppedByWatermark();
      }
    }
    CorrectionConfig cc = CorrectionConfig.fromConfig(local);
    CorrectResult corrected =
        new CorrectJob(
                JobContext.start(spark, TableRegistry.fromConfig(local)),
                new CorrectJob.Options(cc, cc.metrics(), Optional.of(Instant.EPOCH)))
            .run();
    LOG.info(
        "lock step: {} slices, {} rows dropped by the watermark, {} gold rows restated",
        slices.size(),
        dropped,
        corrected.rowsChanged());
    long clusterDropped = droppedByWatermark(clusterLake);
    long clusterRestated =
        spark.read().format("delta").load(clusterLake + "/monitoring/corrections_log").count();
    LOG.info(
        "cluster: {} rows dropped by the watermark, {} gold rows restated",
        clusterDropped,
        clusterRestated);

    List<String> clusterGold = goldRows(clusterLake);
    List<String> localGold = goldRows(localLake);
    assertThat(clusterGold).containsExactlyElementsOf(localGold);
    // 2,000 events in 14 ten-second windows: 104 (window, device) rows.
    assertThat(clusterGold).hasSize(104);
    assertThat(clusterGold.stream().mapToLong(r -> Long.parseLong(r.split(" ")[3])).sum())
        .isEqualTo(EVENTS);
    assertThat(spark.read().format("delta").load(clusterLake + "/bronze/events").count())
        .isEqualTo(EVENTS);
    // Both fast paths dropped the same late events and `correct` restated their windows:
    // (dropped, restated) in this JVM, then on the cluster.
    assertThat(List.of(dropped, corrected.rowsChanged(), clusterDropped, clusterRestated))
        .containsExactly(DROPPED, RESTATED, DROPPED, RESTATED);

    assertAppsRanOnExecutors(events);
  }

  /**
   * The fast path on the cluster as a cron job runs it: the slices land in order, and after every
   * {@value #SLICES_PER_RUN} of them (and after the last) one spark-submit of {@code run
   * --available-now} takes bronze, silver and gold to the end of their input and exits 0. Each run
   * resumes from the checkpoints, so a later run filters its late events against the watermark the
   * earlier run left, as a long-running stream does between two micro-batches.
   */
  private void runFastPathOnCluster(
      Path lake, Path eventLogs, List<List<CapturedEvents.Event>> slices) throws Exception {
    LandingWriter landing = new LandingWriter(lake.resolve("landing"));
    for (int i = 0; i < slices.size(); i++) {
      landing.write(i + 1, slices.get(i));
      if ((i + 1) % SLICES_PER_RUN == 0 || i + 1 == slices.size()) {
        submit("io.latelake.app.RunMain", lake, eventLogs, "--available-now");
      }
    }
  }

  /**
   * @return rows dropped by the watermark in silver and gold, from monitoring.stream_progress
   */
  private long droppedByWatermark(Path lake) {
    return spark
        .read()
        .format("delta")
        .load(lake + "/monitoring/stream_progress")
        .filter("query_name NOT LIKE 'bronze%'")
        .selectExpr("coalesce(sum(rows_dropped_by_watermark), 0)")
        .first()
        .getLong(0);
  }

  /**
   * Runs one latelake entry point of the bundle jar with spark-submit on the cluster and expects
   * exit code 0. The command is {@link #submitCommand}; its output goes to a log file next to the
   * cluster's logs, whose last lines a failure shows.
   */
  private void submit(String mainClass, Path lake, Path eventLogs, String... jobArgs)
      throws Exception {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--config",
                LOCAL_CONF.toString(),
                "--set",
                "lake.root=\"" + lake + "\"",
                "--set",
                "lake.bronze.source=files",
                "--set",
                "lake.bronze.files.path=\"" + lake.resolve("landing") + "\"",
                // generated code (Spark's default), named so that no default elsewhere changes it
                "--set",
                "lake.spark.conf.\"" + WHOLE_STAGE + "\"=true",
                "--set",
                "lake.spark.conf.\"" + FACTORY_MODE + "\"=FALLBACK"));
    args.addAll(List.of(jobArgs));
    List<String> command = submitCommand(mainClass, eventLogs, args);
    Path log =
        clusterDir.resolve(
            "submit-"
                + (++submits)
                + "-"
                + mainClass.substring(mainClass.lastIndexOf('.') + 1)
                + ".log");
    LOG.info("spark-submit {} (log {})", mainClass, log);
    long started = System.nanoTime();
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put("SPARK_SUBMIT_OPTS", CHILD_JIT);
    Process p = pb.redirectOutput(log.toFile()).start();
    if (!p.waitFor(SUBMIT_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
      p.destroyForcibly().waitFor();
      throw new AssertionError(
          mainClass
              + " did not finish within "
              + SUBMIT_TIMEOUT_MINUTES
              + " minutes; last lines of "
              + log
              + ":\n"
              + tail(log));
    }
    LOG.info(
        "{} exited {} after {} s",
        mainClass,
        p.exitValue(),
        (System.nanoTime() - started) / 1_000_000_000L);
    assertThat(p.exitValue())
        .as("exit code of %s; last lines of %s:%n%s", mainClass, log, tail(log))
        .isZero();
  }

  /**
   * The spark-submit command for one entry point: {@code org.apache.spark.deploy.SparkSubmit}
   * (through {@code scripts/spark-cluster.sh submit}, which runs it with the cluster's SPARK_HOME)
   * against the master, client deploy mode, the bundle jar, the job's arguments. Each application
   * writes a plain event log into {@code eventLogs}.
   */
  List<String> submitCommand(String mainClass, Path eventLogs, List<String> jobArgs) {
    List<String> command =
        new ArrayList<>(
            List.of(
                CLUSTER_SCRIPT.toString(),
                "submit",
                "--dir",
                clusterDir.toString(),
                "--master",
                masterUrl,
                "--deploy-mode",
                "client",
                "--class",
                mainClass,
                "--conf",
                "spark.ui.enabled=false",
                "--conf",
                "spark.eventLog.enabled=true",
                "--conf",
                "spark.eventLog.dir=" + eventLogs.toUri(),
                "--conf",
                "spark.eventLog.rolling.enabled=false",
                "--conf",
                "spark.eventLog.compress=false",
                "--conf",
                "spark.executor.extraJavaOptions=" + CHILD_JIT,
                BUNDLE_JAR.toString()));
    command.addAll(jobArgs);
    return command;
  }

  /**
   * The master lists the two {@code run} applications and {@code correct} as finished; each
   * application's event log shows two executors added from the workers and tasks that ended on
   * them, none on the driver, and Spark's generated code (whole-stage code generation on, {@code
   * spark.sql.codegen.factoryMode} FALLBACK: the test JVM's lock step evaluates interpreted, so
   * gold's equality checks the two modes against each other).
   */
  private void assertAppsRanOnExecutors(Path eventLogs) throws Exception {
    JsonNode master = masterJson();
    List<String> finished = new ArrayList<>();
    for (JsonNode app : master.get("completedapps")) {
      finished.add(
          app.get("name").asText()
              + " "
              + app.get("state").asText()
              + " "
              + app.get("cores").asInt());
    }
    assertThat(finished)
        .containsExactlyInAnyOrder(
            "latelake-run FINISHED 2", "latelake-run FINISHED 2", "latelake-correct FINISHED 2");
    assertThat(master.get("aliveworkers").asInt()).isEqualTo(2);

    List<String> perApp = new ArrayList<>();
    Set<String> executorsWithTasks = new HashSet<>();
    try (Stream<Path> logs = Files.list(eventLogs)) {
      for (Path log : logs.toList()) {
        String app = null;
        int added = 0;
        int onExecutors = 0;
        int onDriver = 0;
        String codegen = "?";
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
          JsonNode e = JSON.readTree(line);
          switch (e.get("Event").asText()) {
            case "SparkListenerApplicationStart" -> app = e.get("App Name").asText();
            case "SparkListenerEnvironmentUpdate" -> {
              JsonNode props = e.get("Spark Properties");
              codegen =
                  props.path(WHOLE_STAGE).asText("unset")
                      + "/"
                      + props.path(FACTORY_MODE).asText("unset");
            }
            case "SparkListenerExecutorAdded" -> added++;
            case "SparkListenerTaskEnd" -> {
              String executor = e.get("Task Info").get("Executor ID").asText();
              if ("driver".equals(executor)) {
                onDriver++;
              } else {
                onExecutors++;
                executorsWithTasks.add(app + "/" + executor);
              }
            }
            default -> {}
          }
        }
        perApp.add(
            app
                + ": "
                + added
                + " executors, tasks on executors "
                + (onExecutors > 0)
                + ", on the driver "
                + onDriver
                + ", generated code "
                + codegen);
      }
    }
    LOG.info("event logs: {}; executors that ran tasks: {}", perApp, executorsWithTasks);
    String onExecutors =
        ": 2 executors, tasks on executors true, on the driver 0, generated code true/FALLBACK";
    assertThat(perApp)
        .containsExactlyInAnyOrder(
            "latelake-run" + onExecutors,
            "latelake-run" + onExecutors,
            "latelake-correct" + onExecutors);
  }

  private JsonNode masterJson() throws IOException, InterruptedException {
    String webui = Files.readString(clusterDir.resolve("webui")).strip();
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(webui + "/json/"))
                    .timeout(Duration.ofSeconds(30))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  private static Config lakeConfig(Path lake) {
    return ConfigLoader.load(
        Optional.of(LOCAL_CONF),
        List.of(
            "lake.root=\"" + lake + "\"",
            "lake.bronze.source=files",
            "lake.bronze.files.path=\"" + lake.resolve("landing") + "\""));
  }

  /**
   * @return gold rows as "window_start window_end device_id events bytes", sorted
   */
  private List<String> goldRows(Path lake) {
    List<String> out = new ArrayList<>();
    for (Row r :
        spark
            .read()
            .format("delta")
            .load(lake + "/gold/" + METRIC)
            .select(
                col("window_start"),
                col("window_end"),
                col("device_id"),
                col("events"),
                col("bytes"))
            .collectAsList()) {
      out.add(
          ((Timestamp) r.get(0)).toInstant()
              + " "
              + ((Timestamp) r.get(1)).toInstant()
              + " "
              + r.get(2)
              + " "
              + r.get(3)
              + " "
              + r.get(4));
    }
    out.sort(null);
    return out;
  }

  private static String tail(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
  }
}

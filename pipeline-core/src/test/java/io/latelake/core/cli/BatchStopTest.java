package io.latelake.core.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import io.latelake.core.ExitCode;
import io.latelake.core.job.JobContext;
import io.latelake.core.testing.ChildJvm;
import io.latelake.core.testing.SlowJob;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.Command;

/**
 * SIGTERM to a batch command in its own JVM while its Spark job runs: one INFO line, nothing at
 * ERROR, no stack trace, exit 143, and the job cancelled rather than waited for.
 */
class BatchStopTest {
  /** Runs {@code action} on a thread of its own once a Spark job of the command is running. */
  private static void whenAJobRuns(JobContext context, Runnable action) {
    var tracker = context.spark().sparkContext().statusTracker();
    Thread t =
        new Thread(
            () -> {
              try {
                while (tracker.getActiveJobIds().length == 0) {
                  Thread.sleep(20);
                }
                action.run();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    t.setDaemon(true);
    t.start();
  }

  /** A batch command whose one Spark job would take ten minutes. */
  @Command(name = "sleepy")
  public static final class Sleepy extends JobCommand<Void> {
    @Override
    protected Void prepare(Config config) {
      return null;
    }

    @Override
    protected ExitCode run(JobContext context, Void prepared) {
      whenAJobRuns(context, () -> System.out.println("the job is running"));
      SlowJob.tenMinutes(context.spark());
      return ExitCode.OK;
    }

    public static void main(String[] args) {
      System.exit(Launcher.execute(new Sleepy(), args));
    }
  }

  /** A batch command during whose Spark job another thread calls {@code System.exit(7)}. */
  @Command(name = "exiting")
  public static final class Exiting extends JobCommand<Void> {
    @Override
    protected Void prepare(Config config) {
      return null;
    }

    @Override
    protected ExitCode run(JobContext context, Void prepared) {
      whenAJobRuns(context, () -> System.exit(7));
      SlowJob.tenMinutes(context.spark());
      return ExitCode.OK;
    }

    public static void main(String[] args) {
      System.exit(Launcher.execute(new Exiting(), args));
    }
  }

  @Test
  void anExitWithoutASignalIsNotCalledASigterm(@TempDir Path tmp) throws Exception {
    Path log = tmp.resolve("exiting.log");
    Process p = start(Exiting.class, log, tmp.resolve("lake"));
    try {
      assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
      String text = Files.readString(log);
      assertThat(p.exitValue()).as(text).isEqualTo(7);
      assertThat(text)
          .contains(
              " INFO  BatchStop: latelake-exiting stopping (the JVM is exiting without a SIGTERM,"
                  + " SIGINT or SIGHUP, e.g. System.exit): its running Spark jobs are cancelled; each table"
                  + " keeps its last complete commit; run it again to finish its work")
          .doesNotContain("SIGTERM:")
          .doesNotContain(" ERROR ");
    } finally {
      p.destroyForcibly();
    }
  }

  /** A batch command that is still preparing, before its session starts, when SIGTERM comes. */
  @Command(name = "preparing")
  public static final class Preparing extends JobCommand<Void> {
    @Override
    protected Void prepare(Config config) {
      System.out.println("preparing");
      try {
        Thread.sleep(TimeUnit.MINUTES.toMillis(10));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return null;
    }

    @Override
    protected ExitCode run(JobContext context, Void prepared) {
      System.out.println("the session started");
      return ExitCode.OK;
    }

    public static void main(String[] args) {
      System.exit(Launcher.execute(new Preparing(), args));
    }
  }

  @Test
  void sigtermBeforeTheSessionStartsEndsInOneLineWith143(@TempDir Path tmp) throws Exception {
    Path log = tmp.resolve("preparing.log");
    Process p = start(Preparing.class, log, tmp.resolve("lake"));
    try {
      awaitLine(p, log, "preparing");
      p.destroy(); // SIGTERM
      assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
      String text = Files.readString(log);
      assertThat(p.exitValue()).as(text).isEqualTo(143);
      assertThat(text)
          .contains(
              " INFO  BatchStop: latelake-preparing stopping on SIGTERM before its Spark session"
                  + " started: nothing was written")
          .doesNotContain("the session started")
          .doesNotContain(" ERROR ")
          .doesNotContain("\tat ");
      assertThat(Files.exists(tmp.resolve("lake"))).isFalse();
    } finally {
      p.destroyForcibly();
    }
  }

  private static void awaitLine(Process p, Path log, String line) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
    while (!Files.readString(log).contains(line) && p.isAlive() && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertThat(Files.readString(log)).contains(line);
  }

  @Test
  void sigtermCancelsTheJobAndEndsInOneLineWith143(@TempDir Path tmp) throws Exception {
    Path log = tmp.resolve("sleepy.log");
    Process p = start(Sleepy.class, log, tmp.resolve("lake"));
    try {
      awaitLine(p, log, "the job is running");
      p.destroy(); // SIGTERM
      assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
      String text = Files.readString(log);
      assertThat(p.exitValue()).as(text).isEqualTo(143);
      assertThat(text)
          .contains(
              " INFO  BatchStop: latelake-sleepy stopping on SIGTERM: its running Spark jobs are"
                  + " cancelled; each table keeps its last complete commit; run it again to"
                  + " finish its work")
          .doesNotContain(" ERROR ")
          .doesNotContain("\tat ");
    } finally {
      p.destroyForcibly();
    }
  }

  private static Process start(Class<?> main, Path log, Path lake) throws IOException {
    List<String> cmd = new ArrayList<>(ChildJvm.java());
    cmd.addAll(
        List.of(
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-Xmx1g",
            "-Dspark.master=local[2]",
            "-Dspark.ui.enabled=false",
            "-Dlog4j.configurationFile="
                + Path.of("..", "conf", "log4j2-local.properties").toAbsolutePath().normalize(),
            "-cp",
            System.getProperty("java.class.path"),
            main.getName(),
            "--set",
            "lake.root=\"" + lake + "\""));
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    Files.createFile(log);
    return pb.start();
  }
}

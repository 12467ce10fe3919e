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
  /** A batch command whose one Spark job would take ten minutes. */
  @Command(name = "sleepy")
  public static final class Sleepy extends JobCommand<Void> {
    @Override
    protected Void prepare(Config config) {
      return null;
    }

    @Override
    protected ExitCode run(JobContext context, Void prepared) {
      var spark = context.spark();
      Thread marker =
          new Thread(
              () -> {
                try {
                  while (spark.sparkContext().statusTracker().getActiveJobIds().length == 0) {
                    Thread.sleep(20);
                  }
                  System.out.println("the job is running");
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      marker.setDaemon(true);
      marker.start();
      SlowJob.tenMinutes(spark);
      return ExitCode.OK;
    }

    public static void main(String[] args) {
      System.exit(Launcher.execute(new Sleepy(), args));
    }
  }

  @Test
  void sigtermCancelsTheJobAndEndsInOneLineWith143(@TempDir Path tmp) throws Exception {
    Path log = tmp.resolve("sleepy.log");
    Process p = start(log, tmp.resolve("lake"));
    try {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
      while (!Files.readString(log).contains("the job is running")
          && p.isAlive()
          && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertThat(Files.readString(log)).contains("the job is running");
      p.destroy(); // SIGTERM
      assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
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

  private static Process start(Path log, Path lake) throws IOException {
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
            Sleepy.class.getName(),
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

package io.latelake.core.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latelake.core.config.LakeConfigException;
import io.latelake.core.table.TableRegistry;
import io.latelake.core.testing.SlowJob;
import io.latelake.core.testing.SparkTestBase;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A step beside the caller's: its Spark jobs carry its own description while the caller's carry
 * theirs, its value and its exception reach the caller as they are.
 */
class BatchActionTest extends SparkTestBase {
  record Seen(String besideDescription, long besideCount, String callerDescription, long count)
      implements ActionResult {
    @Override
    public String summary() {
      return "seen";
    }
  }

  /** Counts rows beside the caller, and throws from a second step when told to. */
  final class Probe extends BatchAction<Boolean, Seen> {
    Probe(boolean fail) {
      super(
          "probe", JobContext.start(BatchActionTest.this.spark, new TableRegistry("unused")), fail);
    }

    @Override
    public Seen run() {
      Beside<List<Object>> counted =
          beside(
              "count beside",
              () ->
                  List.of(
                      spark.sparkContext().getLocalProperty("spark.job.description"),
                      spark.range(1000).count()));
      Beside<Long> failing =
          beside(
              "fail beside",
              () -> {
                if (options) {
                  throw new LakeConfigException("no such table");
                }
                return 0L;
              });
      List<Object> sideways = counted.join();
      String caller =
          step("count here", () -> spark.sparkContext().getLocalProperty("spark.job.description"));
      long here = step("count here", () -> spark.range(10).count());
      failing.join();
      return new Seen((String) sideways.get(0), (Long) sideways.get(1), caller, here);
    }
  }

  @Test
  void aStepBesideGivesItsValueAndItsOwnJobDescription() {
    Probe probe = new Probe(false);
    Seen seen = probe.run();
    assertThat(seen.besideDescription()).isEqualTo(probe.runId() + ": count beside");
    assertThat(seen.besideCount()).isEqualTo(1000);
    assertThat(seen.callerDescription()).isEqualTo(probe.runId() + ": count here");
    assertThat(seen.count()).isEqualTo(10);
    assertThat(spark.sparkContext().getLocalProperty("spark.job.description")).isNull();
  }

  /** Runs a Spark job beside that would take ten minutes, and fails once that job is running. */
  final class FailingCaller extends BatchAction<Boolean, Seen> {
    Beside<Long> slow;

    FailingCaller() {
      super(
          "caller",
          JobContext.start(BatchActionTest.this.spark, new TableRegistry("unused")),
          true);
    }

    @Override
    public Seen run() {
      try (Beside<Long> slow = beside("ten minutes beside", () -> SlowJob.tenMinutes(spark))) {
        this.slow = slow;
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (spark.sparkContext().statusTracker().getActiveJobIds().length == 0
            && System.nanoTime() < deadline) {
          sleep(20);
        }
        throw new LakeConfigException("the caller failed first");
      }
    }
  }

  @Test
  void aStepBesideIsCancelledWhenTheCallerFailsFirst() throws InterruptedException {
    FailingCaller caller = new FailingCaller();
    assertThatThrownBy(caller::run)
        .isExactlyInstanceOf(LakeConfigException.class)
        .hasMessage("the caller failed first");
    // The status tracker hears of the job's end from Spark's listener bus, a moment later; without
    // the cancellation the job would run ten minutes.
    assertThat(activeJobsAfterAtMost(Duration.ofSeconds(30))).isEmpty();
    assertThatThrownBy(() -> caller.slow.join())
        .isExactlyInstanceOf(IllegalStateException.class)
        .hasMessage("The step ten minutes beside was cancelled");
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private int[] activeJobsAfterAtMost(Duration wait) throws InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    int[] active = spark.sparkContext().statusTracker().getActiveJobIds();
    while (active.length > 0 && System.nanoTime() < deadline) {
      Thread.sleep(100);
      active = spark.sparkContext().statusTracker().getActiveJobIds();
    }
    return active;
  }

  @Test
  void aStepBesideThrowsItsOwnExceptionAtJoin() {
    assertThatThrownBy(() -> new Probe(true).run())
        .isExactlyInstanceOf(LakeConfigException.class)
        .hasMessage("no such table");
  }
}

package io.latelake.core.testing;

import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.SparkSession;

/** A Spark job that would take ten minutes: what a test cancels. */
public final class SlowJob {
  private SlowJob() {}

  /**
   * Runs one task that waits ten minutes unless Spark kills it (its job cancelled): it checks
   * {@link TaskContext#isInterrupted()} every 100 ms, as Spark's own tasks check between records.
   *
   * @return 1, the rows counted, when it was not cancelled
   * @throws org.apache.spark.SparkException (unchecked in Java) when its job is cancelled
   */
  public static long tenMinutes(SparkSession spark) {
    return spark
        .range(0, 1, 1, 1)
        .map(
            (MapFunction<Long, Long>)
                x -> {
                  long end = System.nanoTime() + 600_000_000_000L;
                  while (!TaskContext.get().isInterrupted() && System.nanoTime() < end) {
                    Thread.sleep(100);
                  }
                  return x;
                },
            Encoders.LONG())
        .count();
  }
}

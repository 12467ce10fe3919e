package io.latelake.bench;

import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.SparkSession;

/** Sums the durations of the Spark tasks that end (a listener on the driver's event bus). */
final class TaskTime extends SparkListener {
  private final AtomicLong millis = new AtomicLong();

  @Override
  public void onTaskEnd(SparkListenerTaskEnd end) {
    millis.addAndGet(end.taskInfo().duration());
  }

  void reset(SparkSession spark) {
    drain(spark);
    millis.set(0);
  }

  /**
   * @return the seconds of the tasks that ended since {@link #reset}, once the events posted so far
   *     have reached this listener
   */
  double seconds(SparkSession spark) {
    drain(spark);
    return millis.get() / 1000.0;
  }

  private static void drain(SparkSession spark) {
    try {
      spark.sparkContext().listenerBus().waitUntilEmpty(60_000);
    } catch (TimeoutException e) {
      throw new BenchException("Spark's listener bus did not drain within 60 s", e);
    }
  }
}

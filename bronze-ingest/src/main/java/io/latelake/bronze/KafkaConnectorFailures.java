package io.latelake.bronze;

import io.latelake.core.streaming.RestartableFailure;
import io.latelake.core.streaming.StreamProgressTable;

/** The Kafka connector's known failures that a restart on the checkpoint gets past. */
final class KafkaConnectorFailures {
  private KafkaConnectorFailures() {}

  /** Restarts after the metrics failure, per query and run. */
  static final int MAX_RESTARTS = 3;

  /**
   * The Kafka connector of Spark 4.1.1 to 4.2.0 fails with a {@link NullPointerException} in {@code
   * KafkaMicroBatchStream$.metrics} when it reports progress for a micro-batch it replayed from the
   * offset log after a crash: replaying does not call {@code latestOffset()}, which sets the field
   * {@code metrics} reads (apache/spark issue 55236; fixed by pull requests 56526 / 58133, not yet
   * in a served release). The failure comes after the micro-batch was committed, so restarting the
   * query on its checkpoint continues with the next micro-batch and the failure does not recur. We
   * restart rather than prevent the call: preventing it would mean patching the connector, or
   * dropping the planned micro-batch from the offset log so Spark plans it afresh — and the Delta
   * sink, idempotent per batch id, would then skip a re-planned batch with other offsets and lose
   * records. Remove this (and {@code kafka-metrics-npe}) once a connector with the fix is served.
   */
  static final RestartableFailure METRICS_NPE =
      new RestartableFailure(
          StreamProgressTable.RECOVERY_KAFKA_METRICS,
          KafkaConnectorFailures::isMetricsNpe,
          MAX_RESTARTS,
          "Kafka connector failed reporting metrics",
          "known Spark bug, apache/spark issue 55236");

  /**
   * @return true when {@code e} is exactly the failure of {@link #METRICS_NPE}
   */
  static boolean isMetricsNpe(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof NullPointerException) {
        for (StackTraceElement f : t.getStackTrace()) {
          if (f.getClassName().equals("org.apache.spark.sql.kafka010.KafkaMicroBatchStream$")
              && f.getMethodName().equals("metrics")) {
            return true;
          }
        }
      }
    }
    return false;
  }
}

package io.latelake.core.streaming;

import java.util.function.Predicate;

/**
 * A known failure of a query's source that comes after the micro-batch was committed, so that
 * restarting the query on its checkpoint continues with the next micro-batch. {@link StreamRunner}
 * restarts a query that ends with it (at most {@code maxRestarts} times per query and run, and only
 * when the checkpoint's last planned micro-batch is committed) and has the micro-batches whose
 * progress report it lost recorded with {@code recovery} ({@link ProgressRecorder#recordMissing}).
 * Any other failure fails the run. A source declares the failures it knows ({@link StreamPlan}).
 *
 * @param recovery the {@code recovery} value of the progress rows written for the lost reports,
 *     e.g. {@code kafka-metrics-npe}
 * @param matches true for an exception (with its causes) that is exactly this failure
 * @param maxRestarts restarts per query in one {@link StreamRunner} run (a lock-step step is a run)
 * @param failure what failed, for the WARN line of each restart, e.g. {@code Kafka connector failed
 *     reporting metrics}
 * @param reference why it is known, e.g. {@code known Spark bug, apache/spark issue 55236}
 */
public record RestartableFailure(
    String recovery,
    Predicate<Throwable> matches,
    int maxRestarts,
    String failure,
    String reference) {}

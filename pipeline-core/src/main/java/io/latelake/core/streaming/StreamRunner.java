package io.latelake.core.streaming;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a job's streaming queries in one Spark application, records their progress to {@code
 * monitoring.stream_progress} (see {@link ProgressRecorder}), supervises them and returns what each
 * did. Available-now queries end by themselves; processing-time queries run until the process is
 * stopped (SIGTERM: {@link GracefulStop}).
 *
 * <p><b>Failures.</b> When a query fails, the others are stopped and {@link StreamFailedException}
 * (exit 1) names the query and the reason — unless the failure is one its source declares
 * restartable ({@link RestartableFailure}, e.g. the Kafka connector's metrics failure): then the
 * query is restarted on its checkpoint.
 */
public final class StreamRunner {
  private static final Logger LOG = LoggerFactory.getLogger(StreamRunner.class);

  static final Duration LISTENER_WAIT = Duration.ofSeconds(30);

  /**
   * A query to start.
   *
   * @param queryName its name (matches {@code DataStreamWriter.queryName})
   * @param checkpoint its checkpoint folder
   * @param start starts it (called again to restart it on the same checkpoint)
   * @param restartOn its source's failures after which it is restarted ({@link StreamPlan})
   * @param watermarkDelay its watermark delay in this start (recorded with its micro-batches),
   *     empty without a watermark
   */
  public record Start(
      String queryName,
      String checkpoint,
      Supplier<StreamingQuery> start,
      List<RestartableFailure> restartOn,
      java.util.Optional<Duration> watermarkDelay) {
    /** A query without restartable failures and without a watermark. */
    public Start(String queryName, String checkpoint, Supplier<StreamingQuery> start) {
      this(queryName, checkpoint, start, List.of(), java.util.Optional.empty());
    }

    /** A query without a watermark. */
    public Start(
        String queryName,
        String checkpoint,
        Supplier<StreamingQuery> start,
        List<RestartableFailure> restartOn) {
      this(queryName, checkpoint, start, restartOn, java.util.Optional.empty());
    }
  }

  private StreamRunner() {}

  /**
   * Runs the queries with a progress recorder of their own, and returns once every progress row is
   * written.
   *
   * @param spark the session
   * @param progressTable path of {@code monitoring.stream_progress}
   * @param starts the queries
   * @return one summary per query, in the order given (summed over restarts)
   * @throws StreamFailedException (exit code 1) when a query fails; the others are stopped first
   */
  public static List<StreamSummary> run(
      SparkSession spark, String progressTable, List<Start> starts) {
    Set<String> names = starts.stream().map(Start::queryName).collect(Collectors.toSet());
    ProgressRecorder recorder = new ProgressRecorder(spark, progressTable, names).start();
    return run(spark, progressTable, starts, recorder, true);
  }

  /**
   * {@link #run(SparkSession, String, List)} with a progress recorder shared by several runs (the
   * lock-step fast path): it follows this run's queries while they run, and its rows are written in
   * the background, so rows of consecutive runs share commits; its owner calls {@link
   * ProgressRecorder#flush()} before reading {@code monitoring.stream_progress} and closes it.
   *
   * @param sharedProgress a started recorder writing to {@code progressTable}
   */
  public static List<StreamSummary> run(
      SparkSession spark,
      String progressTable,
      List<Start> starts,
      ProgressRecorder sharedProgress) {
    Set<String> names = starts.stream().map(Start::queryName).collect(Collectors.toSet());
    return run(spark, progressTable, starts, sharedProgress.follow(names), false);
  }

  private static List<StreamSummary> run(
      SparkSession spark,
      String progressTable,
      List<Start> starts,
      ProgressRecorder recorder,
      boolean own) {
    Map<String, StreamingQuery> queries = new LinkedHashMap<>();
    Map<String, List<StreamingQuery>> runs = new LinkedHashMap<>();
    GracefulStop stop =
        new GracefulStop(
            () -> {
              synchronized (queries) {
                return List.copyOf(queries.values());
              }
            },
            stopped -> {
              for (StreamingQuery q : stopped) {
                recorder.awaitTerminated(q.runId(), LISTENER_WAIT);
              }
              if (own) {
                recorder.close();
              } else {
                recorder.flush();
              }
              LOG.info("Stopped {}; progress recorded in {}", queries.keySet(), progressTable);
            });
    try {
      for (Start s : starts) {
        recorder.recordMissing(s.queryName(), s.checkpoint(), StreamProgressTable.RECOVERY_KILLED);
        recorder.watermarkDelay(s.queryName(), s.watermarkDelay());
        StreamingQuery q;
        synchronized (queries) {
          // The stop hook marks the stop, then reads the running queries under this lock: a query
          // is either started before that read (and stopped by the hook) or not started at all.
          if (stop.requested()) {
            break;
          }
          LOG.info("Starting stream {}", s.queryName());
          q = s.start().get();
          queries.put(s.queryName(), q);
        }
        runs.computeIfAbsent(s.queryName(), k -> new ArrayList<>()).add(q);
      }
      QuerySupervisor.supervise(spark, starts, queries, runs, recorder, stop);
      if (stop.requested()) {
        stop.awaitDone();
      }
      List<StreamSummary> out = new ArrayList<>();
      for (Start s : starts) {
        out.add(
            summary(
                s.queryName(),
                runs.getOrDefault(s.queryName(), List.of()),
                recorder,
                stop.requested()));
      }
      return out;
    } catch (RuntimeException e) {
      if (stop.requested()) {
        // SIGTERM while starting: the hook stops what runs; nothing failed.
        stop.awaitDone();
        return starts.stream().map(s -> new StreamSummary(s.queryName(), 0, 0, 0, "")).toList();
      }
      throw e;
    } finally {
      if (!stop.requested()) {
        stop.unregister();
        synchronized (queries) {
          queries.values().forEach(StreamRunner::stopQuietly);
        }
        if (own) {
          recorder.close();
        } else {
          recorder.unfollow(starts.stream().map(Start::queryName).collect(Collectors.toSet()));
        }
      }
    }
  }

  private static StreamSummary summary(
      String name, List<StreamingQuery> queryRuns, ProgressRecorder recorder, boolean stopping) {
    long batches = 0;
    long input = 0;
    long dropped = 0;
    String watermark = "";
    for (StreamingQuery q : queryRuns) {
      // Every progress event of a run comes before its termination event (the listener bus keeps
      // their order). Waiting for the last progress instead would wait in vain after a run
      // without new data: Spark reports its idle trigger in lastProgress() but posts it to
      // listeners as a QueryIdleEvent, not as progress.
      if (!stopping && !recorder.awaitTerminated(q.runId(), LISTENER_WAIT)) {
        LOG.warn(
            "[{}] the progress listener did not see run {} end within {} s: this summary may "
                + "miss its last micro-batches",
            name,
            q.runId(),
            LISTENER_WAIT.toSeconds());
      }
      StreamSummary s = recorder.summary(name, q.runId());
      batches += s.batches();
      input += s.inputRows();
      dropped += s.droppedByWatermark();
      if (!s.watermark().isEmpty()) {
        watermark = s.watermark();
      }
    }
    return new StreamSummary(name, batches, input, dropped, watermark);
  }

  static void stopQuietly(StreamingQuery q) {
    try {
      q.stop();
    } catch (Exception e) {
      LOG.warn("Could not stop {}: {}", q.name(), e.getMessage());
    }
  }
}

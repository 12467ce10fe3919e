package io.latelake.core.streaming;

import io.latelake.core.ExitCode;
import io.latelake.core.LatelakeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a job's streaming queries, records their progress to {@code monitoring.stream_progress},
 * waits for them (available-now queries end by themselves; processing-time queries run until
 * stopped, e.g. by SIGTERM) and returns what each did.
 */
public final class StreamRunner {
  private static final Logger LOG = LoggerFactory.getLogger(StreamRunner.class);

  /**
   * A query to start.
   *
   * @param queryName its name (matches {@code DataStreamWriter.queryName})
   * @param start starts it
   */
  public record Start(String queryName, Supplier<StreamingQuery> start) {}

  private StreamRunner() {}

  /**
   * @param spark the session
   * @param progressTable path of {@code monitoring.stream_progress}
   * @param flushEvery how often to flush progress rows while running (zero: only at the end)
   * @param starts the queries
   * @return one summary per query, in the order given
   * @throws LatelakeException (exit code 1) when a query fails; the others are stopped first
   */
  public static List<StreamSummary> run(SparkSession spark, String progressTable,
      Duration flushEvery, List<Start> starts) {
    Map<String, StreamingQuery> queries = new LinkedHashMap<>();
    ProgressRecorder recorder = new ProgressRecorder(spark, progressTable,
        starts.stream().map(Start::queryName).collect(java.util.stream.Collectors.toSet()))
        .start(flushEvery);
    Thread hook = new Thread(() -> queries.values().forEach(q -> {
      try {
        q.stop();
      } catch (Exception e) {
        // shutting down
      }
    }), "latelake-stop-streams");
    Runtime.getRuntime().addShutdownHook(hook);
    List<StreamSummary> out = new ArrayList<>();
    try {
      for (Start s : starts) {
        LOG.info("Starting stream {}", s.queryName());
        queries.put(s.queryName(), s.start().get());
      }
      for (StreamingQuery q : queries.values()) {
        q.awaitTermination();
      }
      for (StreamingQuery q : queries.values()) {
        StreamingQueryProgress last = q.lastProgress();
        if (last != null) {
          recorder.awaitBatch(q.id(), last.batchId(), Duration.ofSeconds(30));
        }
        out.add(recorder.summary(q.name(), q.runId()));
      }
      return out;
    } catch (StreamingQueryException e) {
      queries.values().forEach(StreamRunner::stopQuietly);
      throw new LatelakeException("Stream failed: " + e.getMessage(), ExitCode.RUNTIME_FAILURE, e);
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // already shutting down
      }
      recorder.close();
    }
  }

  private static void stopQuietly(StreamingQuery q) {
    try {
      q.stop();
    } catch (Exception e) {
      LOG.warn("Could not stop {}: {}", q.name(), e.getMessage());
    }
  }
}

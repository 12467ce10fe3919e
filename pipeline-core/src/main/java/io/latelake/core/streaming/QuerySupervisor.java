package io.latelake.core.streaming;

import io.latelake.core.streaming.StreamRunner.Start;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The supervision loop of {@link StreamRunner}: waits for the running queries, restarts a query on
 * its checkpoint after a failure its source declares restartable ({@link RestartableFailure}) once
 * its last planned micro-batch is committed, and otherwise stops the others and throws {@link
 * StreamFailedException} (exit 1) naming the failed query and the root cause.
 */
final class QuerySupervisor {
  private static final Logger LOG = LoggerFactory.getLogger(QuerySupervisor.class);

  /** How long one wait for a query's end lasts before the queries are looked at again. */
  private static final Duration POLL = Duration.ofMillis(200);

  private QuerySupervisor() {}

  /**
   * Returns when every query has ended (or a stop was requested and the queries ended).
   *
   * @param queries the running query of each name, replaced on a restart (guarded by itself)
   * @param runs every run of each name, a restart appended
   * @throws StreamFailedException when a query failed and is not restarted
   */
  static void supervise(
      SparkSession spark,
      List<Start> starts,
      Map<String, StreamingQuery> queries,
      Map<String, List<StreamingQuery>> runs,
      ProgressRecorder recorder,
      GracefulStop stop) {
    Map<String, Integer> restarts = new HashMap<>();
    Map<String, Start> byName = starts.stream().collect(Collectors.toMap(Start::queryName, s -> s));
    while (true) {
      List<StreamingQuery> current;
      synchronized (queries) {
        current = List.copyOf(queries.values());
      }
      // Every ended query is judged before deciding that all have ended: a lone query (bronze,
      // silver or gold started alone) that fails restartably is restarted here too.
      boolean restarted = false;
      for (StreamingQuery q : current) {
        if (q.isActive() || q.exception().isEmpty() || stop.requested()) {
          continue;
        }
        StreamingQueryException e = q.exception().get();
        Start s = byName.get(q.name());
        int n = restarts.getOrDefault(q.name(), 0);
        var known = s.restartOn().stream().filter(f -> f.matches().test(e)).findFirst();
        if (known.isPresent() && n < known.get().maxRestarts() && batchCommitted(spark, s)) {
          restarts.put(q.name(), n + 1);
          LOG.warn(
              "[{}] {} after micro-batch {} was committed ({}); restarting the query from its "
                  + "checkpoint ({} of at most {})",
              q.name(),
              known.get().failure(),
              new Checkpoints(spark, s.checkpoint()).lastCommitted().orElse(-1),
              known.get().reference(),
              n + 1,
              known.get().maxRestarts());
          recorder.awaitTerminated(q.runId(), StreamRunner.LISTENER_WAIT);
          recorder.recordMissing(q.name(), s.checkpoint(), known.get().recovery());
          StreamingQuery again;
          synchronized (queries) {
            if (stop.requested()) {
              continue; // the stop came meanwhile: nothing more starts (see StreamRunner)
            }
            again = s.start().get();
            queries.put(q.name(), again);
          }
          runs.get(q.name()).add(again);
          restarted = true;
        } else {
          failed(q, queries, stop);
        }
      }
      if (!restarted && current.stream().noneMatch(StreamingQuery::isActive)) {
        return;
      }
      try {
        spark.streams().awaitAnyTermination(POLL.toMillis());
      } catch (StreamingQueryException e) {
        // handled in the next round
      }
      spark.streams().resetTerminated();
    }
  }

  private static void failed(
      StreamingQuery q, Map<String, StreamingQuery> queries, GracefulStop stop) {
    StreamingQueryException e = q.exception().get();
    List<String> others;
    synchronized (queries) {
      others =
          queries.values().stream()
              .filter(o -> o != q && o.isActive())
              .map(StreamingQuery::name)
              .toList();
      queries.values().stream().filter(o -> o != q).forEach(StreamRunner::stopQuietly);
    }
    if (stop.requested()) {
      return;
    }
    String reason = rootMessage(e);
    throw new StreamFailedException(
        "Stream "
            + q.name()
            + " failed: "
            + reason
            + (others.isEmpty() ? "" : "; stopped " + String.join(", ", others)),
        e);
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String own =
        e.getMessage() == null
            ? e.toString()
            : e.getMessage().lines().findFirst().orElse(e.toString());
    return t == e ? own : own + " (cause: " + t + ")";
  }

  private static boolean batchCommitted(SparkSession spark, Start s) {
    Checkpoints cp = new Checkpoints(spark, s.checkpoint());
    var planned = cp.lastPlanned();
    return planned.isPresent() && cp.lastCommitted().equals(planned);
  }
}

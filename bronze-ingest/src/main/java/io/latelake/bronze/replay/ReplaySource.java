package io.latelake.bronze.replay;

import io.latelake.core.config.LakeConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * Options that choose what to replay and how to slice it, shared by {@code replay} and {@code
 * demo}: the dataset, its arrival-time column, the arrival time per slice, a limit.
 */
public final class ReplaySource {
  @Option(
      names = "--dataset",
      defaultValue = "data/ooo-iot-umts/ooo_umts_events.csv.gz",
      paramLabel = "FILE",
      description =
          "Captured CSV or CSV.gz with a header row. A relative "
              + "path not found here is looked up under LATELAKE_HOME. Default: ${DEFAULT-VALUE}.")
  Path dataset;

  @Option(
      names = "--arrival-field",
      defaultValue = "arrival_time",
      paramLabel = "COLUMN",
      description =
          "Column with the arrival (enqueued) time, ISO-8601 UTC. Default: ${DEFAULT-VALUE}.")
  String arrivalField;

  @Option(
      names = "--slice",
      defaultValue = "PT2M",
      paramLabel = "DURATION",
      description =
          "Arrival time per slice = per micro-batch (ISO-8601 duration: PT30S, PT1H, "
              + "P30D). Default: ${DEFAULT-VALUE}.")
  Duration slice;

  @Option(
      names = "--limit",
      defaultValue = "0",
      paramLabel = "N",
      description = "Replay only the first N events in arrival order (0: all).")
  int limit;

  /**
   * @return the dataset path, resolved against LATELAKE_HOME when relative and not found
   */
  public Path dataset() {
    String home = System.getenv("LATELAKE_HOME");
    if (!dataset.isAbsolute() && !Files.exists(dataset) && home != null) {
      return Path.of(home).resolve(dataset);
    }
    return dataset;
  }

  public Duration slice() {
    return slice;
  }

  /**
   * Reads the dataset and cuts it into slices.
   *
   * @return the slices, in arrival order
   * @throws LakeConfigException on a non-positive slice, a negative limit or an unreadable file
   */
  public List<List<CapturedEvents.Event>> slices() {
    if (slice.isZero() || slice.isNegative()) {
      throw LakeConfigException.invalid("--slice", slice, "must be a positive duration");
    }
    if (limit < 0) {
      throw LakeConfigException.invalid("--limit", limit, "must be 0 or more");
    }
    List<CapturedEvents.Event> events = CapturedEvents.read(dataset(), arrivalField);
    if (limit > 0 && events.size() > limit) {
      events = events.subList(0, limit);
    }
    return ReplayPlan.slices(events, slice);
  }
}

package io.latelake.app;

import static io.latelake.app.LakeFixture.goldRows;
import static io.latelake.app.LakeFixture.ids;

import com.typesafe.config.Config;
import io.latelake.bronze.BronzeConfig;
import io.latelake.bronze.BronzeJob;
import io.latelake.bronze.replay.LandingWriter;
import io.latelake.core.config.ConfigLoader;
import io.latelake.core.job.JobContext;
import io.latelake.core.streaming.ProgressRecorder;
import io.latelake.core.streaming.StreamRunner;
import io.latelake.core.streaming.StreamSummary;
import io.latelake.core.table.TableRegistry;
import io.latelake.gold.GoldConfig;
import io.latelake.gold.GoldJob;
import io.latelake.silver.SilverConfig;
import io.latelake.silver.SilverJob;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.SparkSession;

/**
 * A lake fed by one landing folder per source, each its own bronze query, driven in lock step: each
 * {@link #step} runs the bronze queries together, then silver, then gold, each to the end of its
 * input (available-now). Events carry their enqueued time in the payload field {@code
 * enqueued_time}; both watermark delays are 10 minutes, and gold has one metric, {@code page_5m}
 * (5-minute windows by page: events, value_sum).
 *
 * <p>As {@link FastPath#step()}, the stages share one progress recorder that writes a step's rows
 * to {@code monitoring.stream_progress} in one append when the step ends (or fails). One lake runs
 * at a time in a session: the recorder follows the queries by name while they run.
 */
final class LockStepLake implements AutoCloseable {
  final Path root;
  final Config config;
  final JobContext context;
  private final SparkSession spark;
  private final Map<String, BronzeConfig> bronze = new LinkedHashMap<>();
  private final Map<String, LandingWriter> landing = new LinkedHashMap<>();
  private final ProgressRecorder progress;
  long silverDropped;
  long goldDropped;
  private int files;

  /**
   * @param sources the bronze sources, one landing folder and bronze query each
   * @param sets further {@code --set} lines (e.g. {@code lake.sources=[a, b]})
   */
  LockStepLake(SparkSession spark, Path root, List<String> sources, String... sets) {
    this.spark = spark;
    this.root = root;
    config = load(root, sets);
    for (String s : sources) {
      Path folder = root.resolve("landing-" + s);
      try {
        Files.createDirectories(folder);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      landing.put(s, new LandingWriter(folder));
      List<String> own = new ArrayList<>(List.of(sets));
      own.add("lake.event.source-name=" + s);
      own.add("lake.bronze.files.path=\"" + folder + "\"");
      bronze.put(s, BronzeConfig.fromConfig(load(root, own.toArray(String[]::new))));
    }
    context = JobContext.start(spark, TableRegistry.fromConfig(config));
    progress =
        new ProgressRecorder(spark, context.tables().streamProgress(), java.util.Set.of())
            .writeOnFlush()
            .start();
  }

  /** Lands one file of JSON lines for {@code source} (ignored when the lake has no such source). */
  void land(String source, String... lines) {
    if (landing.containsKey(source)) {
      landing.get(source).writeLines(String.format("batch-%04d.jsonl", ++files), List.of(lines));
    }
  }

  /** One lock step with {@link #config}. */
  void step() {
    step(config);
  }

  /** One lock step, silver and gold with {@code layers} (e.g. a changed setting). */
  void step(Config layers) {
    // the bronze queries start together, as `latelake run` starts its queries: each checks its
    // checkpoint before the other writes to bronze
    List<StreamRunner.Start> starts = new ArrayList<>();
    for (BronzeConfig b : bronze.values()) {
      starts.addAll(new BronzeJob(context, b).starts());
    }
    try {
      StreamRunner.run(spark, context.tables().streamProgress(), starts, progress);
      silverDropped +=
          new SilverJob(context, SilverConfig.fromConfig(layers))
              .run(progress)
              .summary()
              .droppedByWatermark();
      for (StreamSummary g :
          new GoldJob(context, GoldConfig.fromConfig(layers)).run(progress).summaries()) {
        goldDropped += g.droppedByWatermark();
      }
    } finally {
      progress.flush();
    }
  }

  /** Writes what the progress recorder holds and removes its listener from the session. */
  @Override
  public void close() {
    progress.close();
  }

  List<String> silverIds() {
    return ids(spark, root + "/silver/events");
  }

  /**
   * @return ids of valid bronze rows that are not in silver (the data has no duplicates)
   */
  List<String> droppedIds() {
    List<String> bronzeIds =
        new ArrayList<>(
            spark
                .read()
                .format("delta")
                .load(root + "/bronze/events")
                .filter("error IS NULL")
                .select("event_id")
                .as(Encoders.STRING())
                .collectAsList());
    bronzeIds.removeAll(silverIds());
    bronzeIds.sort(null);
    return bronzeIds;
  }

  /**
   * @return gold {@code page_5m} as "page window_start events value_sum", sorted
   */
  List<String> gold() {
    return goldRows(spark, root + "/gold/page_5m");
  }

  /**
   * @return the watermark (UTC, ISO-8601) {@code query} reported last in {@code
   *     monitoring.stream_progress}, "none" before its first
   */
  String watermark(String query) {
    return LakeFixture.lastWatermark(spark, root, query);
  }

  private static Config load(Path root, String... extra) {
    List<String> sets =
        new ArrayList<>(
            List.of(
                "lake.root=\"" + root + "\"",
                "lake.spark.shuffle-partitions=2",
                "lake.bronze.source=files",
                "lake.bronze.files.path=\"" + root.resolve("landing") + "\"",
                "lake.bronze.files.enqueued-time=payload-field",
                "lake.bronze.files.enqueued-time-field=enqueued_time",
                "lake.event.fields=[{name=page, type=string}, {name=value, type=long}]",
                "lake.event.future-skew-tolerance=\"5 minutes\"",
                "lake.silver.watermark-delay=\"10 minutes\"",
                "lake.gold.watermark-delay=\"10 minutes\"",
                "lake.gold.metrics.page_5m={window=\"5 minutes\", group-by=[page], measures=["
                    + "{name=events, function=count}, {name=value_sum, function=sum, column=value}]}"));
    sets.addAll(List.of(extra));
    return ConfigLoader.load(Optional.empty(), sets);
  }
}

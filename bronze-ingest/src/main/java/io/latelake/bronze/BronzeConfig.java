package io.latelake.bronze;

import com.typesafe.config.Config;
import io.latelake.core.config.LakeConfigException;
import io.latelake.core.config.Settings;
import io.latelake.core.event.EventSchema;
import io.latelake.core.streaming.TriggerSpec;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Typed, validated view of {@code lake.bronze} and {@code lake.event}.
 *
 * @param source where records come from ({@code lake.bronze.source})
 * @param trigger the stream's trigger
 * @param event the event schema
 * @param filesPath landing folder (files source)
 * @param enqueuedTimeField payload field of the enqueued time, when the source is files and {@code
 *     lake.bronze.files.enqueued-time = payload-field}; empty otherwise
 * @param maxFilesPerTrigger files per micro-batch (files source)
 * @param bootstrapServers Kafka broker addresses
 * @param topics Kafka topics
 * @param startingOffsets earliest or latest
 * @param maxOffsetsPerTrigger records per micro-batch, 0 for no bound
 * @param kafkaOptions options of Spark's Kafka source from {@code lake.bronze.kafka.properties}
 *     (validated by {@link KafkaOptions}): consumer properties as {@code kafka.<name>}, with {@code
 *     kafka.isolation.level=read_committed} unless configured otherwise
 */
public record BronzeConfig(
    Source source,
    TriggerSpec trigger,
    EventSchema event,
    String filesPath,
    Optional<String> enqueuedTimeField,
    int maxFilesPerTrigger,
    String bootstrapServers,
    List<String> topics,
    String startingOffsets,
    long maxOffsetsPerTrigger,
    Map<String, String> kafkaOptions) {

  /** Where bronze records come from: {@code lake.bronze.source}. */
  public enum Source {
    /** A landing folder of JSON-lines files ({@code lake.bronze.files}). */
    FILES,
    /** Kafka topics ({@code lake.bronze.kafka}). */
    KAFKA;

    /**
     * @return the value in the config: {@code files} or {@code kafka}
     */
    public String configName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * @param root the effective config
   * @return the validated bronze config
   * @throws LakeConfigException naming the first bad key and value
   */
  public static BronzeConfig fromConfig(Config root) {
    EventSchema event = EventSchema.fromConfig(root);
    Settings b = Settings.of(root).sub("lake.bronze");
    Source source =
        Source.valueOf(
            b.oneOf("source", Set.of("files", "kafka")).toUpperCase(java.util.Locale.ROOT));
    TriggerSpec trigger = TriggerSpec.fromConfig(b);
    Settings f = b.sub("files");
    String mode = f.oneOf("enqueued-time", Set.of("payload-field", "modification-time"));
    // Kafka records carry the broker's timestamp; a payload field only serves the files source.
    Optional<String> enqField =
        source == Source.FILES && mode.equals("payload-field")
            ? Optional.of(f.string("enqueued-time-field"))
            : Optional.empty();
    if (enqField.isPresent()
        && (enqField.get().equals(event.idField()) || enqField.get().equals(event.timeField()))) {
      throw LakeConfigException.invalid(
          f.key("enqueued-time-field"),
          enqField.get(),
          "must differ from the event id and event time fields");
    }
    Settings k = b.sub("kafka");
    Map<String, String> kafkaOptions =
        KafkaOptions.sourceOptions(k.key("properties"), k.optionMap("properties"));
    List<String> topics = k.strings("topics");
    if (source == Source.KAFKA && topics.isEmpty()) {
      throw LakeConfigException.invalid(k.key("topics"), topics, "name at least one topic");
    }
    for (int i = 0; i < topics.size(); i++) {
      KafkaOptions.requireLegalTopic(k.key("topics") + "[" + i + "]", topics.get(i));
    }
    io.latelake.core.config.ConfigChecks.describe(
        k.key("topics"), "list of legal Kafka topic names (not empty with source = kafka)");
    return new BronzeConfig(
        source,
        trigger,
        event,
        f.string("path"),
        enqField,
        f.intBetween("max-files-per-trigger", 1, 1_000_000),
        k.string("bootstrap-servers"),
        topics,
        k.oneOf("starting-offsets", Set.of("earliest", "latest")),
        k.longBetween("max-offsets-per-trigger", 0, Long.MAX_VALUE),
        Map.copyOf(kafkaOptions));
  }

  /**
   * @return the Kafka properties an admin client also knows (for topic checks)
   */
  public Map<String, Object> kafkaAdminProperties() {
    return KafkaOptions.adminProperties(kafkaOptions);
  }

  /**
   * @return the streaming query name, also the checkpoint folder name
   */
  public String queryName() {
    return "bronze_"
        + event.sourceName().toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
  }
}

package io.latelake.bronze.replay;

import io.latelake.core.ExitCode;
import io.latelake.core.cli.Launcher;
import io.latelake.core.config.LakeConfigException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code latelake replay}: turns a captured dataset into landing files or Kafka records, in arrival
 * order, one slice of arrival time per file (or burst), optionally paced so that long-running
 * streams see it as they would live. Exit codes: 0 ok, 1 failure, 2 bad usage.
 */
@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    description =
        "Replay a captured CSV dataset in arrival order as landing files or Kafka records.")
public final class ReplayMain implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(ReplayMain.class);

  @Mixin ReplaySource source = new ReplaySource();

  @Option(
      names = "--pace",
      defaultValue = "PT0S",
      paramLabel = "DURATION",
      description = "Pause between slices (PT0S: write all at once). Default: ${DEFAULT-VALUE}.")
  Duration pace;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Target target;

  static final class Target {
    @Option(names = "--landing", paramLabel = "DIR", description = "Landing folder to write to.")
    Path landing;

    @Option(names = "--topic", paramLabel = "TOPIC", description = "Kafka topic to produce to.")
    String topic;
  }

  @Option(
      names = "--bootstrap-servers",
      defaultValue = "${env:KAFKA_BOOTSTRAP_SERVERS:-127.0.0.1:9092}",
      description = "Kafka brokers for --topic. Default: ${DEFAULT-VALUE}.")
  String bootstrapServers;

  public static void main(String[] args) {
    System.exit(Launcher.execute(new ReplayMain(), args));
  }

  @Override
  public Integer call() throws Exception {
    if (pace.isNegative()) {
      throw LakeConfigException.invalid("--pace", pace, "must not be negative");
    }
    List<List<CapturedEvents.Event>> slices = source.slices();
    LOG.info(
        "Replaying {} events from {} in {} slices of {}",
        slices.stream().mapToInt(List::size).sum(),
        source.dataset(),
        slices.size(),
        source.slice());
    if (target.landing != null) {
      LandingWriter writer = new LandingWriter(target.landing);
      for (int i = 0; i < slices.size(); i++) {
        writer.write(i + 1, slices.get(i));
        progress(i, slices.size());
      }
    } else {
      Properties p = new Properties();
      p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
      p.put(ProducerConfig.ACKS_CONFIG, "all");
      p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      var json = new com.fasterxml.jackson.databind.ObjectMapper();
      try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
        for (int i = 0; i < slices.size(); i++) {
          List<Future<RecordMetadata>> sent = new java.util.ArrayList<>();
          for (CapturedEvents.Event e : slices.get(i)) {
            sent.add(
                producer.send(
                    new ProducerRecord<>(target.topic, json.writeValueAsString(e.fields()))));
          }
          producer.flush();
          for (Future<RecordMetadata> f : sent) {
            try {
              f.get();
            } catch (ExecutionException e) {
              throw new io.latelake.core.table.StorageException(
                  "Cannot produce to "
                      + target.topic
                      + " at "
                      + bootstrapServers
                      + ": "
                      + e.getCause().getMessage(),
                  e);
            }
          }
          progress(i, slices.size());
        }
      }
    }
    return ExitCode.OK.code();
  }

  private void progress(int i, int total) throws InterruptedException {
    if ((i + 1) % 50 == 0 || i + 1 == total) {
      LOG.info("replay: {}/{} slices written", i + 1, total);
    }
    if (!pace.isZero() && i + 1 < total) {
      Thread.sleep(pace.toMillis());
    }
  }
}

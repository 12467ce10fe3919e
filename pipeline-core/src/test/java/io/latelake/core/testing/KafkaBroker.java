package io.latelake.core.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Apache Kafka broker for tests: one KRaft node (broker and controller together) listening
 * on free ports of {@code 127.0.0.1} only, with clients to create topics and produce records.
 *
 * <p>The broker runs {@code kafka.Kafka} from {@code org.apache.kafka:kafka_2.13} (version {@code
 * kafka.broker.version} of the parent pom) in one of two ways, chosen by the system property
 * {@value #IMPLEMENTATION_PROPERTY}:
 *
 * <ul>
 *   <li>{@code container}: a Testcontainers container of the image {@value #DEFAULT_IMAGE} (system
 *       property {@value #IMAGE_PROPERTY} names another), built locally by {@code
 *       scripts/docker-images.sh}, on the host's network. Needs a Docker engine and {@code
 *       TESTCONTAINERS_RYUK_DISABLED=true} (the build sets it); the container is removed on {@link
 *       #close()}.
 *   <li>{@code process}: a separate JVM with the classpath that the {@code scripts/kafka-broker}
 *       module resolves into {@value #CLASSPATH_FILE} (system property {@value #CLASSPATH_PROPERTY}
 *       names another file).
 *   <li>{@code auto} (the default): the container when Testcontainers finds a Docker engine that
 *       has the image, else the process.
 * </ul>
 *
 * Each start logs one line saying which ran and, for a fallback, why. Either way the broker's
 * kafka-clients never meet the test's own (where Spark's connector brings kafka-clients 3.9): the
 * test talks to the broker over the network only, and the broker's console output goes to {@link
 * #logFile()} under the work directory.
 *
 * <p>Topics are not created automatically ({@code auto.create.topics.enable=false}): create them
 * with {@link #createTopic(String, int, boolean)} so their timestamp type is explicit. The
 * transaction state log and offsets topic have replication factor 1, so transactions work.
 *
 * <p>Always close the broker (try-with-resources or {@code @AfterAll}); for the process, a JVM
 * shutdown hook also stops it should a test run end without closing it.
 *
 * <pre>{@code
 * try (KafkaBroker kafka = KafkaBroker.start(tempDir)) {
 *     kafka.createTopic("events", 2, true);
 *     kafka.produce("events", List.of("a", "b"));
 *     ... spark.readStream().format("kafka").option("kafka.bootstrap.servers", kafka.bootstrapServers()) ...
 * }
 * }</pre>
 */
public final class KafkaBroker implements AutoCloseable {

  /**
   * System property naming the broker classpath file; overrides the search from the current
   * directory.
   */
  public static final String CLASSPATH_PROPERTY = "latelake.kafka.classpath";

  /**
   * System property choosing the implementation: {@code auto} (default), {@code container} or
   * {@code process}.
   */
  public static final String IMPLEMENTATION_PROPERTY = "latelake.kafka.broker";

  /** System property naming the broker image; defaults to {@value #DEFAULT_IMAGE}. */
  public static final String IMAGE_PROPERTY = "latelake.kafka.image";

  /**
   * The image {@code scripts/docker-images.sh} builds for {@code kafka.broker.version} of the
   * parent pom.
   */
  public static final String DEFAULT_IMAGE = "latelake/kafka:4.1.1";

  /**
   * Where the {@code scripts/kafka-broker} module writes the broker classpath, relative to the repo
   * root.
   */
  static final String CLASSPATH_FILE = "scripts/kafka-broker/target/broker-classpath.txt";

  private static final Logger LOG = LoggerFactory.getLogger(KafkaBroker.class);
  private static final Duration CLIENT_TIMEOUT = BrokerSupport.CLIENT_TIMEOUT;

  /** How the broker runs. */
  public enum Implementation {
    /** A container of the locally built image, on the host's network. */
    CONTAINER,
    /** A separate JVM on this machine. */
    PROCESS
  }

  private final BrokerRuntime runtime;
  private final AtomicBoolean closed = new AtomicBoolean();
  private KafkaProducer<String, String> producer;

  private KafkaBroker(BrokerRuntime runtime) {
    this.runtime = runtime;
  }

  /**
   * Starts a single-node broker on free ports of {@code 127.0.0.1}, in a container or a separate
   * JVM (see the class comment), returning once a client can describe the cluster.
   *
   * <p>The process keeps its configuration and data under {@code workDir}; the container keeps them
   * inside itself. Both write their console output to {@code workDir/broker.log}. The broker JVM
   * uses at most 512 MB of heap.
   *
   * @param workDir directory for the broker's log (and, for the process, configuration and data);
   *     created if missing
   * @return the running broker; close it to stop it
   * @throws IOException if the work directory, configuration or log cannot be written, or the
   *     process cannot be launched
   * @throws IllegalArgumentException if {@value #IMPLEMENTATION_PROPERTY} is not {@code auto},
   *     {@code container} or {@code process}
   * @throws IllegalStateException if {@code container} was asked for and there is no Docker engine
   *     or image; if the process's classpath file is missing (build it with {@code mvn -pl
   *     scripts/kafka-broker generate-resources}) or formatting its storage fails; or if the broker
   *     is not ready within 3 minutes (the message carries the tail of the broker log; the broker
   *     is stopped)
   */
  public static KafkaBroker start(Path workDir) throws IOException {
    Path dir = Files.createDirectories(workDir.toAbsolutePath());
    BrokerChoice choice = BrokerChoice.current();
    BrokerRuntime runtime =
        choice.implementation() == Implementation.CONTAINER
            ? BrokerChoice.startContainer(dir, choice.image())
            : ProcessBrokerRuntime.start(dir);
    LOG.info(
        "Kafka broker fixture: {} ({}) at {}",
        choice.implementation().name().toLowerCase(Locale.ROOT),
        choice.reason(),
        runtime.describe());
    return new KafkaBroker(runtime);
  }

  /**
   * Returns the address clients use to reach the broker.
   *
   * @return {@code "127.0.0.1:<port>"}
   */
  public String bootstrapServers() {
    return BrokerSupport.HOST + ":" + runtime.port();
  }

  /**
   * Returns the file that receives the broker's console output and log.
   *
   * @return {@code workDir/broker.log}
   */
  public Path logFile() {
    return runtime.logFile();
  }

  /**
   * Returns how this broker runs.
   *
   * @return {@link Implementation#CONTAINER} or {@link Implementation#PROCESS}
   */
  public Implementation implementation() {
    return runtime.implementation();
  }

  /**
   * Creates a topic with replication factor 1, kept without a time limit ({@code retention.ms =
   * -1}), and waits until every partition has a leader.
   *
   * @param name topic name
   * @param partitions number of partitions (at least 1)
   * @param logAppendTime {@code true} for {@code message.timestamp.type=LogAppendTime} (the broker
   *     stamps each record when it appends it), {@code false} for {@code CreateTime} (the
   *     producer's timestamp is kept)
   * @throws IllegalStateException if the broker is closed, rejects the topic (for example because
   *     it exists) or does not answer within 30 seconds
   */
  public void createTopic(String name, int partitions, boolean logAppendTime) {
    ensureOpen();
    NewTopic topic =
        new NewTopic(name, partitions, (short) 1)
            .configs(
                Map.of(
                    "message.timestamp.type",
                    logAppendTime ? "LogAppendTime" : "CreateTime",
                    // a test's records may carry old producer timestamps (2024 on a CreateTime
                    // topic): time-based retention would delete them at the broker's next
                    // retention check, while a test still reads them
                    "retention.ms",
                    "-1"));
    await(runtime.admin().createTopics(List.of(topic)).all(), "create topic " + name);
    long deadline = System.nanoTime() + CLIENT_TIMEOUT.toNanos();
    while (true) {
      TopicDescription description;
      try {
        description =
            await(
                    runtime.admin().describeTopics(List.of(name)).allTopicNames(),
                    "describe topic " + name)
                .get(name);
      } catch (IllegalStateException e) {
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException)
            || System.nanoTime() > deadline) {
          throw e;
        }
        // The broker's metadata does not show the new topic yet.
        description = null;
      }
      if (description != null
          && description.partitions().size() == partitions
          && description.partitions().stream()
              .allMatch(p -> p.leader() != null && !p.leader().isEmpty())) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "Topic "
                + name
                + " has no leader for every partition after "
                + CLIENT_TIMEOUT.toSeconds()
                + " s: "
                + (description == null
                    ? "no description"
                    : description.partitions().stream()
                        .map(TopicPartitionInfo::toString)
                        .toList()));
      }
      BrokerSupport.sleep(100);
    }
  }

  /**
   * Sends string values (no keys) to a topic, letting the producer choose the partitions, and waits
   * until the broker has acknowledged every record ({@code acks=all}).
   *
   * @param topic target topic, which should exist
   * @param values record values, sent in order
   * @throws IllegalStateException if the broker is closed or a send fails or times out (30 s)
   */
  public void produce(String topic, List<String> values) {
    produce(topic, null, values);
  }

  /**
   * Sends string values (no keys) to one partition of a topic, in order, and waits until the broker
   * has acknowledged every record ({@code acks=all}).
   *
   * @param topic target topic, which should exist
   * @param partition target partition, or {@code null} to let the producer choose
   * @param values record values, sent in order
   * @throws IllegalStateException if the broker is closed or a send fails or times out (30 s)
   */
  public void produce(String topic, Integer partition, List<String> values) {
    KafkaProducer<String, String> p = producer();
    List<Future<RecordMetadata>> sends = new ArrayList<>(values.size());
    for (String value : values) {
      sends.add(p.send(new ProducerRecord<>(topic, partition, null, value)));
    }
    p.flush();
    for (Future<RecordMetadata> send : sends) {
      await(send, "produce to " + topic);
    }
  }

  /**
   * Sends string values (no keys) to a topic with one record timestamp, and waits until the broker
   * has acknowledged every record ({@code acks=all}). The timestamp is kept by a {@code CreateTime}
   * topic (a {@code LogAppendTime} topic replaces it with the broker's clock).
   *
   * @param topic target topic, which should exist
   * @param timestamp the records' timestamp
   * @param values record values, sent in order
   * @throws IllegalStateException if the broker is closed or a send fails or times out (30 s)
   */
  public void produceAt(String topic, java.time.Instant timestamp, List<String> values) {
    KafkaProducer<String, String> p = producer();
    List<Future<RecordMetadata>> sends = new ArrayList<>(values.size());
    for (String value : values) {
      sends.add(p.send(new ProducerRecord<>(topic, null, timestamp.toEpochMilli(), null, value)));
    }
    p.flush();
    for (Future<RecordMetadata> send : sends) {
      await(send, "produce to " + topic);
    }
  }

  /**
   * Stops the broker: closes the clients, then stops the process (waiting up to 10 seconds before
   * killing it) or stops and removes the container. Calling it again does nothing.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      synchronized (this) {
        if (producer != null) {
          producer.close(Duration.ofSeconds(5));
        }
      }
      runtime.admin().close(Duration.ofSeconds(5));
    } finally {
      runtime.stop();
    }
  }

  @Override
  public String toString() {
    return "KafkaBroker[" + runtime.describe() + "]";
  }

  /** Whether anything of this broker is left running (process alive, container present). */
  boolean isRunning() {
    return runtime.isRunning();
  }

  // ----------------------------------------------------------------------------------------

  private synchronized KafkaProducer<String, String> producer() {
    ensureOpen();
    if (producer == null) {
      Properties props = new Properties();
      props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
      props.put(ProducerConfig.ACKS_CONFIG, "all");
      props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
      props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
      props.put(ProducerConfig.LINGER_MS_CONFIG, "0");
      props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
      props.put(
          ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, String.valueOf(CLIENT_TIMEOUT.toMillis()));
      props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, String.valueOf(CLIENT_TIMEOUT.toMillis()));
      props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      producer = new KafkaProducer<>(props);
    }
    return producer;
  }

  private void ensureOpen() {
    if (closed.get()) {
      throw new IllegalStateException(this + " is closed");
    }
  }

  private static <T> T await(Future<T> future, String what) {
    try {
      return future.get(CLIENT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while waiting to " + what, e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("Failed to " + what + ": " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      future.cancel(true);
      throw new IllegalStateException(
          "Timed out after " + CLIENT_TIMEOUT.toSeconds() + " s waiting to " + what, e);
    }
  }
}

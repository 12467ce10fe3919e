package io.latelake.core.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A real Apache Kafka broker for tests: one KRaft node (broker and controller in one process)
 * started as a separate JVM.
 *
 * <p>The broker runs {@code kafka.Kafka} from {@code org.apache.kafka:kafka_2.13} (version
 * {@code kafka.broker.version} of the parent pom) with its own classpath, resolved by the
 * {@code scripts/kafka-broker} module into {@code scripts/kafka-broker/target/broker-classpath.txt}.
 * That classpath is never mixed with the test's own (where Spark's connector brings
 * kafka-clients 3.9); the test talks to the broker over the network only.
 *
 * <p>Both listeners (PLAINTEXT for clients, CONTROLLER for the KRaft quorum) bind to free ports
 * on {@code 127.0.0.1} only. Everything the broker writes (configuration, log segments, its
 * console log {@code broker.log}) stays under the work directory given to {@link #start(Path)}.
 *
 * <p>Topics are not created automatically ({@code auto.create.topics.enable=false}): create them
 * with {@link #createTopic(String, int, boolean)} so their timestamp type is explicit.
 *
 * <p>Always close the broker (try-with-resources or {@code @AfterAll}); a JVM shutdown hook
 * also stops the process should a test run end without closing it.
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

    /** System property naming the broker classpath file; overrides the search from the current directory. */
    public static final String CLASSPATH_PROPERTY = "latelake.kafka.classpath";

    /** Where the {@code scripts/kafka-broker} module writes the broker classpath, relative to the repo root. */
    static final String CLASSPATH_FILE = "scripts/kafka-broker/target/broker-classpath.txt";

    private static final String HOST = "127.0.0.1";
    private static final Duration FORMAT_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(30);
    private static final int START_ATTEMPTS = 3;
    private static final int LOG_TAIL_LINES = 60;

    private final Process process;
    private final int port;
    private final Path workDir;
    private final Path logFile;
    private final Admin admin;
    private final Thread shutdownHook;
    private final AtomicBoolean closed = new AtomicBoolean();
    private KafkaProducer<String, String> producer;

    private KafkaBroker(Process process, int port, Path workDir, Path logFile, Admin admin, Thread shutdownHook) {
        this.process = process;
        this.port = port;
        this.workDir = workDir;
        this.logFile = logFile;
        this.admin = admin;
        this.shutdownHook = shutdownHook;
    }

    /**
     * Formats a fresh KRaft log directory under {@code workDir} and starts a single-node broker
     * on free ports of {@code 127.0.0.1}, returning once a client can describe the cluster.
     *
     * <p>The broker classpath is read from the file named by the system property
     * {@value #CLASSPATH_PROPERTY}, or else from {@value #CLASSPATH_FILE} found by walking up from
     * the current directory. The broker JVM uses the same {@code java} as this JVM and at most
     * 512 MB of heap; its output goes to {@code workDir/broker.log}.
     *
     * @param workDir directory for the broker's configuration, data and log; created if missing
     * @return the running broker; close it to stop the process
     * @throws IOException if the work directory, configuration or log cannot be written, or the
     *     process cannot be launched
     * @throws IllegalStateException if the classpath file is missing (build it with
     *     {@code mvn -pl scripts/kafka-broker generate-resources}), if formatting the storage
     *     fails, or if the broker is not ready within 60 seconds (the message carries the tail of
     *     the broker log; the process is killed)
     */
    public static KafkaBroker start(Path workDir) throws IOException {
        String classpath = readClasspath(findClasspathFile());
        Path dir = Files.createDirectories(workDir.toAbsolutePath());
        Path dataDir = dir.resolve("data");
        Path config = dir.resolve("server.properties");
        Path log4jConfig = dir.resolve("log4j2.properties");
        Path logFile = dir.resolve("broker.log");
        writeLog4jConfig(log4jConfig);

        IllegalStateException lastFailure = null;
        for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
            int[] ports = freePorts(2);
            writeServerConfig(config, ports[0], ports[1], dataDir);
            if (attempt == 1) {
                // With a static controller.quorum.voters the data directory does not record
                // listener ports, so retries on new ports keep the formatted directory.
                format(classpath, dir, config);
            }
            try {
                return launch(classpath, dir, config, log4jConfig, logFile, ports[0]);
            } catch (PortTakenException e) {
                // Another process took a port between choosing it and the broker binding it.
                lastFailure = new IllegalStateException(e.getMessage());
            }
        }
        throw lastFailure;
    }

    /**
     * Returns the address clients use to reach the broker.
     *
     * @return {@code "127.0.0.1:<port>"}
     */
    public String bootstrapServers() {
        return HOST + ":" + port;
    }

    /**
     * Returns the file that receives the broker's console output and log.
     *
     * @return {@code workDir/broker.log}
     */
    public Path logFile() {
        return logFile;
    }

    /**
     * Creates a topic with replication factor 1 and waits until every partition has a leader.
     *
     * @param name topic name
     * @param partitions number of partitions (at least 1)
     * @param logAppendTime {@code true} for {@code message.timestamp.type=LogAppendTime} (the broker
     *     stamps each record when it appends it), {@code false} for {@code CreateTime} (the producer's
     *     timestamp is kept)
     * @throws IllegalStateException if the broker is closed, rejects the topic (for example because
     *     it exists) or does not answer within 30 seconds
     */
    public void createTopic(String name, int partitions, boolean logAppendTime) {
        ensureOpen();
        NewTopic topic = new NewTopic(name, partitions, (short) 1)
                .configs(Map.of("message.timestamp.type", logAppendTime ? "LogAppendTime" : "CreateTime"));
        await(admin.createTopics(List.of(topic)).all(), "create topic " + name);
        long deadline = System.nanoTime() + CLIENT_TIMEOUT.toNanos();
        while (true) {
            TopicDescription description = await(
                    admin.describeTopics(List.of(name)).allTopicNames(), "describe topic " + name).get(name);
            if (description != null && description.partitions().size() == partitions
                    && description.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty())) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Topic " + name + " has no leader for every partition after "
                        + CLIENT_TIMEOUT.toSeconds() + " s: " + (description == null ? "no description"
                        : description.partitions().stream().map(TopicPartitionInfo::toString).toList()));
            }
            sleep(100);
        }
    }

    /**
     * Sends string values (no keys) to a topic, letting the producer choose the partitions, and
     * waits until the broker has acknowledged every record ({@code acks=all}).
     *
     * @param topic target topic, which should exist
     * @param values record values, sent in order
     * @throws IllegalStateException if the broker is closed or a send fails or times out (30 s)
     */
    public void produce(String topic, List<String> values) {
        produce(topic, null, values);
    }

    /**
     * Sends string values (no keys) to one partition of a topic, in order, and waits until the
     * broker has acknowledged every record ({@code acks=all}).
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
     * Stops the broker: closes the clients, asks the process to shut down, waits up to 10 seconds
     * and then kills it. Calling it again does nothing.
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
            admin.close(Duration.ofSeconds(5));
        } finally {
            stop(process);
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running or about to; it finds the process already stopped.
            }
        }
    }

    @Override
    public String toString() {
        return "KafkaBroker[" + bootstrapServers() + ", pid " + process.pid() + ", " + workDir + "]";
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
            props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, String.valueOf(CLIENT_TIMEOUT.toMillis()));
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
            throw new IllegalStateException("Timed out after " + CLIENT_TIMEOUT.toSeconds() + " s waiting to " + what, e);
        }
    }

    private static Path findClasspathFile() {
        String configured = System.getProperty(CLASSPATH_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            Path file = Paths.get(configured.trim()).toAbsolutePath();
            if (!Files.isRegularFile(file)) {
                throw new IllegalStateException("Kafka broker classpath file " + file + " (system property "
                        + CLASSPATH_PROPERTY + ") does not exist. " + buildHint());
            }
            return file;
        }
        Path start = Paths.get("").toAbsolutePath();
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            Path file = dir.resolve(CLASSPATH_FILE);
            if (Files.isRegularFile(file)) {
                return file;
            }
        }
        throw new IllegalStateException("Kafka broker classpath file " + CLASSPATH_FILE + " not found in " + start
                + " or any parent directory, and system property " + CLASSPATH_PROPERTY + " is not set. "
                + buildHint());
    }

    private static String buildHint() {
        return "Build it from the repository root with `mvn -pl scripts/kafka-broker generate-resources` "
                + "(or run the full build, e.g. `mvn verify`).";
    }

    private static String readClasspath(Path file) throws IOException {
        String classpath = Files.readString(file, StandardCharsets.UTF_8).trim();
        if (classpath.isEmpty()) {
            throw new IllegalStateException("Kafka broker classpath file " + file + " is empty. " + buildHint());
        }
        for (String entry : classpath.split(java.io.File.pathSeparator)) {
            if (!entry.isBlank() && !Files.exists(Paths.get(entry))) {
                throw new IllegalStateException("Kafka broker classpath file " + file + " names missing " + entry
                        + " (local Maven repository changed?). " + buildHint());
            }
        }
        return classpath;
    }

    private static int[] freePorts(int count) throws IOException {
        // Hold all sockets until every port is chosen so the ports differ.
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket();
                sockets.add(socket);
                socket.setReuseAddress(true);
                socket.bind(new InetSocketAddress(InetAddress.getByName(HOST), 0));
                ports[i] = socket.getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket socket : sockets) {
                socket.close();
            }
        }
    }

    private static void writeServerConfig(Path config, int port, int controllerPort, Path dataDir) throws IOException {
        String text = String.join("\n",
                "# Written by io.latelake.core.testing.KafkaBroker: one KRaft node on 127.0.0.1.",
                "process.roles=broker,controller",
                "node.id=1",
                "controller.quorum.voters=1@" + HOST + ":" + controllerPort,
                "listeners=PLAINTEXT://" + HOST + ":" + port + ",CONTROLLER://" + HOST + ":" + controllerPort,
                "advertised.listeners=PLAINTEXT://" + HOST + ":" + port,
                "controller.listener.names=CONTROLLER",
                "inter.broker.listener.name=PLAINTEXT",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "log.dirs=" + dataDir.toString().replace('\\', '/'),
                "num.partitions=1",
                "default.replication.factor=1",
                "min.insync.replicas=1",
                "offsets.topic.replication.factor=1",
                "offsets.topic.num.partitions=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "transaction.state.log.num.partitions=1",
                "share.coordinator.state.topic.replication.factor=1",
                "share.coordinator.state.topic.min.isr=1",
                "group.initial.rebalance.delay.ms=0",
                "auto.create.topics.enable=false",
                "num.network.threads=2",
                "num.io.threads=2",
                "num.recovery.threads.per.data.dir=1",
                "background.threads=2",
                "");
        Files.writeString(config, text, StandardCharsets.UTF_8);
    }

    private static void writeLog4jConfig(Path file) throws IOException {
        String text = String.join("\n",
                "# Broker logging: everything to the console, which KafkaBroker redirects to broker.log.",
                "status = warn",
                "appender.out.type = Console",
                "appender.out.name = OUT",
                "appender.out.layout.type = PatternLayout",
                "appender.out.layout.pattern = [%d] %p %m (%c)%n",
                "rootLogger.level = INFO",
                "rootLogger.appenderRef.out.ref = OUT",
                "logger.kafka.name = kafka",
                "logger.kafka.level = INFO",
                "logger.apache.name = org.apache.kafka",
                "logger.apache.level = INFO",
                "");
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    private static String javaBinary() {
        Path bin = Paths.get(System.getProperty("java.home"), "bin");
        Path java = bin.resolve("java");
        if (Files.isExecutable(java)) {
            return java.toString();
        }
        Path javaExe = bin.resolve("java.exe");
        if (Files.isExecutable(javaExe)) {
            return javaExe.toString();
        }
        return ProcessHandle.current().info().command().orElse("java");
    }

    private static void format(String classpath, Path dir, Path config) throws IOException {
        Path formatLog = dir.resolve("format.log");
        String clusterId = Uuid.randomUuid().toString();
        Process format = new ProcessBuilder(javaBinary(), "-Xmx256m", "-cp", classpath,
                "kafka.tools.StorageTool", "format", "--ignore-formatted",
                "--cluster-id", clusterId, "--config", config.toString())
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(formatLog.toFile())
                .start();
        boolean exited = waitFor(format, FORMAT_TIMEOUT);
        if (!exited) {
            format.destroyForcibly();
            throw new IllegalStateException("Formatting Kafka storage did not finish within "
                    + FORMAT_TIMEOUT.toSeconds() + " s:\n" + tail(formatLog));
        }
        if (format.exitValue() != 0) {
            throw new IllegalStateException("Formatting Kafka storage failed (exit " + format.exitValue() + "):\n"
                    + tail(formatLog));
        }
    }

    private static KafkaBroker launch(String classpath, Path dir, Path config, Path log4jConfig, Path logFile,
                                      int port) throws IOException {
        List<String> command = List.of(javaBinary(),
                "-Xmx512m",
                "-Xms64m",
                "-XX:+UseG1GC",
                "-XX:MaxGCPauseMillis=20",
                "-Djava.awt.headless=true",
                "-Dlog4j2.configurationFile=" + log4jConfig.toUri(),
                "-cp", classpath,
                "kafka.Kafka", config.toString());
        long logStart = Files.exists(logFile) ? Files.size(logFile) : 0;
        Process process = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                .start();
        Thread hook = new Thread(() -> stop(process), "kafka-broker-shutdown-" + process.pid());
        Runtime.getRuntime().addShutdownHook(hook);

        Admin admin = null;
        boolean ready = false;
        try {
            String bootstrap = HOST + ":" + port;
            long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
            while (!ready) {
                if (!process.isAlive()) {
                    String tail = tail(logFile);
                    String message = "Kafka broker exited with code " + process.exitValue()
                            + " during start-up. Tail of " + logFile + ":\n" + tail;
                    String output = since(logFile, logStart);
                    if (output.contains("address already in use") || output.contains("bindexception")) {
                        throw new PortTakenException(message);
                    }
                    throw new IllegalStateException(message);
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Kafka broker on " + bootstrap + " was not ready within "
                            + START_TIMEOUT.toSeconds() + " s; killed it. Tail of " + logFile + ":\n" + tail(logFile));
                }
                if (accepts(port)) {
                    if (admin == null) {
                        admin = Admin.create(adminProps(bootstrap));
                    }
                    try {
                        ready = !admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty();
                    } catch (ExecutionException | TimeoutException notYet) {
                        ready = false;
                    }
                }
                if (!ready) {
                    sleep(200);
                }
            }
            return new KafkaBroker(process, port, dir, logFile, admin, hook);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for the Kafka broker to start", e);
        } finally {
            if (!ready) {
                if (admin != null) {
                    admin.close(Duration.ofSeconds(1));
                }
                stop(process);
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // nothing to undo
                }
            }
        }
    }

    private static Properties adminProps(String bootstrap) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, String.valueOf(CLIENT_TIMEOUT.toMillis()));
        props.put(AdminClientConfig.RECONNECT_BACKOFF_MS_CONFIG, "100");
        props.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "1000");
        return props;
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(HOST, port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void stop(Process process) {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        if (!waitFor(process, STOP_TIMEOUT)) {
            process.destroyForcibly();
            waitFor(process, STOP_TIMEOUT);
        }
    }

    private static boolean waitFor(Process process, Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !process.isAlive();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        }
    }

    private static String tail(Path file) {
        if (!Files.exists(file)) {
            return "(" + file + " does not exist)";
        }
        try {
            Deque<String> lines = new ArrayDeque<>();
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                lines.addLast(line);
                if (lines.size() > LOG_TAIL_LINES) {
                    lines.removeFirst();
                }
            }
            return String.join("\n", lines);
        } catch (IOException | UncheckedIOException e) {
            return "(cannot read " + file + ": " + e + ")";
        }
    }

    private static String since(Path file, long offset) {
        try (InputStream in = Files.newInputStream(file)) {
            in.skipNBytes(Math.min(offset, Files.size(file)));
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).toLowerCase(Locale.ROOT);
        } catch (IOException e) {
            return "";
        }
    }

    /** The broker could not bind a listener port chosen for it; start again on other ports. */
    private static final class PortTakenException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        PortTakenException(String message) {
            super(message);
        }
    }
}

package io.latelake.core.testing;

import static io.latelake.core.testing.BrokerSupport.HOST;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Uuid;

/**
 * The broker as a separate JVM running {@code kafka.Kafka} from the classpath that the
 * {@code scripts/kafka-broker} module resolves into {@value KafkaBroker#CLASSPATH_FILE}. That
 * classpath is never mixed with the test's own (where Spark's connector brings kafka-clients 3.9).
 * Configuration, data and {@code broker.log} live under the work directory. A JVM shutdown hook
 * stops the process should a test run end without closing it.
 */
final class ProcessBrokerRuntime implements BrokerRuntime {

    private static final Duration FORMAT_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

    private final Process process;
    private final int port;
    private final Path workDir;
    private final Path logFile;
    private final Admin admin;
    private final Thread shutdownHook;

    private ProcessBrokerRuntime(Process process, int port, Path workDir, Path logFile, Admin admin,
                                 Thread shutdownHook) {
        this.process = process;
        this.port = port;
        this.workDir = workDir;
        this.logFile = logFile;
        this.admin = admin;
        this.shutdownHook = shutdownHook;
    }

    /**
     * Formats a KRaft log directory under {@code dir} and starts the broker on free ports.
     *
     * @throws IOException if files cannot be written or the process cannot be launched
     * @throws IllegalStateException if the classpath file is missing or stale, formatting fails,
     *     or the broker is not ready in time (the message carries the tail of its log)
     */
    static ProcessBrokerRuntime start(Path dir) throws IOException {
        String classpath = readClasspath(findClasspathFile());
        Path dataDir = dir.resolve("data");
        Path config = dir.resolve("server.properties");
        Path log4jConfig = dir.resolve("log4j2.properties");
        Path logFile = dir.resolve("broker.log");
        writeLog4jConfig(log4jConfig);

        IllegalStateException lastFailure = null;
        for (int attempt = 1; attempt <= BrokerSupport.START_ATTEMPTS; attempt++) {
            int[] ports = BrokerSupport.freePorts(2);
            writeServerConfig(config, ports[0], ports[1], dataDir);
            if (attempt == 1) {
                // With a static controller.quorum.voters the data directory does not record
                // listener ports, so retries on new ports keep the formatted directory.
                format(classpath, dir, config);
            }
            long logStart = BrokerSupport.size(logFile);
            Process process = launch(classpath, dir, config, log4jConfig, logFile);
            Thread hook = new Thread(() -> stop(process), "kafka-broker-shutdown-" + process.pid());
            Runtime.getRuntime().addShutdownHook(hook);
            boolean ready = false;
            try {
                Admin admin = BrokerSupport.awaitReady(ports[0], process::isAlive, "pid " + process.pid(), logFile);
                ready = true;
                return new ProcessBrokerRuntime(process, ports[0], dir, logFile, admin, hook);
            } catch (BrokerSupport.BrokerExitedException e) {
                String message = "Kafka broker exited with code " + process.exitValue()
                        + " during start-up. Tail of " + logFile + ":\n" + BrokerSupport.tail(logFile);
                if (!BrokerSupport.portTaken(logFile, logStart)) {
                    throw new IllegalStateException(message);
                }
                // Another process took a port between choosing it and the broker binding it.
                lastFailure = new IllegalStateException(message);
            } finally {
                if (!ready) {
                    stop(process);
                    removeHook(hook);
                }
            }
        }
        throw lastFailure;
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public Path logFile() {
        return logFile;
    }

    @Override
    public Admin admin() {
        return admin;
    }

    @Override
    public KafkaBroker.Implementation implementation() {
        return KafkaBroker.Implementation.PROCESS;
    }

    @Override
    public boolean isRunning() {
        return process.isAlive();
    }

    @Override
    public void stop() {
        stop(process);
        removeHook(shutdownHook);
    }

    @Override
    public String describe() {
        return HOST + ":" + port + ", pid " + process.pid() + ", " + workDir;
    }

    // ----------------------------------------------------------------------------------------

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // The hook is running or about to; it finds the process already stopped.
        }
    }

    private static Path findClasspathFile() {
        String configured = System.getProperty(KafkaBroker.CLASSPATH_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            Path file = Paths.get(configured.trim()).toAbsolutePath();
            if (!Files.isRegularFile(file)) {
                throw new IllegalStateException("Kafka broker classpath file " + file + " (system property "
                        + KafkaBroker.CLASSPATH_PROPERTY + ") does not exist. " + buildHint());
            }
            return file;
        }
        Path start = Paths.get("").toAbsolutePath();
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            Path file = dir.resolve(KafkaBroker.CLASSPATH_FILE);
            if (Files.isRegularFile(file)) {
                return file;
            }
        }
        throw new IllegalStateException("Kafka broker classpath file " + KafkaBroker.CLASSPATH_FILE + " not found in "
                + start + " or any parent directory, and system property " + KafkaBroker.CLASSPATH_PROPERTY
                + " is not set. " + buildHint());
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
                    + FORMAT_TIMEOUT.toSeconds() + " s:\n" + BrokerSupport.tail(formatLog));
        }
        if (format.exitValue() != 0) {
            throw new IllegalStateException("Formatting Kafka storage failed (exit " + format.exitValue() + "):\n"
                    + BrokerSupport.tail(formatLog));
        }
    }

    private static Process launch(String classpath, Path dir, Path config, Path log4jConfig, Path logFile)
            throws IOException {
        List<String> command = List.of(javaBinary(),
                "-Xmx512m",
                "-Xms64m",
                "-XX:+UseG1GC",
                "-XX:MaxGCPauseMillis=20",
                "-Djava.awt.headless=true",
                "-Dlog4j2.configurationFile=" + log4jConfig.toUri(),
                "-cp", classpath,
                "kafka.Kafka", config.toString());
        return new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                .start();
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
}

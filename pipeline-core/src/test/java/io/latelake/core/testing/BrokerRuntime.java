package io.latelake.core.testing;

import java.nio.file.Path;
import org.apache.kafka.clients.admin.Admin;

/**
 * One running single-node Kafka broker behind {@link KafkaBroker}: a separate JVM ({@link
 * ProcessBrokerRuntime}) or a container ({@link ContainerBrokerRuntime}). Both listen on {@code
 * 127.0.0.1} only and are ready (a client described the cluster) when their {@code start} returns.
 */
interface BrokerRuntime {

  /** The client (PLAINTEXT) listener port on {@code 127.0.0.1}. */
  int port();

  /** The file that receives the broker's console output. */
  Path logFile();

  /**
   * An admin client connected to the broker; {@link KafkaBroker} closes it before {@link #stop()}.
   */
  Admin admin();

  /** Which implementation this is. */
  KafkaBroker.Implementation implementation();

  /**
   * Whether anything of this broker is left: the process alive, or a container (running or not)
   * carrying this broker's label.
   */
  boolean isRunning();

  /** Stops the broker and removes what it left running; calling it again does nothing. */
  void stop();

  /** A short description for messages: address, pid or container id, work directory. */
  String describe();
}

package io.latelake.core.testing;

import java.nio.file.Path;
import org.apache.kafka.clients.admin.Admin;

/**
 * What both broker runtimes hold once ready: the client port, the log file, the admin client and
 * the JVM shutdown hook that stops the broker should a test run end without closing it.
 */
abstract class AbstractBrokerRuntime implements BrokerRuntime {

  private final int port;
  private final Path logFile;
  private final Admin admin;
  private final Thread shutdownHook;

  AbstractBrokerRuntime(int port, Path logFile, Admin admin, Thread shutdownHook) {
    this.port = port;
    this.logFile = logFile;
    this.admin = admin;
    this.shutdownHook = shutdownHook;
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

  /** Removes this broker's shutdown hook (after a regular stop). */
  void removeShutdownHook() {
    removeHook(shutdownHook);
  }

  /** Registers {@code stop} to run at JVM exit; returns the hook. */
  static Thread addHook(Runnable stop, String name) {
    Thread hook = new Thread(stop, name);
    Runtime.getRuntime().addShutdownHook(hook);
    return hook;
  }

  static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // The hook is running or about to; stopping twice does no harm.
    }
  }
}

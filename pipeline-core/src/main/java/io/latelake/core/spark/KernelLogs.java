package io.latelake.core.spark;

import java.util.Map;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configurator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delta Kernel's loggers (Kernel is used by latelake's table property reads and by Delta itself).
 * Kernel logs every snapshot it loads at INFO, and at WARN each table without a Delta checkpoint
 * yet (its first 10 commits: "Cannot find a complete checkpoint. Listing from version 0."), a line
 * per read.
 */
public final class KernelLogs {
  private static final Logger LOG = LoggerFactory.getLogger(KernelLogs.class);
  private static volatile boolean done;

  private KernelLogs() {}

  /**
   * Unless the logging configuration names them, sets {@code io.delta.kernel} to WARN and its
   * {@code SnapshotManager} to ERROR; once per JVM ({@link SparkSessions#create} calls it before
   * the first Delta read). Never throws: without Log4j 2 as the logging backend it does nothing.
   */
  public static void quiet() {
    if (done) {
      return;
    }
    done = true;
    try {
      if (!(LogManager.getContext(false) instanceof LoggerContext ctx)) {
        return;
      }
      var named = ctx.getConfiguration().getLoggers();
      for (Map.Entry<String, Level> e :
          Map.of(
                  "io.delta.kernel",
                  Level.WARN,
                  "io.delta.kernel.internal.snapshot.SnapshotManager",
                  Level.ERROR)
              .entrySet()) {
        if (!named.containsKey(e.getKey())) {
          Configurator.setLevel(e.getKey(), e.getValue());
        }
      }
    } catch (RuntimeException | LinkageError e) {
      LOG.debug("Kernel's loggers left as configured: {}", e.toString());
    }
  }
}

package io.latelake.core.table;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Marker;
import org.apache.logging.log4j.core.Filter;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.filter.AbstractFilter;
import org.apache.logging.log4j.message.Message;

/**
 * A log4j2 filter that drops Delta's own ERROR lines about a commit that lost to a concurrent
 * commit (e.g. {@code ERROR MergeIntoCommand: Fatal error in MERGE with materialized source in
 * attempt 1} and its stack), which {@link DeltaRetry} handles: it logs one WARN line of its own per
 * attempt and, when every attempt lost, fails with an error naming the table. Only events of
 * Delta's loggers ({@code org.apache.spark.sql.delta.*}, {@code io.delta.*}) at ERROR whose
 * exception is a Delta concurrent-modification exception ({@link DeltaRetry#isConflict}) are
 * dropped; every other ERROR, Delta's included, is logged as before.
 */
public final class HandledConflictFilter extends AbstractFilter {
  private static volatile boolean installed;

  private HandledConflictFilter() {
    super(Filter.Result.DENY, Filter.Result.NEUTRAL);
  }

  /**
   * Adds the filter to the process's log4j2 configuration, once per process (a no-op when log4j2 is
   * not the logging backend).
   */
  static void install() {
    if (installed) {
      return;
    }
    synchronized (HandledConflictFilter.class) {
      if (installed) {
        return;
      }
      if (LogManager.getContext(false) instanceof LoggerContext context) {
        context.getConfiguration().addFilter(new HandledConflictFilter());
        context.updateLoggers();
      }
      installed = true;
    }
  }

  // A configuration's filter is asked before the event is built, with the logger, the level and
  // the exception (for a message object or text); the event form serves appender-level use.

  @Override
  public Filter.Result filter(LogEvent event) {
    return result(event.getLoggerName(), event.getLevel(), event.getThrown());
  }

  @Override
  public Filter.Result filter(Logger logger, Level level, Marker marker, Message msg, Throwable t) {
    return result(logger.getName(), level, t);
  }

  @Override
  public Filter.Result filter(Logger logger, Level level, Marker marker, Object msg, Throwable t) {
    return result(logger.getName(), level, t);
  }

  private Filter.Result result(String logger, Level level, Throwable thrown) {
    return isHandledConflict(logger, level, thrown) ? onMatch : onMismatch;
  }

  static boolean isHandledConflict(String logger, Level level, Throwable thrown) {
    return level == Level.ERROR
        && logger != null
        && (logger.startsWith("org.apache.spark.sql.delta.") || logger.startsWith("io.delta."))
        && thrown != null
        && DeltaRetry.isConflict(thrown);
  }
}

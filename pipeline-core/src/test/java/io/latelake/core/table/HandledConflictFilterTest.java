package io.latelake.core.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.exceptions.ConcurrentAppendException;
import java.util.ArrayList;
import java.util.List;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Delta's ERROR lines about a conflict that DeltaRetry handles are dropped; others are logged. */
class HandledConflictFilterTest {
  @Test
  void onlyDeltasErrorsAboutAHandledConflictAreDropped() {
    List<String> seen = new ArrayList<>();
    LoggerContext context = (LoggerContext) LogManager.getContext(false);
    AbstractAppender capture =
        new AbstractAppender("capture", null, null, true, Property.EMPTY_ARRAY) {
          @Override
          public void append(LogEvent event) {
            seen.add(
                event.getLoggerName()
                    + " "
                    + event.getLevel()
                    + " "
                    + event.getMessage().getFormattedMessage());
          }
        };
    capture.start();
    context.getConfiguration().getRootLogger().addAppender(capture, null, null);
    context.updateLoggers();
    try {
      DeltaRetry.isConflict(new RuntimeException("loads DeltaRetry, which installs the filter"));
      RuntimeException conflict =
          new RuntimeException(
              "wrapped", new ConcurrentAppendException("Files were added to the table"));
      var merge = LoggerFactory.getLogger("org.apache.spark.sql.delta.commands.MergeIntoCommand");
      merge.error("Fatal error in MERGE with materialized source in attempt 1", conflict);
      merge.error("Fatal error in MERGE: disk full", new IllegalStateException("disk full"));
      merge.warn("a warning with a conflict", conflict);
      LoggerFactory.getLogger("io.latelake.gold.GoldJob").error("own error", conflict);
    } finally {
      context.getConfiguration().getRootLogger().removeAppender("capture");
      context.updateLoggers();
      capture.stop();
    }
    assertThat(seen)
        .containsExactly(
            "org.apache.spark.sql.delta.commands.MergeIntoCommand ERROR Fatal error in MERGE: disk full",
            "org.apache.spark.sql.delta.commands.MergeIntoCommand WARN a warning with a conflict",
            "io.latelake.gold.GoldJob ERROR own error");
  }
}

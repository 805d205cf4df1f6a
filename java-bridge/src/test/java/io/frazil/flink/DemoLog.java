package io.frazil.flink;

import java.io.File;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.Filter;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.FileAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.filter.AbstractFilter;
import org.apache.logging.log4j.core.layout.PatternLayout;

/**
 * The demo's log: everything from INFO up (Flink's job lifecycle, each file Frazil wrote, the table
 * switched off) goes to a file; the console keeps the test configuration's warnings.
 */
final class DemoLog {
  private DemoLog() {}

  /**
   * Flink 2.1's source coordinator, told that a checkpoint declined at the end of a bounded job was
   * aborted, logs an ERROR with a stack trace ("Trying to open gateway for unseen checkpoint")
   * although the job goes on and commits every row (the demo reads them back). In the file, not on
   * the console.
   */
  private static final Filter BENIGN_COORDINATOR_ERROR =
      new AbstractFilter(Filter.Result.DENY, Filter.Result.NEUTRAL) {
        @Override
        public Result filter(LogEvent event) {
          Throwable thrown = event.getThrown();
          boolean benign =
              thrown instanceof IllegalStateException
                  && thrown.getMessage() != null
                  && thrown.getMessage().startsWith("Trying to open gateway for unseen checkpoint");
          return benign ? onMatch : onMismatch;
        }
      };

  /** Starts logging to {@code file}; returns it. */
  static File to(File file) {
    LoggerContext context = (LoggerContext) LogManager.getContext(false);
    Configuration config = context.getConfiguration();
    FileAppender appender =
        FileAppender.newBuilder()
            .setName("demo-file")
            .withFileName(file.getAbsolutePath())
            .setConfiguration(config)
            .setLayout(
                PatternLayout.newBuilder()
                    .withConfiguration(config)
                    .withPattern("%d{HH:mm:ss,SSS} %-5p [%t] %c{1} - %m%n")
                    .build())
            .build();
    appender.start();
    BENIGN_COORDINATOR_ERROR.start();
    config.addAppender(appender);
    LoggerConfig root = config.getRootLogger();
    Appender console = config.getAppender("console");
    root.removeAppender("console");
    root.addAppender(console, Level.WARN, BENIGN_COORDINATOR_ERROR);
    root.addAppender(appender, Level.INFO, null);
    root.setLevel(Level.INFO);
    context.updateLoggers();
    return file;
  }
}

package io.frazil.flink;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * Every event of the {@code io.frazil} loggers from INFO up, with its level, while open (the test
 * log configuration shows only warnings, so this lowers that logger's level until closed).
 */
final class CapturedLog implements AutoCloseable {
  private static final String LOGGER = "io.frazil";

  /** One logged message and its level. */
  record Line(Level level, String message) {}

  private final List<Line> lines = new CopyOnWriteArrayList<>();
  private final LoggerContext context = (LoggerContext) LogManager.getContext(false);
  private final AbstractAppender appender =
      new AbstractAppender(
          "captured-" + System.identityHashCode(this), null, null, true, Property.EMPTY_ARRAY) {
        @Override
        public void append(LogEvent event) {
          lines.add(new Line(event.getLevel(), event.getMessage().getFormattedMessage()));
        }
      };

  CapturedLog() {
    appender.start();
    LoggerConfig config = new LoggerConfig(LOGGER, Level.INFO, false);
    config.addAppender(appender, Level.INFO, null);
    context.getConfiguration().addLogger(LOGGER, config);
    context.updateLoggers();
  }

  /** The lines logged so far that contain {@code text}. */
  List<Line> containing(String text) {
    return lines.stream().filter(l -> l.message().contains(text)).collect(Collectors.toList());
  }

  @Override
  public void close() {
    Configuration configuration = context.getConfiguration();
    configuration.removeLogger(LOGGER);
    context.updateLoggers();
    appender.stop();
  }
}

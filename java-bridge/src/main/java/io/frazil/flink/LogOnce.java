package io.frazil.flink;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Messages that are logged once per process and reason: every time Iceberg's own path is used
 * instead of Frazil's (a table switched off, a shape Frazil does not recognise, a missing native
 * library) the log says why once, not once per file or row.
 *
 * <p>An off switch someone set is {@link #info INFO}: nothing is wrong. Everything else is a {@link
 * #warn warning}: Frazil wanted to write and could not.
 *
 * <p>A leaf on purpose: both features (the data-file hook and partition routing) and Frazil's
 * classes inside Iceberg's packages use it without depending on each other.
 */
public final class LogOnce {
  private static final Logger LOG = LoggerFactory.getLogger("io.frazil");
  private static final Set<String> LOGGED_REASONS = ConcurrentHashMap.newKeySet();

  private LogOnce() {}

  /** Logs {@code message} at INFO the first time {@code reasonKey} is seen. */
  public static void info(String reasonKey, String message) {
    if (LOGGED_REASONS.add(reasonKey)) {
      LOG.info("{} (logged once)", message);
    }
  }

  /** Logs {@code message} as a warning the first time {@code reasonKey} is seen. */
  public static void warn(String reasonKey, String message) {
    warn(reasonKey, message, null);
  }

  /** {@link #warn(String, String)} with the cause's stack trace (none when null). */
  public static void warn(String reasonKey, String message, Throwable cause) {
    if (!LOGGED_REASONS.add(reasonKey)) {
      return;
    }
    if (cause == null) {
      // Not passed as an argument: a null last argument is one more placeholder value to log4j.
      LOG.warn("{} (logged once)", message);
    } else {
      LOG.warn("{} (logged once)", message, cause);
    }
  }

  /**
   * Forgets every reason logged so far, so a test that asserts on a message sees it whatever ran
   * before it in the same JVM.
   */
  static void forgetForTests() {
    LOGGED_REASONS.clear();
  }
}

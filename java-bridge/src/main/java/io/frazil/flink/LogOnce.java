package io.frazil.flink;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warnings that are logged once per process and reason: every fallback to Iceberg's own path (a
 * table switched off, a shape Frazil does not recognise, a missing native library) says why once,
 * not once per file or row.
 *
 * <p>A leaf on purpose: both features (the data-file hook and partition routing) and Frazil's
 * classes inside Iceberg's packages use it without depending on each other.
 */
public final class LogOnce {
  private static final Logger LOG = LoggerFactory.getLogger("io.frazil");
  private static final Set<String> LOGGED_REASONS = ConcurrentHashMap.newKeySet();

  private LogOnce() {}

  /** Logs {@code message} as a warning the first time {@code reasonKey} is seen. */
  public static void warn(String reasonKey, String message) {
    warn(reasonKey, message, null);
  }

  /** Logs {@code message} at INFO the first time {@code reasonKey} is seen (expected fallbacks). */
  public static void info(String reasonKey, String message) {
    if (LOGGED_REASONS.add(reasonKey)) {
      LOG.info("{} (logged once)", message);
    }
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
}

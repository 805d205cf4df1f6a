package io.frazil.iceberg;

import java.io.IOException;
import java.util.IdentityHashMap;

/**
 * How the appenders report a failure again, and clean up after one, without ever linking an
 * exception the caller already holds.
 *
 * <p>Iceberg's writers close an appender after {@code add} threw and attach what {@code close}
 * throws to the original exception as suppressed. If that second exception referenced the original
 * (as its cause), the graph would be a cycle, and Flink's task failure path walks causes and
 * suppressed exceptions recursively: the TaskManager dies of a {@code StackOverflowError}. So an
 * earlier failure is only ever <em>named</em>, in the message of a fresh exception.
 */
final class Failures {
  private Failures() {}

  /** One line naming {@code failure}: its class and message, and its root cause's if different. */
  static String describe(Throwable failure) {
    StringBuilder text = new StringBuilder(failure.getClass().getName());
    if (failure.getMessage() != null) {
      text.append(": ").append(failure.getMessage());
    }
    Throwable root = rootCause(failure);
    if (root != failure) {
      text.append(" (caused by ").append(root.getClass().getName());
      if (root.getMessage() != null) {
        text.append(": ").append(root.getMessage());
      }
      text.append(')');
    }
    return text.toString();
  }

  /** What {@code close()} throws for a file whose earlier write failed with {@code earlier}. */
  static IOException cannotFinish(String location, Throwable earlier) {
    return new IOException(
        "Cannot finish " + location + ": an earlier write failed with " + describe(earlier));
  }

  /** What a call after a failed write throws. */
  static IllegalStateException refused(String action, String location, Throwable earlier) {
    return new IllegalStateException(
        "Cannot "
            + action
            + ": an earlier write to "
            + location
            + " failed with "
            + describe(earlier));
  }

  /**
   * The exception to throw for {@code failure}, caught while {@code action}: an {@link
   * OutOfMemoryError} (Arrow's off-heap allocation, a JNI array, a row buffer) becomes an ordinary
   * {@link WriterMemoryException}, so it fails the task and not the TaskManager; anything else is
   * returned unchanged.
   */
  static Throwable ordinary(Throwable failure, String action) {
    if (failure instanceof OutOfMemoryError) {
      return new WriterMemoryException(
          "Out of memory while " + action + ": " + failure.getMessage(), failure);
    }
    return failure;
  }

  /**
   * Ends a {@code close()} that failed while finishing {@code location}: releases the appender's
   * resources (their own failures attached as suppressed) and throws what failed, an {@link
   * OutOfMemoryError} made ordinary.
   */
  static IOException closeFailed(Throwable failure, String location, Runnable release)
      throws IOException {
    Throwable thrown = ordinary(failure, "finishing " + location);
    cleanUpAfter(thrown, release);
    if (thrown instanceof IOException) {
      throw (IOException) thrown;
    }
    throw rethrow(thrown);
  }

  /** Throws {@code failure} (unchecked or an Error) as it is. */
  static RuntimeException rethrow(Throwable failure) {
    if (failure instanceof RuntimeException) {
      throw (RuntimeException) failure;
    }
    if (failure instanceof Error) {
      throw (Error) failure;
    }
    throw new IllegalStateException(failure.toString());
  }

  /**
   * Runs {@code cleanup} after {@code primary} was thrown: anything the cleanup throws is attached
   * to {@code primary} as suppressed (never replacing it), unless that would create a cycle.
   */
  static void cleanUpAfter(Throwable primary, Runnable cleanup) {
    try {
      cleanup.run();
    } catch (Throwable t) {
      suppress(primary, t);
    }
  }

  /** {@code primary.addSuppressed(extra)}, skipped when {@code extra}'s graph holds primary. */
  static void suppress(Throwable primary, Throwable extra) {
    if (extra != primary && !reaches(extra, primary, new IdentityHashMap<>())) {
      primary.addSuppressed(extra);
    }
  }

  private static boolean reaches(
      Throwable from, Throwable target, IdentityHashMap<Throwable, Boolean> seen) {
    if (from == null || seen.put(from, Boolean.TRUE) != null) {
      return false;
    }
    if (from == target) {
      return true;
    }
    for (Throwable suppressed : from.getSuppressed()) {
      if (reaches(suppressed, target, seen)) {
        return true;
      }
    }
    return reaches(from.getCause(), target, seen);
  }

  private static Throwable rootCause(Throwable failure) {
    IdentityHashMap<Throwable, Boolean> seen = new IdentityHashMap<>();
    Throwable current = failure;
    while (current.getCause() != null && seen.put(current, Boolean.TRUE) == null) {
      current = current.getCause();
    }
    return current;
  }
}

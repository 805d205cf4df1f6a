package io.frazil.validation;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One check of one case: counts what was compared and records every mismatch instead of throwing,
 * so a report names all failures at once.
 */
final class Check {
  enum Status {
    PASS,
    FAIL,
    NOT_APPLICABLE
  }

  /** Failure messages kept per check; the rest are counted only. */
  private static final int MAX_MESSAGES = 25;

  final String name;
  private final Map<String, Long> counts = new LinkedHashMap<>();
  private final List<String> failures = new ArrayList<>();
  private long failureCount = 0;
  private long assertions = 0;
  private boolean applicable = true;
  private String note = "";

  Check(String name) {
    this.name = name;
  }

  /** Records one comparison; a false condition is a failure with the formatted message. */
  boolean expect(boolean condition, String format, Object... args) {
    assertions += 1;
    if (!condition) {
      fail(String.format(java.util.Locale.ROOT, format, args));
    }
    return condition;
  }

  /** Records one equality comparison. */
  boolean equal(Object expected, Object actual, String format, Object... args) {
    boolean same = Objects.equals(expected, actual);
    if (!same) {
      String what = String.format(java.util.Locale.ROOT, format, args);
      expect(false, "%s: expected %s, got %s", what, clip(expected), clip(actual));
    } else {
      assertions += 1;
    }
    return same;
  }

  void fail(String message) {
    failureCount += 1;
    if (failures.size() < MAX_MESSAGES) {
      failures.add(message);
    }
  }

  void failWith(String where, Throwable error) {
    StringBuilder text = new StringBuilder(where).append(": ").append(error);
    Throwable cause = error.getCause();
    for (int depth = 0; cause != null && depth < 4; depth += 1, cause = cause.getCause()) {
      text.append(" <- ").append(cause);
    }
    fail(text.toString());
  }

  void count(String key, long delta) {
    counts.merge(key, delta, Long::sum);
  }

  void set(String key, long value) {
    counts.put(key, value);
  }

  long get(String key) {
    return counts.getOrDefault(key, 0L);
  }

  void notApplicable(String why) {
    applicable = false;
    note = why;
  }

  void note(String text) {
    note = text;
  }

  String note() {
    return note;
  }

  Status status() {
    if (!applicable) {
      return Status.NOT_APPLICABLE;
    }
    return failureCount == 0 && assertions > 0 ? Status.PASS : Status.FAIL;
  }

  /** A check that compared nothing did not pass: say so. */
  void closeEmpty() {
    if (applicable && assertions == 0 && failureCount == 0) {
      fail("nothing was compared");
    }
  }

  Map<String, Long> counts() {
    return counts;
  }

  List<String> failures() {
    return failures;
  }

  long failureCount() {
    return failureCount;
  }

  long assertions() {
    return assertions;
  }

  private static String clip(Object value) {
    String text = String.valueOf(value);
    return text.length() <= 300 ? text : text.substring(0, 300) + "…(" + text.length() + " chars)";
  }
}

package io.frazil.nexmark;

import org.apache.flink.table.functions.ScalarFunction;

/** q14's user-defined function: how often {@code c} occurs in {@code text} (0 for null). */
public final class CountChar extends ScalarFunction {
  public long eval(String text, String c) {
    if (text == null || c == null || c.isEmpty()) {
      return 0;
    }
    char wanted = c.charAt(0);
    long count = 0;
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) == wanted) {
        count++;
      }
    }
    return count;
  }
}

package io.frazil.bench;

import java.util.ArrayList;
import java.util.List;

/** Command-line parsing shared by the bench programs (flags may come as one Maven argument). */
final class Flags {
  private Flags() {}

  /** Every whitespace-separated token of every argument, in order. */
  static List<String> tokens(String[] args) {
    List<String> tokens = new ArrayList<>();
    for (String arg : args) {
      for (String token : arg.trim().split("\\s+")) {
        if (!token.isEmpty()) {
          tokens.add(token);
        }
      }
    }
    return tokens;
  }

  /** The token after {@code flag}, at {@code index}. */
  static String value(List<String> tokens, int index, String flag) {
    if (index >= tokens.size()) {
      throw new IllegalArgumentException(flag + " needs a value");
    }
    return tokens.get(index);
  }

  /** A positive int; "2_000_000" and "2,000,000" are accepted. */
  static int positive(String text, String flag) {
    int value = Integer.parseInt(text.replace("_", "").replace(",", ""));
    if (value <= 0) {
      throw new IllegalArgumentException(flag + " must be positive, got " + text);
    }
    return value;
  }

  static int nonNegative(String text, String flag) {
    int value = Integer.parseInt(text.replace("_", ""));
    if (value < 0) {
      throw new IllegalArgumentException(flag + " must be >= 0, got " + text);
    }
    return value;
  }
}

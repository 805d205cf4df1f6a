package io.frazil.bench;

import java.nio.file.Path;
import java.nio.file.Paths;
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

  /** The token after {@code flag} as an absolute, normalized path. */
  static Path path(List<String> tokens, int index, String flag) {
    return Paths.get(value(tokens, index, flag)).toAbsolutePath().normalize();
  }

  /** A comma-separated list of positive ints. */
  static List<Integer> positives(String list, String flag) {
    List<Integer> values = new ArrayList<>();
    for (String part : list.split(",")) {
      values.add(positive(part, flag));
    }
    return List.copyOf(values);
  }

  /** A comma-separated list of names, each one of {@code allowed}. */
  static List<String> names(String list, List<String> allowed, String flag) {
    List<String> values = new ArrayList<>();
    for (String part : list.split(",")) {
      if (!allowed.contains(part)) {
        throw new IllegalArgumentException(flag + ": unknown " + part + ", expected " + allowed);
      }
      values.add(part);
    }
    return List.copyOf(values);
  }

  /** {@code out}, which every bench program needs. */
  static Path requireOut(Path out, String usage) {
    if (out == null) {
      throw new IllegalArgumentException("--out DIR is required\n" + usage);
    }
    return out;
  }
}

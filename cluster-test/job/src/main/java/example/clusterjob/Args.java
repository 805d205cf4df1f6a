package example.clusterjob;

import java.util.HashMap;
import java.util.Map;

/** {@code --key value} arguments. */
final class Args {
  private final Map<String, String> values = new HashMap<>();

  Args(String[] args) {
    for (int i = 0; i < args.length; i += 2) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("expected --key value pairs, got: " + args[i]);
      }
      values.put(args[i].substring(2), args[i + 1]);
    }
  }

  String get(String key) {
    String value = values.get(key);
    if (value == null) {
      throw new IllegalArgumentException("missing --" + key);
    }
    return value;
  }

  String get(String key, String fallback) {
    return values.getOrDefault(key, fallback);
  }

  long getLong(String key, long fallback) {
    return Long.parseLong(get(key, Long.toString(fallback)));
  }

  int getInt(String key, int fallback) {
    return Integer.parseInt(get(key, Integer.toString(fallback)));
  }
}

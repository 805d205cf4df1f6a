package io.frazil.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The bench's JSON lines ({@code iterations.jsonl}, a fan-out trial's result line): flat objects of
 * numbers, strings, booleans and lists written from a map, and read back into their top-level keys
 * with each value as raw JSON text.
 */
final class Json {
  private Json() {}

  static String object(Map<String, Object> map) {
    StringBuilder json = new StringBuilder(1024).append('{');
    boolean first = true;
    for (Map.Entry<String, Object> e : map.entrySet()) {
      if (!first) {
        json.append(',');
      }
      first = false;
      string(json, e.getKey()).append(':');
      value(json, e.getValue());
    }
    return json.append('}').toString();
  }

  static void value(StringBuilder json, Object v) {
    if (v == null) {
      json.append("null");
    } else if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      json.append(Double.isFinite(d) ? String.format(Locale.ROOT, "%.4f", d) : "null");
    } else if (v instanceof Number || v instanceof Boolean) {
      json.append(v);
    } else if (v instanceof List) {
      json.append('[');
      boolean first = true;
      for (Object item : (List<?>) v) {
        if (!first) {
          json.append(',');
        }
        first = false;
        value(json, item);
      }
      json.append(']');
    } else {
      string(json, v.toString());
    }
  }

  static StringBuilder string(StringBuilder json, String s) {
    json.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        json.append('\\').append(c);
      } else if (c < 0x20) {
        json.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      } else {
        json.append(c);
      }
    }
    return json.append('"');
  }

  /** {@code value} as a JSON string literal. */
  static String quote(String value) {
    return string(new StringBuilder(value.length() + 2), value).toString();
  }

  /** Splits one JSON object into its top-level keys and their values as raw JSON text. */
  static Map<String, String> parse(String json) {
    Map<String, String> map = new LinkedHashMap<>();
    int i = json.indexOf('{') + 1;
    int[] end = new int[1];
    while (true) {
      i = skip(json, i);
      if (i >= json.length() || json.charAt(i) == '}') {
        return map;
      }
      String key = unquote(json, i, end);
      i = skip(json, end[0]) + 1; // ':'
      i = skip(json, i);
      int start = i;
      int depth = 0;
      while (i < json.length()) {
        char d = json.charAt(i);
        if (d == '"') {
          unquote(json, i, end);
          i = end[0];
          continue;
        }
        if (d == '[' || d == '{') {
          depth++;
        } else if (d == ']' || d == '}') {
          if (depth == 0) {
            break;
          }
          depth--;
        } else if (d == ',' && depth == 0) {
          break;
        }
        i++;
      }
      map.put(key, json.substring(start, i).trim());
      if (i < json.length() && json.charAt(i) == ',') {
        i++;
      }
    }
  }

  /** The string a raw JSON value holds (the text itself when it is not a JSON string). */
  static String text(String raw) {
    if (raw == null || raw.isEmpty() || raw.charAt(0) != '"') {
      return raw;
    }
    return unquote(raw, 0, new int[1]);
  }

  private static int skip(String json, int i) {
    while (i < json.length() && Character.isWhitespace(json.charAt(i))) {
      i++;
    }
    return i;
  }

  private static String unquote(String json, int i, int[] end) {
    StringBuilder s = new StringBuilder();
    int j = i + 1;
    while (json.charAt(j) != '"') {
      char c = json.charAt(j);
      if (c == '\\') {
        char next = json.charAt(j + 1);
        if (next == 'u') {
          s.append((char) Integer.parseInt(json.substring(j + 2, j + 6), 16));
          j += 6;
        } else {
          s.append(next == 'n' ? '\n' : next == 't' ? '\t' : next);
          j += 2;
        }
      } else {
        s.append(c);
        j++;
      }
    }
    end[0] = j + 1;
    return s.toString();
  }
}

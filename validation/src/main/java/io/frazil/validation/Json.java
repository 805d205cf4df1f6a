package io.frazil.validation;

import java.util.Collection;
import java.util.Map;

/** A minimal JSON writer for report.json (maps, collections, strings, numbers, booleans). */
final class Json {
  private Json() {}

  static String write(Object value) {
    StringBuilder out = new StringBuilder();
    write(out, value, 0);
    return out.append('\n').toString();
  }

  private static void write(StringBuilder out, Object value, int indent) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof Boolean || value instanceof Integer || value instanceof Long) {
      out.append(value);
    } else if (value instanceof Number) {
      double d = ((Number) value).doubleValue();
      out.append(Double.isFinite(d) ? String.valueOf(value) : "null");
    } else if (value instanceof Map<?, ?>) {
      Map<?, ?> map = (Map<?, ?>) value;
      if (map.isEmpty()) {
        out.append("{}");
        return;
      }
      out.append("{\n");
      int i = 0;
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        pad(out, indent + 1);
        string(out, String.valueOf(entry.getKey()));
        out.append(": ");
        write(out, entry.getValue(), indent + 1);
        out.append(++i < map.size() ? ",\n" : "\n");
      }
      pad(out, indent);
      out.append('}');
    } else if (value instanceof Collection<?>) {
      Collection<?> list = (Collection<?>) value;
      if (list.isEmpty()) {
        out.append("[]");
        return;
      }
      out.append("[\n");
      int i = 0;
      for (Object element : list) {
        pad(out, indent + 1);
        write(out, element, indent + 1);
        out.append(++i < list.size() ? ",\n" : "\n");
      }
      pad(out, indent);
      out.append(']');
    } else {
      string(out, value.toString());
    }
  }

  private static void pad(StringBuilder out, int indent) {
    out.append("  ".repeat(indent));
  }

  private static void string(StringBuilder out, String text) {
    out.append('"');
    for (int i = 0; i < text.length(); i += 1) {
      char c = text.charAt(i);
      switch (c) {
        case '"':
          out.append("\\\"");
          break;
        case '\\':
          out.append("\\\\");
          break;
        case '\n':
          out.append("\\n");
          break;
        case '\r':
          out.append("\\r");
          break;
        case '\t':
          out.append("\\t");
          break;
        default:
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
      }
    }
    out.append('"');
  }
}

package io.frazil.flink.arrow;

import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** Says in words how an Arrow schema differs from the one expected, first difference first. */
final class SchemaMismatch {
  private SchemaMismatch() {}

  static String describe(Schema expected, Schema actual) {
    String difference = fields(expected.getFields(), actual.getFields(), "");
    if (difference == null) {
      difference =
          "schema metadata "
              + actual.getCustomMetadata()
              + ", expected "
              + expected.getCustomMetadata();
    }
    return difference
        + " (expected "
        + names(expected.getFields())
        + ", got "
        + names(actual.getFields())
        + ")";
  }

  private static String fields(List<Field> expected, List<Field> actual, String path) {
    int common = Math.min(expected.size(), actual.size());
    for (int i = 0; i < common; i++) {
      String difference = field(expected.get(i), actual.get(i), path);
      if (difference != null) {
        return difference;
      }
    }
    if (actual.size() > expected.size()) {
      return "unexpected column '"
          + path
          + actual.get(common).getName()
          + "' at position "
          + common;
    }
    if (expected.size() > actual.size()) {
      return "missing column '" + path + expected.get(common).getName() + "' at position " + common;
    }
    return null;
  }

  private static String field(Field expected, Field actual, String path) {
    String name = path + expected.getName();
    if (!expected.getName().equals(actual.getName())) {
      return "column '" + path + actual.getName() + "' where '" + name + "' was expected";
    }
    if (!expected.getType().equals(actual.getType())) {
      return "column '" + name + "' is " + actual.getType() + ", expected " + expected.getType();
    }
    if (expected.isNullable() != actual.isNullable()) {
      return "column '"
          + name
          + "' is "
          + nullability(actual)
          + ", expected "
          + nullability(expected);
    }
    Map<String, String> expectedMetadata = expected.getMetadata();
    if (!expectedMetadata.equals(actual.getMetadata())) {
      return "column '"
          + name
          + "' has metadata "
          + actual.getMetadata()
          + ", expected "
          + expectedMetadata
          + " (e.g. another Iceberg field id)";
    }
    return fields(expected.getChildren(), actual.getChildren(), name + ".");
  }

  private static String nullability(Field field) {
    return field.isNullable() ? "nullable" : "not nullable";
  }

  private static String names(List<Field> fields) {
    StringBuilder names = new StringBuilder("[");
    for (Field field : fields) {
      names
          .append(names.length() > 1 ? ", " : "")
          .append(field.getName())
          .append(' ')
          .append(field.getType());
    }
    return names.append(']').toString();
  }
}

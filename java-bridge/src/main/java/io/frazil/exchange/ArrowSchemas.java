package io.frazil.exchange;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Arrow schemas as the JSON text serializers and type information keep (arrow-java's {@link Schema}
 * is not {@code java.io.Serializable}, and Flink ships both inside the job graph).
 */
final class ArrowSchemas {
  private ArrowSchemas() {}

  static String toJson(Schema schema) {
    return schema.toJson();
  }

  static Schema fromJson(String json) {
    try {
      return Schema.fromJSON(json);
    } catch (IOException e) {
      throw new UncheckedIOException("Invalid Arrow schema JSON: " + json, e);
    }
  }
}

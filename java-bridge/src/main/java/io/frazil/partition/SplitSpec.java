package io.frazil.partition;

import io.frazil.arrow.IcebergArrowSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.transforms.Transform;
import org.apache.iceberg.types.Type;

/**
 * A partition spec as the native split reads it: per partition field, the transform (code and
 * parameter) and the path of its source column through the Arrow schema (top-level index, then
 * struct child indices), found by the {@value IcebergArrowSchema#FIELD_ID_KEY} metadata that {@link
 * IcebergArrowSchema} puts on every field.
 *
 * <p>Layout of {@link #codes()}: {@code [field count, then per field: code, parameter, path length,
 * path…]}; codes 0 identity, 1 bucket[N], 2 truncate[W], 3 year, 4 month, 5 day, 6 hour, 7 void
 * ({@code native/src/partition/transforms.rs}, {@code Transform::from_code}).
 */
final class SplitSpec {
  private static final Pattern PARAMETERIZED = Pattern.compile("(bucket|truncate)\\[(\\d+)\\]");

  private final int[] codes;

  private SplitSpec(int[] codes) {
    this.codes = codes;
  }

  int[] codes() {
    return codes.clone();
  }

  /**
   * The encoding of {@code spec} over batches of {@code arrowSchema}.
   *
   * @throws UnsupportedSplitException naming the partition field when a transform is not one of
   *     Iceberg's built-in transforms, does not apply to its source type, or its source is not
   *     reachable through structs in the Arrow schema
   */
  static SplitSpec of(
      PartitionSpec spec, Schema schema, org.apache.arrow.vector.types.pojo.Schema arrowSchema) {
    List<Integer> out = new ArrayList<>();
    out.add(spec.fields().size());
    for (PartitionField field : spec.fields()) {
      Transform<?, ?> transform = field.transform();
      Type sourceType = schema.findType(field.sourceId());
      if (sourceType == null) {
        throw unsupported(field, "its source field " + field.sourceId() + " is not in the schema");
      }
      if (!transform.canTransform(sourceType)) {
        throw unsupported(field, transform + " does not apply to " + sourceType);
      }
      int[] codeAndParam = codeAndParam(field, transform);
      out.add(codeAndParam[0]);
      out.add(codeAndParam[1]);
      List<Integer> path = new ArrayList<>();
      if (!findPath(arrowSchema.getFields(), field.sourceId(), path)) {
        throw unsupported(
            field,
            "its source field "
                + field.sourceId()
                + " is not reachable through structs in the Arrow schema");
      }
      out.add(path.size());
      out.addAll(path);
    }
    return new SplitSpec(out.stream().mapToInt(Integer::intValue).toArray());
  }

  private static int[] codeAndParam(PartitionField field, Transform<?, ?> transform) {
    // UnknownTransform (a transform this Iceberg does not know) may carry any name.
    if (transform.getClass().getSimpleName().equals("UnknownTransform")) {
      throw unsupported(field, "its transform " + transform + " is unknown to Iceberg");
    }
    if (transform.isVoid()) {
      return new int[] {7, 0};
    }
    String name = transform.toString();
    Matcher matcher = PARAMETERIZED.matcher(name);
    if (matcher.matches()) {
      int param = Integer.parseInt(matcher.group(2));
      return new int[] {matcher.group(1).equals("bucket") ? 1 : 2, param};
    }
    switch (name) {
      case "identity":
        return new int[] {0, 0};
      case "year":
        return new int[] {3, 0};
      case "month":
        return new int[] {4, 0};
      case "day":
        return new int[] {5, 0};
      case "hour":
        return new int[] {6, 0};
      default:
        throw unsupported(field, "the native split does not implement " + name);
    }
  }

  /** Appends the indices leading to the field with {@code fieldId}; true if found. */
  private static boolean findPath(List<Field> fields, int fieldId, List<Integer> path) {
    for (int i = 0; i < fields.size(); i++) {
      Field field = fields.get(i);
      String id = field.getMetadata().get(IcebergArrowSchema.FIELD_ID_KEY);
      if (id != null && Integer.parseInt(id) == fieldId) {
        path.add(i);
        return true;
      }
      if (field.getType().getTypeID() == ArrowType.ArrowTypeID.Struct) {
        path.add(i);
        if (findPath(field.getChildren(), fieldId, path)) {
          return true;
        }
        path.remove(path.size() - 1);
      }
    }
    return false;
  }

  private static UnsupportedSplitException unsupported(PartitionField field, String why) {
    return new UnsupportedSplitException(
        "Cannot split by partition field '" + field.name() + "' natively: " + why);
  }
}

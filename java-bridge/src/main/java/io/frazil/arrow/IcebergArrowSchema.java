package io.frazil.arrow;

import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.avro.AvroSchemaUtil;
import org.apache.iceberg.relocated.com.google.common.collect.ImmutableMap;
import org.apache.iceberg.relocated.com.google.common.collect.Lists;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Converts an Iceberg schema into the Arrow schema handed to the native Parquet encoder.
 *
 * <p>The native side derives the Parquet schema from this Arrow schema alone, so every rule here
 * mirrors what Iceberg's own Parquet writer produces: names go through Iceberg's Parquet name
 * sanitisation, every field that maps to an Iceberg field carries its field id as {@code
 * PARQUET:field_id} metadata, list elements are named {@code element} and map entries {@code
 * key_value}/{@code key}/{@code value}. Iceberg {@code unknown} fields are left out because Iceberg
 * never writes them to Parquet.
 */
public final class IcebergArrowSchema {
  /** Arrow field metadata key the Parquet writers read the field id from. */
  public static final String FIELD_ID_KEY = "PARQUET:field_id";

  /** Arrow field metadata key marking fields whose Iceberg type the Arrow type cannot express. */
  public static final String ICEBERG_TYPE_KEY = "iceberg:type";

  static final String LIST_ELEMENT_NAME = "element";
  static final String MAP_ENTRIES_NAME = "key_value";
  static final String MAP_KEY_NAME = "key";
  static final String MAP_VALUE_NAME = "value";

  private IcebergArrowSchema() {}

  /**
   * Converts {@code schema} to an Arrow schema.
   *
   * @throws UnsupportedOperationException if the schema holds a variant, geometry or geography
   *     field
   * @throws IllegalArgumentException if a list element or map key/value has the {@code unknown}
   *     type
   */
  public static org.apache.arrow.vector.types.pojo.Schema convert(Schema schema) {
    return new org.apache.arrow.vector.types.pojo.Schema(
        convertFields(schema.asStruct().fields(), ""));
  }

  /** Returns whether {@link #convert(Schema)} accepts {@code schema}. */
  public static boolean isSupported(Schema schema) {
    return unsupportedReason(schema) == null;
  }

  /**
   * Returns why {@link #convert(Schema)} rejects {@code schema}, or null when it accepts it.
   *
   * <p>Lets a sink fall back to the stock Iceberg writer with a loggable reason instead of failing.
   */
  public static String unsupportedReason(Schema schema) {
    try {
      convert(schema);
      return null;
    } catch (UnsupportedOperationException | IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  /** Returns whether Iceberg omits fields of {@code type} from data files. */
  static boolean isOmitted(Type type) {
    return type.typeId() == Type.TypeID.UNKNOWN;
  }

  private static List<Field> convertFields(List<Types.NestedField> fields, String parentPath) {
    List<Field> arrowFields = Lists.newArrayListWithExpectedSize(fields.size());
    for (Types.NestedField field : fields) {
      if (!isOmitted(field.type())) {
        arrowFields.add(
            convertField(
                AvroSchemaUtil.makeCompatibleName(field.name()),
                field.fieldId(),
                field.isOptional(),
                field.type(),
                parentPath + field.name()));
      }
    }

    return arrowFields;
  }

  private static Field convertField(
      String name, int fieldId, boolean nullable, Type type, String path) {
    switch (type.typeId()) {
      case STRUCT:
        return field(
            name,
            nullable,
            ArrowType.Struct.INSTANCE,
            fieldId,
            convertFields(type.asStructType().fields(), path + "."));
      case LIST:
        return field(
            name, nullable, ArrowType.List.INSTANCE, fieldId, list(type.asListType(), path));
      case MAP:
        return field(
            name, nullable, new ArrowType.Map(false), fieldId, map(type.asMapType(), path));
      case UUID:
        // Arrow has no UUID type (without an extension type the native side would not know), so
        // the encoder is told by metadata to annotate the fixed[16] column with the UUID type.
        return new Field(
            name,
            new FieldType(
                nullable,
                new ArrowType.FixedSizeBinary(16),
                null,
                ImmutableMap.of(FIELD_ID_KEY, String.valueOf(fieldId), ICEBERG_TYPE_KEY, "uuid")),
            null);
      default:
        return field(name, nullable, primitive(type, path), fieldId, null);
    }
  }

  private static List<Field> list(Types.ListType list, String path) {
    Types.NestedField element = list.fields().get(0);
    String elementPath = path + "." + element.name();
    checkNotOmitted(element, elementPath);
    return List.of(
        convertField(
            LIST_ELEMENT_NAME,
            element.fieldId(),
            element.isOptional(),
            element.type(),
            elementPath));
  }

  private static List<Field> map(Types.MapType map, String path) {
    Types.NestedField key = map.fields().get(0);
    Types.NestedField value = map.fields().get(1);
    String keyPath = path + "." + key.name();
    String valuePath = path + "." + value.name();
    checkNotOmitted(key, keyPath);
    checkNotOmitted(value, valuePath);
    Field keyField = convertField(MAP_KEY_NAME, key.fieldId(), false, key.type(), keyPath);
    Field valueField =
        convertField(MAP_VALUE_NAME, value.fieldId(), value.isOptional(), value.type(), valuePath);
    // The entries struct is a Parquet repeated group with no Iceberg field of its own: no field id.
    return List.of(
        new Field(
            MAP_ENTRIES_NAME,
            FieldType.notNullable(ArrowType.Struct.INSTANCE),
            List.of(keyField, valueField)));
  }

  private static void checkNotOmitted(Types.NestedField field, String path) {
    if (isOmitted(field.type())) {
      // An omitted field can be skipped in a struct, but a list or map cannot lose its element,
      // key or value without changing shape.
      throw new IllegalArgumentException(
          String.format(
              "Cannot write field '%s': type %s is not allowed here", path, field.type()));
    }
  }

  private static ArrowType primitive(Type type, String path) {
    switch (type.typeId()) {
      case BOOLEAN:
        return ArrowType.Bool.INSTANCE;
      case INTEGER:
        return new ArrowType.Int(32, true);
      case LONG:
        return new ArrowType.Int(64, true);
      case FLOAT:
        return new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
      case DOUBLE:
        return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case DECIMAL:
        Types.DecimalType decimal = (Types.DecimalType) type;
        return new ArrowType.Decimal(decimal.precision(), decimal.scale(), 128);
      case DATE:
        return new ArrowType.Date(DateUnit.DAY);
      case TIME:
        return new ArrowType.Time(TimeUnit.MICROSECOND, 64);
      case TIMESTAMP:
        return new ArrowType.Timestamp(
            TimeUnit.MICROSECOND, ((Types.TimestampType) type).shouldAdjustToUTC() ? "UTC" : null);
      case TIMESTAMP_NANO:
        return new ArrowType.Timestamp(
            TimeUnit.NANOSECOND,
            ((Types.TimestampNanoType) type).shouldAdjustToUTC() ? "UTC" : null);
      case STRING:
        return ArrowType.Utf8.INSTANCE;
      case FIXED:
        return new ArrowType.FixedSizeBinary(((Types.FixedType) type).length());
      case BINARY:
        return ArrowType.Binary.INSTANCE;
      default:
        // variant, geometry and geography have no Arrow mapping the native encoder understands.
        throw new UnsupportedOperationException(
            String.format("Cannot write field '%s': unsupported type %s", path, type));
    }
  }

  private static Field field(
      String name, boolean nullable, ArrowType type, int fieldId, List<Field> children) {
    Map<String, String> metadata = ImmutableMap.of(FIELD_ID_KEY, String.valueOf(fieldId));
    return new Field(name, new FieldType(nullable, type, null, metadata), children);
  }
}

package io.frazil.read;

import io.frazil.read.vector.ColumnConverter;
import io.frazil.read.vector.ColumnConverters;
import io.frazil.read.vector.ConstantVector;
import io.frazil.read.vector.NestedRows;
import io.frazil.read.vector.PositionVector;
import io.frazil.read.vector.UnsupportedReadException;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.flink.data.RowDataUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.schema.GroupType;

/**
 * Builds Flink rows of the table's projected struct from a decoded batch, with the rules of
 * Iceberg's Flink Parquet reader ({@code FlinkParquetReaders.struct} and {@code
 * ParquetValueReaders.replaceWithMetadataReader}): fields are matched by field id, in the table's
 * order; v3 row lineage, {@code idToConstant} entries, {@code _pos} and {@code _deleted} take
 * precedence over file columns; a field the file lacks reads as its initial default or null, and a
 * required one is an error.
 */
final class RowConverter {
  /** How one field of the expected struct gets its vector for a batch. */
  private interface FieldSource {
    ColumnVector vector(FieldVector[] fileColumns, long firstPosition);
  }

  private final FieldSource[] fields;

  private RowConverter(FieldSource[] fields) {
    this.fields = fields;
  }

  /** The converter of the projected top-level struct, file columns in {@code arrowFields} order. */
  static RowConverter root(
      Types.StructType expected,
      GroupType projection,
      List<Field> arrowFields,
      Map<Integer, ?> idToConstant)
      throws UnsupportedReadException {
    List<Types.NestedField> expectedFields = expected.fields();
    FieldSource[] sources = new FieldSource[expectedFields.size()];
    for (int i = 0; i < sources.length; i++) {
      sources[i] = rootField(expectedFields.get(i), projection, arrowFields, idToConstant);
    }
    return new RowConverter(sources);
  }

  /** One batch as Flink columns; {@code root} holds the file columns, possibly none. */
  VectorizedColumnBatch convert(VectorSchemaRoot root, int rows, long firstPosition) {
    FieldVector[] columns =
        root == null ? new FieldVector[0] : root.getFieldVectors().toArray(new FieldVector[0]);
    ColumnVector[] vectors = new ColumnVector[fields.length];
    for (int i = 0; i < vectors.length; i++) {
      vectors[i] = fields[i].vector(columns, firstPosition);
    }
    VectorizedColumnBatch batch = new VectorizedColumnBatch(vectors);
    batch.setNumRows(rows);
    return batch;
  }

  private static FieldSource rootField(
      Types.NestedField field,
      GroupType projection,
      List<Field> arrowFields,
      Map<Integer, ?> idToConstant)
      throws UnsupportedReadException {
    int id = field.fieldId();
    int ordinal = ordinalOf(projection, id);
    ColumnConverter stored =
        ordinal < 0
            ? null
            : converter(
                arrowFields.get(ordinal), projection.getType(ordinal), field.type(), idToConstant);
    if (id == MetadataColumns.ROW_ID.fieldId()) {
      Long firstRowId = (Long) idToConstant.get(id);
      if (firstRowId == null) {
        return constant(null);
      }
      return (columns, first) ->
          PositionVector.rowIds(
              first, firstRowId, stored == null ? null : stored.convert(columns[ordinal]));
    } else if (id == MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.fieldId()) {
      Long firstRowId = (Long) idToConstant.get(MetadataColumns.ROW_ID.fieldId());
      Long sequenceNumber = (Long) idToConstant.get(id);
      if (firstRowId == null || sequenceNumber == null) {
        return constant(null);
      }
      return (columns, first) ->
          PositionVector.sequenceNumbers(
              sequenceNumber, stored == null ? null : stored.convert(columns[ordinal]));
    } else if (idToConstant.containsKey(id)) {
      return constant(idToConstant.get(id));
    } else if (id == MetadataColumns.ROW_POSITION.fieldId()) {
      return (columns, first) -> PositionVector.positions(first);
    } else if (id == MetadataColumns.IS_DELETED.fieldId()) {
      return constant(false);
    } else if (stored != null) {
      return (columns, first) -> stored.convert(columns[ordinal]);
    }
    return missing(field);
  }

  private static FieldSource constant(Object value) throws UnsupportedReadException {
    if (!ConstantVector.supports(value)) {
      throw new UnsupportedReadException(
          "constantType", "a constant of " + value.getClass().getName());
    }
    ConstantVector vector = ConstantVector.of(value);
    return (columns, first) -> vector;
  }

  private static FieldSource missing(Types.NestedField field) throws UnsupportedReadException {
    if (field.initialDefault() != null) {
      return constant(RowDataUtil.convertConstant(field.type(), field.initialDefault()));
    } else if (field.isOptional()) {
      return constant(null);
    }
    throw new IllegalArgumentException(String.format("Missing required field: %s", field.name()));
  }

  private static int ordinalOf(GroupType group, int id) {
    List<org.apache.parquet.schema.Type> fields = group.getFields();
    for (int i = 0; i < fields.size(); i++) {
      org.apache.parquet.schema.Type.ID fieldId = fields.get(i).getId();
      if (fieldId != null && fieldId.intValue() == id) {
        return i;
      }
    }
    return -1;
  }

  /** The converter of one file column (any depth) read as {@code expected}. */
  private static ColumnConverter converter(
      Field arrow, org.apache.parquet.schema.Type parquet, Type expected, Map<Integer, ?> constants)
      throws UnsupportedReadException {
    if (!arrow.getName().equals(parquet.getName())) {
      throw new UnsupportedReadException(
          "schemaShape", "Arrow field " + arrow.getName() + " for Parquet " + parquet.getName());
    }
    if (expected.isPrimitiveType()) {
      return ColumnConverters.forPrimitive(arrow, expected.asPrimitiveType());
    }
    switch (expected.typeId()) {
      case STRUCT:
        require(
            arrow.getType() instanceof ArrowType.Struct && !parquet.isPrimitive(), arrow, expected);
        return struct(arrow, parquet.asGroupType(), expected.asStructType(), constants);
      case LIST:
        require(
            arrow.getType() instanceof ArrowType.List && !parquet.isPrimitive(), arrow, expected);
        return ColumnConverters.forList(
            converter(
                arrow.getChildren().get(0),
                listElement(parquet.asGroupType()),
                expected.asListType().elementType(),
                constants));
      case MAP:
        require(
            arrow.getType() instanceof ArrowType.Map && !parquet.isPrimitive(), arrow, expected);
        GroupType keyValue = parquet.asGroupType().getType(0).asGroupType();
        List<Field> entries = arrow.getChildren().get(0).getChildren();
        require(entries.size() == 2 && keyValue.getFieldCount() == 2, arrow, expected);
        return ColumnConverters.forMap(
            converter(
                entries.get(0), keyValue.getType(0), expected.asMapType().keyType(), constants),
            converter(
                entries.get(1), keyValue.getType(1), expected.asMapType().valueType(), constants));
      default:
        throw new UnsupportedReadException(
            "columnType", "column " + arrow.getName() + " read as " + expected);
    }
  }

  /** A nested struct: the same field rules as the top level, without metadata columns. */
  private static ColumnConverter struct(
      Field arrow, GroupType parquet, Types.StructType expected, Map<Integer, ?> constants)
      throws UnsupportedReadException {
    List<Types.NestedField> expectedFields = expected.fields();
    int[] ordinals = new int[expectedFields.size()];
    ColumnConverter[] converters = new ColumnConverter[ordinals.length];
    ColumnVector[] fixed = new ColumnVector[ordinals.length];
    for (int i = 0; i < ordinals.length; i++) {
      Types.NestedField field = expectedFields.get(i);
      int ordinal = ordinalOf(parquet, field.fieldId());
      ordinals[i] = ordinal;
      if (constants.containsKey(field.fieldId())) {
        fixed[i] = constant(constants.get(field.fieldId())).vector(null, 0);
      } else if (ordinal >= 0) {
        converters[i] =
            converter(
                arrow.getChildren().get(ordinal),
                parquet.getType(ordinal),
                field.type(),
                constants);
      } else {
        fixed[i] = missing(field).vector(null, 0);
      }
    }
    return NestedRows.converter(ordinals, converters, fixed);
  }

  /** The element of a Parquet list: 3-level lists wrap it in a repeated group, 2-level do not. */
  private static org.apache.parquet.schema.Type listElement(GroupType list) {
    org.apache.parquet.schema.Type repeated = list.getType(0);
    if (repeated.isPrimitive()
        || repeated.asGroupType().getFieldCount() > 1
        || repeated.getName().equals("array")
        || repeated.getName().equals(list.getName() + "_tuple")) {
      return repeated;
    }
    return repeated.asGroupType().getType(0);
  }

  private static void require(boolean condition, Field arrow, Type expected)
      throws UnsupportedReadException {
    if (!condition) {
      throw new UnsupportedReadException(
          "columnType",
          "column "
              + arrow.getName()
              + " is "
              + arrow.getType()
              + " in the file, read as "
              + expected);
    }
  }
}

package io.frazil.flink.arrow;

import io.frazil.exchange.ArrowBatch;
import io.frazil.read.vector.ColumnConverter;
import io.frazil.read.vector.ColumnConverters;
import io.frazil.read.vector.ConstantVector;
import io.frazil.read.vector.NestedRows;
import io.frazil.read.vector.UnsupportedReadException;
import java.util.List;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Copies a batch of an {@link ArrowRowLayout} into Flink heap column vectors, with the column
 * converters of the native reader ({@code io.frazil.read.vector}): the rows built on them stay
 * valid after the batch is released. Built once per operator; not thread-safe.
 */
final class ArrowBatchColumns {
  private static final RowKind[] KINDS = kinds();
  private static final ColumnVector NULLS = ConstantVector.of(null);

  /** Per table column: its converter, or null for a column Iceberg never writes (unknown). */
  private final ColumnConverter[] columns;

  /** Per table column: its vector in the batch (-1 for an omitted column). */
  private final int[] ordinals;

  private final int batchColumns;
  private final boolean rowKind;

  ArrowBatchColumns(ArrowRowLayout layout) {
    List<Types.NestedField> fields = layout.tableSchema().columns();
    List<Field> arrowFields = layout.arrowSchema().getFields();
    this.columns = new ColumnConverter[fields.size()];
    this.ordinals = new int[fields.size()];
    int ordinal = 0;
    for (int i = 0; i < columns.length; i++) {
      Type type = fields.get(i).type();
      if (type.typeId() == Type.TypeID.UNKNOWN) {
        ordinals[i] = -1;
      } else {
        ordinals[i] = ordinal;
        columns[i] = converter(arrowFields.get(ordinal), type);
        ordinal += 1;
      }
    }
    this.batchColumns = ordinal;
    this.rowKind = layout.hasRowKind();
  }

  /** The table columns of {@code root} as heap vectors ({@code root} may be released after). */
  VectorizedColumnBatch copy(VectorSchemaRoot root) {
    ColumnVector[] vectors = new ColumnVector[columns.length];
    for (int i = 0; i < vectors.length; i++) {
      vectors[i] = columns[i] == null ? NULLS : columns[i].convert(root.getVector(ordinals[i]));
    }
    VectorizedColumnBatch batch = new VectorizedColumnBatch(vectors);
    batch.setNumRows(root.getRowCount());
    return batch;
  }

  /**
   * The table columns of {@code batch}, each copied into a heap vector when first read ({@link
   * LazyColumnVector}); {@code batch} must stay open until the rows are no longer read.
   */
  VectorizedColumnBatch lazy(ArrowBatch batch) {
    VectorSchemaRoot root = batch.root();
    ColumnVector[] vectors = new ColumnVector[columns.length];
    for (int i = 0; i < vectors.length; i++) {
      if (columns[i] == null) {
        vectors[i] = NULLS;
      } else {
        ColumnConverter converter = columns[i];
        int ordinal = ordinals[i];
        vectors[i] =
            new LazyColumnVector(
                root.getVector(ordinal).getName(),
                () -> converter.convert(batch.root().getVector(ordinal)));
      }
    }
    VectorizedColumnBatch rows = new VectorizedColumnBatch(vectors);
    rows.setNumRows(root.getRowCount());
    return rows;
  }

  /** Each row's kind, or null when the layout has no row kind column (all inserts). */
  RowKind[] rowKinds(VectorSchemaRoot root) {
    if (!rowKind) {
      return null;
    }
    TinyIntVector kinds = (TinyIntVector) root.getVector(batchColumns);
    RowKind[] result = new RowKind[root.getRowCount()];
    for (int i = 0; i < result.length; i++) {
      byte value = kinds.isNull(i) ? -1 : kinds.get(i);
      if (value < 0 || value >= KINDS.length) {
        throw new IllegalArgumentException(
            "Invalid row kind "
                + (kinds.isNull(i) ? "null" : Byte.toString(value))
                + " in column "
                + ArrowRowLayout.ROW_KIND_COLUMN
                + " at row "
                + i
                + " of the batch (expected 0..3: +I, -U, +U, -D)");
      }
      result[i] = KINDS[value];
    }
    return result;
  }

  private static ColumnConverter converter(Field arrow, Type type) {
    try {
      return converterOrThrow(arrow, type);
    } catch (UnsupportedReadException e) {
      // The layout's own schema always converts: a failure here is a bug, not bad input.
      throw new IllegalStateException("Cannot read column " + arrow.getName() + " as " + type, e);
    }
  }

  private static ColumnConverter converterOrThrow(Field arrow, Type type)
      throws UnsupportedReadException {
    if (type.isPrimitiveType()) {
      return ColumnConverters.forPrimitive(arrow, type.asPrimitiveType());
    }
    switch (type.typeId()) {
      case LIST:
        return ColumnConverters.forList(
            converterOrThrow(arrow.getChildren().get(0), type.asListType().elementType()));
      case MAP:
        List<Field> entries = arrow.getChildren().get(0).getChildren();
        return ColumnConverters.forMap(
            converterOrThrow(entries.get(0), type.asMapType().keyType()),
            converterOrThrow(entries.get(1), type.asMapType().valueType()));
      case STRUCT:
        List<Types.NestedField> fields = type.asStructType().fields();
        int[] childOrdinals = new int[fields.size()];
        ColumnConverter[] children = new ColumnConverter[fields.size()];
        ColumnVector[] omitted = new ColumnVector[fields.size()];
        int child = 0;
        for (int i = 0; i < childOrdinals.length; i++) {
          Type childType = fields.get(i).type();
          if (childType.typeId() == Type.TypeID.UNKNOWN) {
            omitted[i] = NULLS;
          } else {
            childOrdinals[i] = child;
            children[i] = converterOrThrow(arrow.getChildren().get(child), childType);
            child += 1;
          }
        }
        return NestedRows.converter(childOrdinals, children, omitted);
      default:
        throw new UnsupportedReadException("columnType", arrow.getName() + " as " + type);
    }
  }

  private static RowKind[] kinds() {
    RowKind[] kinds = new RowKind[RowKind.values().length];
    for (RowKind kind : RowKind.values()) {
      kinds[kind.toByteValue()] = kind;
    }
    return kinds;
  }
}

package io.frazil.read;

import io.frazil.arrow.RowDataArrowWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.table.data.GenericRowData;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.types.Types;
import org.apache.parquet.schema.GroupType;

/**
 * How a decoded batch of a file becomes a batch of the table's Arrow layout without going through
 * rows: each top-level column is either a file column whose decoded Arrow type is the layout's (its
 * buffers are transferred, not copied) or a constant of the file (an identity partition value or a
 * null for a column the file lacks), written once per row. {@link #plan} returns null when a column
 * is neither — nested, decoded to another Arrow type, a metadata column ({@code _pos}, row lineage,
 * {@code _deleted}), an initial default — and the caller then reads the file as rows.
 */
public final class BatchAssembly {
  private final org.apache.arrow.vector.types.pojo.Schema target;

  /** Per target column: the file column's ordinal, or -1 for a constant. */
  private final int[] ordinals;

  /** Per constant column: its one-column Iceberg schema and Flink-internal value. */
  private final Schema[] constantSchemas;

  private final Object[] constants;

  private BatchAssembly(
      org.apache.arrow.vector.types.pojo.Schema target,
      int[] ordinals,
      Schema[] constantSchemas,
      Object[] constants) {
    this.target = target;
    this.ordinals = ordinals;
    this.constantSchemas = constantSchemas;
    this.constants = constants;
  }

  static BatchAssembly plan(
      Schema projection,
      GroupType fileProjection,
      List<Field> fileFields,
      Map<Integer, ?> idToConstant,
      org.apache.arrow.vector.types.pojo.Schema target) {
    List<Types.NestedField> columns = projection.columns();
    if (columns.size() != target.getFields().size() || fileFields.isEmpty()) {
      return null;
    }
    int[] ordinals = new int[columns.size()];
    Schema[] constantSchemas = new Schema[columns.size()];
    Object[] constants = new Object[columns.size()];
    for (int i = 0; i < columns.size(); i++) {
      Types.NestedField column = columns.get(i);
      int id = column.fieldId();
      if (MetadataColumns.isMetadataColumn(id)) {
        return null;
      }
      Field wanted = target.getFields().get(i);
      int ordinal = ordinalOf(fileProjection, id);
      ordinals[i] = -1;
      if (idToConstant.containsKey(id)) {
        constantSchemas[i] = new Schema(column);
        constants[i] = idToConstant.get(id);
      } else if (ordinal >= 0) {
        Field stored = fileFields.get(ordinal);
        if (!column.type().isPrimitiveType()
            || !stored.getChildren().isEmpty()
            || !stored.getType().equals(wanted.getType())) {
          return null;
        }
        ordinals[i] = ordinal;
      } else if (column.isOptional() && column.initialDefault() == null) {
        constantSchemas[i] = new Schema(column);
        constants[i] = null;
      } else {
        return null;
      }
    }
    return new BatchAssembly(target, ordinals, constantSchemas, constants);
  }

  /**
   * The layout's batch of {@code rows} rows from {@code decoded}: file columns transferred out of
   * it (it is left empty), constants written, all in {@code into}'s accounting.
   */
  VectorSchemaRoot assemble(VectorSchemaRoot decoded, int rows, BufferAllocator into) {
    List<FieldVector> vectors = new ArrayList<>(ordinals.length);
    try {
      for (int i = 0; i < ordinals.length; i++) {
        Field field = target.getFields().get(i);
        FieldVector vector = field.createVector(into);
        vectors.add(vector);
        FieldVector source =
            ordinals[i] >= 0 ? decoded.getVector(ordinals[i]) : constant(i, rows, into);
        try {
          source.makeTransferPair(vector).transfer();
        } finally {
          if (ordinals[i] < 0) {
            source.close();
          }
        }
        vector.setValueCount(rows);
      }
      return new VectorSchemaRoot(target.getFields(), vectors, rows);
    } catch (RuntimeException | Error e) {
      for (FieldVector vector : vectors) {
        vector.close();
      }
      throw e;
    }
  }

  /** Column {@code i}'s constant, {@code rows} times, in a vector the caller closes. */
  private FieldVector constant(int i, int rows, BufferAllocator into) {
    Schema schema = constantSchemas[i];
    RowDataArrowWriter writer =
        new RowDataArrowWriter(schema, FlinkSchemaUtil.convert(schema), into, rows);
    try {
      GenericRowData row = GenericRowData.of(constants[i]);
      for (int r = 0; r < rows; r++) {
        writer.write(row);
      }
      writer.finishBatch();
      FieldVector written = writer.root().getVector(0);
      FieldVector out = written.getField().createVector(into);
      written.makeTransferPair(out).transfer();
      return out;
    } finally {
      writer.close();
    }
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
}

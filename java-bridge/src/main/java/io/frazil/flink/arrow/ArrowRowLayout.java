package io.frazil.flink.arrow;

import io.frazil.arrow.IcebergArrowSchema;
import io.frazil.exchange.ArrowBatchTypeInfo;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;

/**
 * How the rows of an Iceberg table are laid out in {@link io.frazil.exchange.ArrowBatch}es: the
 * table's columns as {@link IcebergArrowSchema} converts them (what the Frazil writer takes), and,
 * for streams that carry updates and deletes, one more column last: {@value #ROW_KIND_COLUMN}, a
 * non-null signed 8-bit integer holding Flink's {@link RowKind#toByteValue()} ({@code 0} +I, {@code
 * 1} -U, {@code 2} +U, {@code 3} -D). Without that column every row is an insert.
 */
public final class ArrowRowLayout implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The name of the row kind column; no table column may have it. */
  public static final String ROW_KIND_COLUMN = "_frazil_row_kind";

  private final Schema table;
  private final boolean rowKind;
  private transient org.apache.arrow.vector.types.pojo.Schema arrowSchema;

  private ArrowRowLayout(Schema table, boolean rowKind) {
    this.table = Objects.requireNonNull(table, "Invalid schema: null");
    this.rowKind = rowKind;
    if (rowKind && table.findField(ROW_KIND_COLUMN) != null) {
      throw new IllegalArgumentException(
          "Cannot carry row kinds in column "
              + ROW_KIND_COLUMN
              + ": the table has a column so named");
    }
    this.arrowSchema = convert();
  }

  /** Insert-only rows: the table's columns and nothing else. */
  public static ArrowRowLayout appendOnly(Schema table) {
    return new ArrowRowLayout(table, false);
  }

  /** Rows of every kind: the table's columns, then {@value #ROW_KIND_COLUMN}. */
  public static ArrowRowLayout withRowKind(Schema table) {
    return new ArrowRowLayout(table, true);
  }

  /**
   * The layout of {@code table} whose Arrow schema {@code batches} declares, with or without the
   * row kind column.
   *
   * @throws IllegalArgumentException naming the first difference if it is neither
   */
  public static ArrowRowLayout of(Schema table, TypeInformation<?> batches) {
    if (!(batches instanceof ArrowBatchTypeInfo)) {
      throw new IllegalArgumentException(
          "Expected a stream of ArrowBatch typed by ArrowBatchTypeInfo, got " + batches);
    }
    org.apache.arrow.vector.types.pojo.Schema declared = ((ArrowBatchTypeInfo) batches).schema();
    ArrowRowLayout plain = appendOnly(table);
    if (plain.arrowSchema().equals(declared)) {
      return plain;
    }
    if (table.findField(ROW_KIND_COLUMN) == null) {
      ArrowRowLayout withKinds = withRowKind(table);
      if (withKinds.arrowSchema().equals(declared)) {
        return withKinds;
      }
    }
    throw new IllegalArgumentException(
        "The ArrowBatch stream's schema does not match the table: "
            + SchemaMismatch.describe(plain.arrowSchema(), declared));
  }

  public Schema tableSchema() {
    return table;
  }

  /** How many leading columns of a batch are the table's (all but the row kind column). */
  public int tableColumns() {
    return arrowSchema().getFields().size() - (hasRowKind() ? 1 : 0);
  }

  public boolean hasRowKind() {
    return rowKind;
  }

  /** The Arrow schema of every batch of this layout. */
  public org.apache.arrow.vector.types.pojo.Schema arrowSchema() {
    if (arrowSchema == null) {
      arrowSchema = convert();
    }
    return arrowSchema;
  }

  /**
   * {@link #arrowSchema()} as Arrow's JSON ({@code Schema.toJson()}), for code with its own Arrow
   * library ({@code Schema.fromJSON}), which builds batches of it and hands them over through
   * {@link io.frazil.exchange.ArrowBatch#importCData}: the runtime jar relocates Frazil's Arrow, so
   * {@link #arrowSchema()}'s class is not the job's.
   */
  public String arrowSchemaJson() {
    return arrowSchema().toJson();
  }

  /** Type information of a stream of these batches (IPC compression off). */
  public ArrowBatchTypeInfo typeInfo() {
    return ArrowBatchTypeInfo.of(arrowSchema());
  }

  /** The Flink row type of the table's rows (without the row kind, which a row carries itself). */
  public RowType rowType() {
    return FlinkSchemaUtil.convert(table);
  }

  static Field rowKindField() {
    return new Field(ROW_KIND_COLUMN, FieldType.notNullable(new ArrowType.Int(8, true)), null);
  }

  private org.apache.arrow.vector.types.pojo.Schema convert() {
    org.apache.arrow.vector.types.pojo.Schema columns = IcebergArrowSchema.convert(table);
    if (!rowKind) {
      return columns;
    }
    List<Field> fields = new ArrayList<>(columns.getFields());
    fields.add(rowKindField());
    return new org.apache.arrow.vector.types.pojo.Schema(fields);
  }

  @Override
  public String toString() {
    return "ArrowRowLayout[" + table.asStruct() + (rowKind ? ", " + ROW_KIND_COLUMN : "") + "]";
  }
}

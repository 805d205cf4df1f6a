package io.frazil.flink.arrow;

import java.util.Objects;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

/**
 * The type of the rows {@link FrazilArrowSink} hands to Iceberg's writer: Flink's {@link
 * RowDataSerializer} in every respect but one, it does not copy the {@link ColumnarRowData} views
 * {@link ArrowBatchesToRows} emits.
 *
 * <p>Why: with object reuse off (Flink's default), Flink copies every record passed between chained
 * operators, because the sender may reuse it. {@link ArrowBatchesToRows} never does (a new view per
 * row, new column vectors per batch, nothing written after emission), so the copy only costs a row
 * conversion per row and hides from Frazil's appender that the row is a row of an Arrow batch,
 * which turns off the direct path. Used only on the edge into Iceberg's writer, whose consumers
 * never change the rows they receive; other rows are copied as Flink's serializer copies them.
 */
final class SinkRowsTypeInfo extends TypeInformation<RowData> {
  private static final long serialVersionUID = 1L;

  private final RowType rowType;

  SinkRowsTypeInfo(RowType rowType) {
    this.rowType = Objects.requireNonNull(rowType, "Invalid row type: null");
  }

  @Override
  public boolean isBasicType() {
    return false;
  }

  @Override
  public boolean isTupleType() {
    return false;
  }

  @Override
  public int getArity() {
    return rowType.getFieldCount();
  }

  @Override
  public int getTotalFields() {
    return rowType.getFieldCount();
  }

  @Override
  public Class<RowData> getTypeClass() {
    return RowData.class;
  }

  @Override
  public boolean isKeyType() {
    return false;
  }

  /** Flink 1.19 and later (no {@code @Override}: this file compiles against 1.20 and 2.x). */
  public TypeSerializer<RowData> createSerializer(SerializerConfig config) {
    return new ViewKeepingSerializer(rowType);
  }

  /** Flink 1.20's abstract variant; no {@code @Override}, as Flink 2 removed it. */
  public TypeSerializer<RowData> createSerializer(ExecutionConfig config) {
    return new ViewKeepingSerializer(rowType);
  }

  @Override
  public String toString() {
    return "Frazil sink rows " + rowType.asSummaryString();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof SinkRowsTypeInfo && rowType.equals(((SinkRowsTypeInfo) other).rowType);
  }

  @Override
  public int hashCode() {
    return rowType.hashCode();
  }

  @Override
  public boolean canEqual(Object other) {
    return other instanceof SinkRowsTypeInfo;
  }

  /**
   * {@link RowDataSerializer} that hands on {@link ColumnarRowData} as is instead of copying it.
   * Serialized forms, snapshots and compatibility are {@link RowDataSerializer}'s.
   */
  static final class ViewKeepingSerializer extends RowDataSerializer {
    private static final long serialVersionUID = 1L;

    private final RowType rowType;

    ViewKeepingSerializer(RowType rowType) {
      super(rowType);
      this.rowType = rowType;
    }

    @Override
    public TypeSerializer<RowData> duplicate() {
      return new ViewKeepingSerializer(rowType);
    }

    @Override
    public RowData copy(RowData from) {
      return from instanceof ColumnarRowData ? from : super.copy(from);
    }

    @Override
    public RowData copy(RowData from, RowData reuse) {
      return from instanceof ColumnarRowData ? from : super.copy(from, reuse);
    }
  }
}

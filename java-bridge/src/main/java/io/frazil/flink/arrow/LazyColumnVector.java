package io.frazil.flink.arrow;

import java.util.function.Supplier;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.data.columnar.vector.ArrayColumnVector;
import org.apache.flink.table.data.columnar.vector.BooleanColumnVector;
import org.apache.flink.table.data.columnar.vector.ByteColumnVector;
import org.apache.flink.table.data.columnar.vector.BytesColumnVector;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.DecimalColumnVector;
import org.apache.flink.table.data.columnar.vector.DoubleColumnVector;
import org.apache.flink.table.data.columnar.vector.FloatColumnVector;
import org.apache.flink.table.data.columnar.vector.IntColumnVector;
import org.apache.flink.table.data.columnar.vector.LongColumnVector;
import org.apache.flink.table.data.columnar.vector.MapColumnVector;
import org.apache.flink.table.data.columnar.vector.RowColumnVector;
import org.apache.flink.table.data.columnar.vector.ShortColumnVector;
import org.apache.flink.table.data.columnar.vector.TimestampColumnVector;

/**
 * A column of an Arrow batch that is copied into a Flink heap vector only when a row first reads
 * it. On the sink's direct path most columns are never read in Java (the appender slices the batch
 * itself): Iceberg's writer reads only partition source and equality key columns.
 *
 * <p>It must be read before its batch is released; a read after fails with an {@link
 * IllegalStateException} naming the column, never with freed memory.
 */
final class LazyColumnVector
    implements BooleanColumnVector,
        ByteColumnVector,
        ShortColumnVector,
        IntColumnVector,
        LongColumnVector,
        FloatColumnVector,
        DoubleColumnVector,
        BytesColumnVector,
        DecimalColumnVector,
        TimestampColumnVector,
        ArrayColumnVector,
        MapColumnVector,
        RowColumnVector {
  private final String name;
  private final Supplier<ColumnVector> convert;
  private ColumnVector converted;

  LazyColumnVector(String name, Supplier<ColumnVector> convert) {
    this.name = name;
    this.convert = convert;
  }

  private ColumnVector column() {
    if (converted == null) {
      try {
        this.converted = convert.get();
      } catch (IllegalStateException e) {
        throw new IllegalStateException(
            "Column '" + name + "' of a row was read after its ArrowBatch was released", e);
      }
    }
    return converted;
  }

  @Override
  public boolean isNullAt(int i) {
    return column().isNullAt(i);
  }

  @Override
  public boolean getBoolean(int i) {
    return ((BooleanColumnVector) column()).getBoolean(i);
  }

  @Override
  public byte getByte(int i) {
    return ((ByteColumnVector) column()).getByte(i);
  }

  @Override
  public short getShort(int i) {
    return ((ShortColumnVector) column()).getShort(i);
  }

  @Override
  public int getInt(int i) {
    return ((IntColumnVector) column()).getInt(i);
  }

  @Override
  public long getLong(int i) {
    return ((LongColumnVector) column()).getLong(i);
  }

  @Override
  public float getFloat(int i) {
    return ((FloatColumnVector) column()).getFloat(i);
  }

  @Override
  public double getDouble(int i) {
    return ((DoubleColumnVector) column()).getDouble(i);
  }

  @Override
  public Bytes getBytes(int i) {
    return ((BytesColumnVector) column()).getBytes(i);
  }

  @Override
  public DecimalData getDecimal(int i, int precision, int scale) {
    return ((DecimalColumnVector) column()).getDecimal(i, precision, scale);
  }

  @Override
  public TimestampData getTimestamp(int i, int precision) {
    return ((TimestampColumnVector) column()).getTimestamp(i, precision);
  }

  @Override
  public ArrayData getArray(int i) {
    return ((ArrayColumnVector) column()).getArray(i);
  }

  @Override
  public MapData getMap(int i) {
    return ((MapColumnVector) column()).getMap(i);
  }

  @Override
  public ColumnarRowData getRow(int i) {
    return ((RowColumnVector) column()).getRow(i);
  }
}

package io.frazil.read.vector;

import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.columnar.vector.ArrayColumnVector;
import org.apache.flink.table.data.columnar.vector.BooleanColumnVector;
import org.apache.flink.table.data.columnar.vector.ByteColumnVector;
import org.apache.flink.table.data.columnar.vector.BytesColumnVector;
import org.apache.flink.table.data.columnar.vector.DecimalColumnVector;
import org.apache.flink.table.data.columnar.vector.DoubleColumnVector;
import org.apache.flink.table.data.columnar.vector.FloatColumnVector;
import org.apache.flink.table.data.columnar.vector.IntColumnVector;
import org.apache.flink.table.data.columnar.vector.LongColumnVector;
import org.apache.flink.table.data.columnar.vector.MapColumnVector;
import org.apache.flink.table.data.columnar.vector.ShortColumnVector;
import org.apache.flink.table.data.columnar.vector.TimestampColumnVector;

/**
 * One value for every row: identity-partition values and other {@code idToConstant} entries, a
 * column's initial default, {@code _deleted} (false), or null for a column the file lacks. The
 * value is already in Flink's internal form ({@code RowDataUtil.convertConstant}).
 */
public final class ConstantVector
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
        MapColumnVector {
  private static final ConstantVector NULL = new ConstantVector(null);

  private final Object value;
  private final Bytes bytes;

  private ConstantVector(Object value) {
    this.value = value;
    if (value instanceof StringData) {
      byte[] utf8 = ((StringData) value).toBytes();
      this.bytes = new Bytes(utf8, 0, utf8.length);
    } else if (value instanceof byte[]) {
      this.bytes = new Bytes((byte[]) value, 0, ((byte[]) value).length);
    } else {
      this.bytes = null;
    }
  }

  /** A vector of {@code value} (null for a null column). */
  public static ConstantVector of(Object value) {
    return value == null ? NULL : new ConstantVector(value);
  }

  /** True when Flink's getters can serve this value (structs are not served as constants). */
  public static boolean supports(Object value) {
    return value == null
        || value instanceof Boolean
        || value instanceof Number
        || value instanceof StringData
        || value instanceof byte[]
        || value instanceof DecimalData
        || value instanceof TimestampData
        || value instanceof ArrayData
        || value instanceof MapData;
  }

  @Override
  public boolean isNullAt(int i) {
    return value == null;
  }

  @Override
  public boolean getBoolean(int i) {
    return (Boolean) value;
  }

  @Override
  public byte getByte(int i) {
    return ((Number) value).byteValue();
  }

  @Override
  public short getShort(int i) {
    return ((Number) value).shortValue();
  }

  @Override
  public int getInt(int i) {
    return ((Number) value).intValue();
  }

  @Override
  public long getLong(int i) {
    return ((Number) value).longValue();
  }

  @Override
  public float getFloat(int i) {
    return ((Number) value).floatValue();
  }

  @Override
  public double getDouble(int i) {
    return ((Number) value).doubleValue();
  }

  @Override
  public Bytes getBytes(int i) {
    return bytes;
  }

  @Override
  public DecimalData getDecimal(int i, int precision, int scale) {
    return (DecimalData) value;
  }

  @Override
  public TimestampData getTimestamp(int i, int precision) {
    return (TimestampData) value;
  }

  @Override
  public ArrayData getArray(int i) {
    return (ArrayData) value;
  }

  @Override
  public MapData getMap(int i) {
    return (MapData) value;
  }
}

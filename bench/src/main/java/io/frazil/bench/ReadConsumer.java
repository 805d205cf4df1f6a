package io.frazil.bench;

import java.util.Arrays;
import java.util.List;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;

/**
 * What both read arms do with every row (ReadBench's file cells, the source job's sink): read every
 * projected field through Flink's typed getters, nested values included, and fold it into a hash,
 * so the JIT cannot drop the reads and both arms can be compared value for value.
 *
 * <p>The checksum is the count of rows with the wrapping sum and xor of the row hashes: independent
 * of row order (the job cells read files in parallel), equal for equal rows. A string is hashed
 * through {@code StringData.hashCode()} (a hash of its UTF-8 bytes, whatever holds them), a decimal
 * through its unscaled value, a timestamp through its millisecond and nano parts.
 */
final class ReadConsumer {
  private static final long NULL = 0x5bd1e9955bd1e995L;

  private final LogicalType[] types;
  long count;
  long sum;
  long xor;

  ReadConsumer(RowType type) {
    List<LogicalType> children = type.getChildren();
    this.types = children.toArray(new LogicalType[0]);
  }

  /** Reads every field of {@code row} and adds its hash. */
  void accept(RowData row) {
    long h = 0x9E3779B97F4A7C15L;
    for (int f = 0; f < types.length; f++) {
      h = mix(h, field(row, f, types[f]));
    }
    count++;
    sum += h;
    xor ^= h;
  }

  boolean sameAs(ReadConsumer other) {
    return count == other.count && sum == other.sum && xor == other.xor;
  }

  String text() {
    return String.format("%,d rows, sum %016x, xor %016x", count, sum, xor);
  }

  /** Equal checksums for equal values. */
  static long field(RowData row, int pos, LogicalType type) {
    if (row.isNullAt(pos)) {
      return NULL;
    }
    switch (type.getTypeRoot()) {
      case BOOLEAN:
        return row.getBoolean(pos) ? 1 : 2;
      case TINYINT:
        return row.getByte(pos);
      case SMALLINT:
        return row.getShort(pos);
      case INTEGER:
      case DATE:
      case TIME_WITHOUT_TIME_ZONE:
        return row.getInt(pos);
      case BIGINT:
        return row.getLong(pos);
      case FLOAT:
        return Float.floatToRawIntBits(row.getFloat(pos));
      case DOUBLE:
        return Double.doubleToRawLongBits(row.getDouble(pos));
      case CHAR:
      case VARCHAR:
        return row.getString(pos).hashCode();
      case BINARY:
      case VARBINARY:
        return Arrays.hashCode(row.getBinary(pos));
      case DECIMAL:
        {
          DecimalType d = (DecimalType) type;
          return decimal(row.getDecimal(pos, d.getPrecision(), d.getScale()), d);
        }
      case TIMESTAMP_WITHOUT_TIME_ZONE:
        return timestamp(row.getTimestamp(pos, ((TimestampType) type).getPrecision()));
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return timestamp(row.getTimestamp(pos, ((LocalZonedTimestampType) type).getPrecision()));
      case ROW:
        {
          RowType rowType = (RowType) type;
          return row(row.getRow(pos, rowType.getFieldCount()), rowType);
        }
      case ARRAY:
        return array(row.getArray(pos), ((ArrayType) type).getElementType());
      case MAP:
        return map(row.getMap(pos), (MapType) type);
      default:
        throw new IllegalArgumentException("ReadConsumer cannot read " + type);
    }
  }

  static long element(ArrayData array, int pos, LogicalType type) {
    if (array.isNullAt(pos)) {
      return NULL;
    }
    switch (type.getTypeRoot()) {
      case BOOLEAN:
        return array.getBoolean(pos) ? 1 : 2;
      case TINYINT:
        return array.getByte(pos);
      case SMALLINT:
        return array.getShort(pos);
      case INTEGER:
      case DATE:
      case TIME_WITHOUT_TIME_ZONE:
        return array.getInt(pos);
      case BIGINT:
        return array.getLong(pos);
      case FLOAT:
        return Float.floatToRawIntBits(array.getFloat(pos));
      case DOUBLE:
        return Double.doubleToRawLongBits(array.getDouble(pos));
      case CHAR:
      case VARCHAR:
        return array.getString(pos).hashCode();
      case BINARY:
      case VARBINARY:
        return Arrays.hashCode(array.getBinary(pos));
      case DECIMAL:
        {
          DecimalType d = (DecimalType) type;
          return decimal(array.getDecimal(pos, d.getPrecision(), d.getScale()), d);
        }
      case TIMESTAMP_WITHOUT_TIME_ZONE:
        return timestamp(array.getTimestamp(pos, ((TimestampType) type).getPrecision()));
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return timestamp(array.getTimestamp(pos, ((LocalZonedTimestampType) type).getPrecision()));
      case ROW:
        {
          RowType rowType = (RowType) type;
          return row(array.getRow(pos, rowType.getFieldCount()), rowType);
        }
      case ARRAY:
        return array(array.getArray(pos), ((ArrayType) type).getElementType());
      case MAP:
        return map(array.getMap(pos), (MapType) type);
      default:
        throw new IllegalArgumentException("ReadConsumer cannot read " + type);
    }
  }

  private static long row(RowData row, RowType type) {
    long h = 17;
    for (int f = 0; f < type.getFieldCount(); f++) {
      h = mix(h, field(row, f, type.getTypeAt(f)));
    }
    return h;
  }

  private static long array(ArrayData array, LogicalType elementType) {
    long h = array.size();
    for (int i = 0; i < array.size(); i++) {
      h = mix(h, element(array, i, elementType));
    }
    return h;
  }

  private static long map(MapData map, MapType type) {
    return mix(
        array(map.keyArray(), type.getKeyType()), array(map.valueArray(), type.getValueType()));
  }

  private static long decimal(DecimalData value, DecimalType type) {
    return DecimalData.isCompact(type.getPrecision())
        ? value.toUnscaledLong()
        : Arrays.hashCode(value.toUnscaledBytes());
  }

  private static long timestamp(TimestampData value) {
    return value.getMillisecond() * 1_000_003L + value.getNanoOfMillisecond();
  }

  static long mix(long h, long value) {
    long k = h * 31 + value + 0x632BE59BD9B4E019L;
    k ^= k >>> 33;
    k *= 0xff51afd7ed558ccdL;
    k ^= k >>> 33;
    return k;
  }
}

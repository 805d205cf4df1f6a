package io.frazil.read.vector;

import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Converters for leaf, list and map columns, with the conversions of Iceberg's Flink Parquet
 * reader: int as long and float as double (type promotion), time in microseconds as milliseconds of
 * the day, timestamps in the file's unit as {@code TimestampData}, decimals at the table's
 * precision, strings as UTF-8 bytes, binary/fixed/uuid as bytes. A combination Iceberg's reader
 * would not produce the same way is refused with {@link UnsupportedReadException}.
 */
public final class ColumnConverters {
  private ColumnConverters() {}

  public static ColumnConverter forPrimitive(Field field, Type.PrimitiveType expected)
      throws UnsupportedReadException {
    ArrowType arrow = field.getType();
    switch (expected.typeId()) {
      case BOOLEAN:
        require(arrow instanceof ArrowType.Bool, field, expected);
        return vector ->
            new PrimitiveVectors.Booleans(
                ArrowBuffers.validity(vector),
                ArrowBuffers.bits(((BitVector) vector).getDataBuffer(), vector.getValueCount()));
      case INTEGER:
      case DATE:
        return ints(field, expected);
      case LONG:
        return longs(field, expected);
      case FLOAT:
        require(isFloat(arrow, 32), field, expected);
        return vector ->
            new PrimitiveVectors.Floats(
                ArrowBuffers.validity(vector),
                ArrowBuffers.floats(vector.getDataBuffer(), vector.getValueCount()));
      case DOUBLE:
        if (isFloat(arrow, 32)) {
          return vector -> {
            float[] floats = ArrowBuffers.floats(vector.getDataBuffer(), vector.getValueCount());
            double[] doubles = new double[floats.length];
            for (int i = 0; i < floats.length; i++) {
              doubles[i] = floats[i];
            }
            return new PrimitiveVectors.Doubles(ArrowBuffers.validity(vector), doubles);
          };
        }
        require(isFloat(arrow, 64), field, expected);
        return vector ->
            new PrimitiveVectors.Doubles(
                ArrowBuffers.validity(vector),
                ArrowBuffers.doubles(vector.getDataBuffer(), vector.getValueCount()));
      case TIME:
        return times(field, expected);
      case TIMESTAMP:
      case TIMESTAMP_NANO:
        return timestamps(field, expected);
      case STRING:
        require(arrow instanceof ArrowType.Utf8, field, expected);
        return vector -> variableWidth(vector, false);
      case BINARY:
        require(arrow instanceof ArrowType.Binary, field, expected);
        return vector -> variableWidth(vector, true);
      case FIXED:
      case UUID:
        require(arrow instanceof ArrowType.FixedSizeBinary, field, expected);
        int width = ((ArrowType.FixedSizeBinary) arrow).getByteWidth();
        return vector ->
            new BytesVector(
                ArrowBuffers.validity(vector),
                ArrowBuffers.bytes(
                    ((FixedSizeBinaryVector) vector).getDataBuffer(),
                    width * vector.getValueCount()),
                width,
                true);
      case DECIMAL:
        require(
            arrow instanceof ArrowType.Decimal
                && ((ArrowType.Decimal) arrow).getBitWidth() == 128
                && ((ArrowType.Decimal) arrow).getScale() == ((Types.DecimalType) expected).scale(),
            field,
            expected);
        int filePrecision = ((ArrowType.Decimal) arrow).getPrecision();
        return vector ->
            new DecimalVector(
                ArrowBuffers.validity(vector),
                ArrowBuffers.longs(vector.getDataBuffer(), 2 * vector.getValueCount()),
                filePrecision);
      default:
        throw unsupported(field, expected);
    }
  }

  public static ColumnConverter forList(ColumnConverter elements) {
    return vector -> {
      ListVector list = (ListVector) vector;
      return new NestedVectors.Arrays(
          ArrowBuffers.validity(list),
          ArrowBuffers.offsets(list.getOffsetBuffer(), list.getValueCount()),
          elements.convert(list.getDataVector()));
    };
  }

  public static ColumnConverter forMap(ColumnConverter keys, ColumnConverter values) {
    return vector -> {
      ListVector map = (ListVector) vector;
      StructVector entries = (StructVector) map.getDataVector();
      return new NestedVectors.Maps(
          ArrowBuffers.validity(map),
          ArrowBuffers.offsets(map.getOffsetBuffer(), map.getValueCount()),
          keys.convert((FieldVector) entries.getChildByOrdinal(0)),
          values.convert((FieldVector) entries.getChildByOrdinal(1)));
    };
  }

  private static ColumnConverter ints(Field field, Type expected) throws UnsupportedReadException {
    ArrowType arrow = field.getType();
    if (expected.typeId() == Type.TypeID.DATE) {
      require(
          arrow instanceof ArrowType.Date
              && ((ArrowType.Date) arrow).getUnit() == org.apache.arrow.vector.types.DateUnit.DAY,
          field,
          expected);
      return ColumnConverters::int32;
    }
    require(
        arrow instanceof ArrowType.Int && ((ArrowType.Int) arrow).getIsSigned(), field, expected);
    switch (((ArrowType.Int) arrow).getBitWidth()) {
      case 8:
        return vector -> narrowInts(vector, i -> ((TinyIntVector) vector).get(i));
      case 16:
        return vector -> narrowInts(vector, i -> ((SmallIntVector) vector).get(i));
      case 32:
        return ColumnConverters::int32;
      default:
        throw unsupported(field, expected);
    }
  }

  private static ColumnConverter longs(Field field, Type expected) throws UnsupportedReadException {
    ArrowType arrow = field.getType();
    require(
        arrow instanceof ArrowType.Int && ((ArrowType.Int) arrow).getIsSigned(), field, expected);
    int bits = ((ArrowType.Int) arrow).getBitWidth();
    if (bits == 64) {
      return vector ->
          new PrimitiveVectors.Longs(
              ArrowBuffers.validity(vector),
              ArrowBuffers.longs(vector.getDataBuffer(), vector.getValueCount()));
    }
    ColumnConverter narrow = ints(field, Types.IntegerType.get());
    return vector -> {
      PrimitiveVectors.Ints ints = (PrimitiveVectors.Ints) narrow.convert(vector);
      long[] longs = new long[vector.getValueCount()];
      for (int i = 0; i < longs.length; i++) {
        longs[i] = ints.getInt(i);
      }
      return new PrimitiveVectors.Longs(ArrowBuffers.validity(vector), longs);
    };
  }

  private static ColumnConverter times(Field field, Type expected) throws UnsupportedReadException {
    require(field.getType() instanceof ArrowType.Time, field, expected);
    ArrowType.Time time = (ArrowType.Time) field.getType();
    switch (time.getUnit()) {
      case MILLISECOND:
        return ColumnConverters::int32;
      case MICROSECOND:
        return vector -> {
          long[] micros = ArrowBuffers.longs(vector.getDataBuffer(), vector.getValueCount());
          int[] millis = new int[micros.length];
          for (int i = 0; i < micros.length; i++) {
            millis[i] = (int) Math.floorDiv(micros[i], 1000L);
          }
          return new PrimitiveVectors.Ints(ArrowBuffers.validity(vector), millis);
        };
      default:
        throw unsupported(field, expected);
    }
  }

  private static ColumnConverter timestamps(Field field, Type expected)
      throws UnsupportedReadException {
    require(field.getType() instanceof ArrowType.Timestamp, field, expected);
    ArrowType.Timestamp ts = (ArrowType.Timestamp) field.getType();
    boolean zoned = ts.getTimezone() != null;
    boolean expectZoned =
        expected instanceof Types.TimestampType
            ? ((Types.TimestampType) expected).shouldAdjustToUTC()
            : ((Types.TimestampNanoType) expected).shouldAdjustToUTC();
    require(zoned == expectZoned, field, expected);
    long unitsPerMilli;
    switch (ts.getUnit()) {
      case MILLISECOND:
        unitsPerMilli = 1L;
        break;
      case MICROSECOND:
        unitsPerMilli = 1_000L;
        break;
      case NANOSECOND:
        unitsPerMilli = 1_000_000L;
        break;
      default:
        throw unsupported(field, expected);
    }
    // Nanosecond values of a micros column would be a promotion Iceberg does not make.
    require(
        (expected.typeId() == Type.TypeID.TIMESTAMP_NANO) == (unitsPerMilli == 1_000_000L),
        field,
        expected);
    return vector ->
        new TimestampVector(
            ArrowBuffers.validity(vector),
            ArrowBuffers.longs(vector.getDataBuffer(), vector.getValueCount()),
            unitsPerMilli);
  }

  private static PrimitiveVectors.Ints int32(FieldVector vector) {
    return new PrimitiveVectors.Ints(
        ArrowBuffers.validity(vector),
        ArrowBuffers.ints(vector.getDataBuffer(), vector.getValueCount()));
  }

  private interface IntAt {
    int get(int i);
  }

  private static PrimitiveVectors.Ints narrowInts(FieldVector vector, IntAt values) {
    int[] ints = new int[vector.getValueCount()];
    for (int i = 0; i < ints.length; i++) {
      ints[i] = vector.isNull(i) ? 0 : values.get(i);
    }
    return new PrimitiveVectors.Ints(ArrowBuffers.validity(vector), ints);
  }

  private static BytesVector variableWidth(FieldVector vector, boolean binary) {
    BaseVariableWidthVector values = (BaseVariableWidthVector) vector;
    int[] offsets = ArrowBuffers.offsets(values.getOffsetBuffer(), values.getValueCount());
    byte[] data = ArrowBuffers.bytes(values.getDataBuffer(), offsets[offsets.length - 1]);
    return new BytesVector(ArrowBuffers.validity(vector), data, offsets, binary);
  }

  private static boolean isFloat(ArrowType arrow, int bits) {
    if (!(arrow instanceof ArrowType.FloatingPoint)) {
      return false;
    }
    switch (((ArrowType.FloatingPoint) arrow).getPrecision()) {
      case SINGLE:
        return bits == 32;
      case DOUBLE:
        return bits == 64;
      default:
        return false;
    }
  }

  private static void require(boolean condition, Field field, Type expected)
      throws UnsupportedReadException {
    if (!condition) {
      throw unsupported(field, expected);
    }
  }

  static UnsupportedReadException unsupported(Field field, Type expected) {
    return new UnsupportedReadException(
        "columnType",
        "column "
            + field.getName()
            + " is "
            + field.getType()
            + " in the file, read as "
            + expected);
  }
}

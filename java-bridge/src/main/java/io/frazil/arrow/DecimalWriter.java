package io.frazil.arrow;

import java.math.BigInteger;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.util.DecimalUtility;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;

/** Copies the unscaled value; the Flink scale equals the Iceberg scale (checked when built). */
final class DecimalWriter extends FixedWidthWriter<DecimalVector> {
  private final int flinkPrecision;
  private final int flinkScale;
  private final int icebergPrecision;

  DecimalWriter(
      DecimalVector vector,
      int flinkPrecision,
      int flinkScale,
      int icebergPrecision,
      String path,
      boolean nullable) {
    super(vector, path, nullable);
    this.flinkPrecision = flinkPrecision;
    this.flinkScale = flinkScale;
    this.icebergPrecision = icebergPrecision;
  }

  @Override
  void writeValue(RowData row, int pos, int index) {
    set(index, row.getDecimal(pos, flinkPrecision, flinkScale));
  }

  @Override
  void writeValue(ArrayData array, int pos, int index) {
    set(index, array.getDecimal(pos, flinkPrecision, flinkScale));
  }

  private void set(int index, DecimalData decimal) {
    // GenericRowData holds whatever DecimalData it was given, so the declared type is not enough
    // to trust the scale, as Iceberg's own Flink writers also check.
    if (decimal.scale() != flinkScale || decimal.precision() > icebergPrecision) {
      throw new InvalidValueException(
          String.format(
              "Cannot write decimal(%d,%d) value to field '%s' of type decimal(%d,%d)",
              decimal.precision(), decimal.scale(), path(), icebergPrecision, flinkScale));
    }

    if (decimal.isCompact()) {
      putDecimal(index, decimal.toUnscaledLong());
      return;
    }
    // A wide decimal type often holds values that fit a long: write those without the
    // byte-by-byte big-endian path.
    BigInteger unscaled = decimal.toBigDecimal().unscaledValue();
    if (unscaled.bitLength() < Long.SIZE) {
      putDecimal(index, unscaled.longValue());
    } else {
      vector.setBigEndianSafe(index, unscaled.toByteArray());
    }
  }

  private void putDecimal(int index, long unscaled) {
    DecimalUtility.writeLongToArrowBuf(unscaled, reserve(index), index, DecimalVector.TYPE_WIDTH);
  }
}

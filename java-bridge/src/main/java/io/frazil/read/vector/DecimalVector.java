package io.frazil.read.vector;

import java.math.BigDecimal;
import java.math.BigInteger;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.columnar.vector.DecimalColumnVector;

/**
 * Decimals from Arrow's 128-bit little-endian unscaled values, at the file's precision: Iceberg's
 * Flink reader keeps the precision of the file's column even where the table's was widened since,
 * and so does this (Flink's requested precision is not used).
 */
final class DecimalVector extends HeapVector implements DecimalColumnVector {
  private static final int MAX_COMPACT_PRECISION = 18;

  /** Two longs per value: low, high. */
  private final long[] words;

  private final int precision;

  DecimalVector(byte[] validity, long[] words, int precision) {
    super(validity);
    this.words = words;
    this.precision = precision;
  }

  @Override
  public DecimalData getDecimal(int i, int requestedPrecision, int scale) {
    long low = words[2 * i];
    long high = words[2 * i + 1];
    boolean fitsLong = high == (low >> 63);
    if (fitsLong && precision <= MAX_COMPACT_PRECISION) {
      return DecimalData.fromUnscaledLong(low, precision, scale);
    }
    BigInteger unscaled =
        fitsLong
            ? BigInteger.valueOf(low)
            : BigInteger.valueOf(high).shiftLeft(64).or(unsignedLong(low));
    return DecimalData.fromBigDecimal(new BigDecimal(unscaled, scale), precision, scale);
  }

  private static BigInteger unsignedLong(long value) {
    BigInteger magnitude = BigInteger.valueOf(value & Long.MAX_VALUE);
    return value < 0 ? magnitude.setBit(63) : magnitude;
  }
}

package io.frazil.read.vector;

import java.util.Arrays;
import org.apache.flink.table.data.columnar.vector.BytesColumnVector;

/**
 * Strings, binaries, fixed and uuid values: one heap copy of the batch's value bytes, sliced per
 * row. Flink's {@code StringData.fromBytes} wraps a string's slice without another copy. Binary
 * values are handed out as arrays of their own, as Iceberg's reader does: Flink's {@code
 * ColumnarArrayData.getBinary} mis-slices a value that does not start at offset 0 (Flink 1.20 to
 * 2.1 pass {@code len} as the end index).
 */
final class BytesVector extends HeapVector implements BytesColumnVector {
  private final byte[] data;
  private final int[] offsets;
  private final int width;
  private final boolean ownArrays;

  /** Variable width: value {@code i} is {@code data[offsets[i], offsets[i + 1])}. */
  BytesVector(byte[] validity, byte[] data, int[] offsets, boolean ownArrays) {
    super(validity);
    this.data = data;
    this.offsets = offsets;
    this.width = -1;
    this.ownArrays = ownArrays;
  }

  /** Fixed width: value {@code i} is {@code data[i * width, (i + 1) * width)}. */
  BytesVector(byte[] validity, byte[] data, int width, boolean ownArrays) {
    super(validity);
    this.data = data;
    this.offsets = null;
    this.width = width;
    this.ownArrays = ownArrays;
  }

  @Override
  public Bytes getBytes(int i) {
    int start = offsets == null ? i * width : offsets[i];
    int length = offsets == null ? width : offsets[i + 1] - start;
    if (ownArrays) {
      return new Bytes(Arrays.copyOfRange(data, start, start + length), 0, length);
    }
    return new Bytes(data, start, length);
  }
}

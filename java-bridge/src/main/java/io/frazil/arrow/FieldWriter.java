package io.frazil.arrow;

import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.RowData;

/**
 * Writes one Iceberg field into one Arrow vector.
 *
 * <p>{@link RowData} and {@link ArrayData} share getter names but no interface, hence the two entry
 * points: a field is read from a row when it is a struct member and from an array when it is a list
 * element or map key/value.
 */
abstract class FieldWriter {
  private final String path;
  private final boolean nullable;

  FieldWriter(String path, boolean nullable) {
    this.path = path;
    this.nullable = nullable;
  }

  final void write(RowData row, int pos, int index) {
    if (row.isNullAt(pos)) {
      writeNull(index);
    } else {
      writeValue(row, pos, index);
    }
  }

  final void write(ArrayData array, int pos, int index) {
    if (array.isNullAt(pos)) {
      writeNull(index);
    } else {
      writeValue(array, pos, index);
    }
  }

  final String path() {
    return path;
  }

  private void writeNull(int index) {
    if (!nullable) {
      throw new InvalidValueException(String.format("Null value in required field '%s'", path));
    }

    setNull(index);
  }

  /**
   * Marks {@code index} null without the required check: also used to pad the children of a null
   * struct, which must stay as long as their parent even when they are required.
   */
  abstract void setNull(int index);

  abstract void writeValue(RowData row, int pos, int index);

  abstract void writeValue(ArrayData array, int pos, int index);

  /**
   * Sets the validity bit of {@code index} in the bitmap at {@code address}: for the writers that
   * store through buffer addresses, after their capacity and buffer-identity checks.
   */
  static void markValid(long address, int index) {
    long at = address + (index >>> 3);
    MemoryUtil.putByte(at, (byte) (MemoryUtil.getByte(at) | (1 << (index & 7))));
  }

  /** Bytes held by the first {@code valueCount} values, at constant cost per vector. */
  abstract long bufferedBytes(int valueCount);
}

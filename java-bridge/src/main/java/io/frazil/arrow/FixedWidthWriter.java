package io.frazil.arrow;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVectorHelper;

/** A writer of a fixed-width vector, whose size follows from the value count alone. */
abstract class FixedWidthWriter<V extends BaseFixedWidthVector> extends FieldWriter {
  final V vector;
  private ArrowBuf validity = null;
  private ArrowBuf values = null;
  private int capacity = 0;

  FixedWidthWriter(V vector, String path, boolean nullable) {
    super(path, nullable);
    this.vector = vector;
  }

  /**
   * Makes room for {@code index}, marks it valid and returns the value buffer: what {@code setSafe}
   * does, without recomputing the vector's capacity for every value (a division per call, the top
   * of the conversion profile). The cached capacity is trusted only while the vector still holds
   * the very buffers it was computed from.
   */
  final ArrowBuf reserve(int index) {
    if (index >= capacity
        || validity != vector.getValidityBuffer()
        || values != vector.getDataBuffer()) {
      while (index >= vector.getValueCapacity()) {
        vector.reAlloc();
      }
      validity = vector.getValidityBuffer();
      values = vector.getDataBuffer();
      capacity = vector.getValueCapacity();
    }
    BitVectorHelper.setBit(validity, index);
    return values;
  }

  final void putInt(int index, int value) {
    reserve(index).setInt((long) index * Integer.BYTES, value);
  }

  final void putLong(int index, long value) {
    reserve(index).setLong((long) index * Long.BYTES, value);
  }

  @Override
  final void setNull(int index) {
    vector.setNull(index);
  }

  @Override
  final long bufferedBytes(int valueCount) {
    return vector.getBufferSizeFor(valueCount);
  }
}

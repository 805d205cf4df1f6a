package io.frazil.arrow;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;

/** A writer of a fixed-width vector, whose size follows from the value count alone. */
abstract class FixedWidthWriter<V extends BaseFixedWidthVector> extends FieldWriter {
  final V vector;
  private ArrowBuf validity = null;
  private ArrowBuf values = null;
  private int capacity = 0;
  private long validityAddress = 0;
  private long valuesAddress = 0;

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
    prepare(index);
    return values;
  }

  /**
   * {@link #reserve} for the writers that store through the buffers' addresses: the capacity check
   * and the buffer identity check are the same, so an address is only used while its buffer is the
   * vector's and {@code index} is inside it. Arrow's own setters would also read each buffer's
   * object and its reference count for every value, two more cache lines per column and row, which
   * a writer with a thousand open files (each with its own vectors) mostly misses.
   */
  private void prepare(int index) {
    if (index >= capacity
        || validity != vector.getValidityBuffer()
        || values != vector.getDataBuffer()) {
      while (index >= vector.getValueCapacity()) {
        vector.reAlloc();
      }
      validity = vector.getValidityBuffer();
      values = vector.getDataBuffer();
      capacity = vector.getValueCapacity();
      validityAddress = validity.memoryAddress();
      valuesAddress = values.memoryAddress();
    }
    markValid(validityAddress, index);
  }

  final void putInt(int index, int value) {
    prepare(index);
    MemoryUtil.putInt(valuesAddress + (long) index * Integer.BYTES, value);
  }

  final void putLong(int index, long value) {
    prepare(index);
    MemoryUtil.putLong(valuesAddress + (long) index * Long.BYTES, value);
  }

  final void putFloat(int index, float value) {
    putInt(index, Float.floatToRawIntBits(value));
  }

  final void putDouble(int index, double value) {
    putLong(index, Double.doubleToRawLongBits(value));
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

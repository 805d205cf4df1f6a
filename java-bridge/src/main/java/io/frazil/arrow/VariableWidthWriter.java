package io.frazil.arrow;

import java.util.Objects;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVectorHelper;

/** A writer of a variable-width vector; its data size is read from the offsets. */
abstract class VariableWidthWriter<V extends BaseVariableWidthVector> extends FieldWriter {
  final V vector;
  private ArrowBuf validity = null;
  private ArrowBuf offsets = null;
  private ArrowBuf data = null;
  private int capacity = 0;
  private long validityAddress = 0;
  private long offsetsAddress = 0;
  private long dataAddress = 0;
  private long dataCapacity = 0;

  VariableWidthWriter(V vector, String path, boolean nullable) {
    super(path, nullable);
    this.vector = vector;
  }

  /**
   * Appends {@code length} bytes of {@code source} as the value at {@code index}: {@code
   * setSafe(index, bytes, start, length)} without its per-value capacity computations. Offsets of
   * skipped (null) slots before {@code index} are filled first, as Arrow's own {@code fillHoles}
   * would.
   */
  final void putBytes(int index, byte[] source, int start, int length) {
    if (index >= capacity
        || validity != vector.getValidityBuffer()
        || offsets != vector.getOffsetBuffer()
        || data != vector.getDataBuffer()) {
      // Not reAlloc(): it doubles the data buffer along with the offsets whether the values need
      // the room or not, which left a cut batch's string buffers at 2.5 times their data (512 KB
      // for 200 KB), held by every open file. The data buffer grows below, when a value needs it.
      while (index >= vector.getValueCapacity()) {
        vector.reallocValidityAndOffsetBuffers();
      }
      validity = vector.getValidityBuffer();
      offsets = vector.getOffsetBuffer();
      capacity = vector.getValueCapacity();
      validityAddress = validity.memoryAddress();
      offsetsAddress = offsets.memoryAddress();
      cacheData();
    }
    // Stores go through the addresses, as in FixedWidthWriter: the checks above keep each one
    // inside a buffer the vector holds (index + 1 <= capacity offsets, data below its capacity).
    int lastSet = vector.getLastSet();
    if (lastSet < index - 1) {
      int end = MemoryUtil.getInt(offsetsAddress + (long) (lastSet + 1) * Integer.BYTES);
      for (int hole = lastSet + 1; hole < index; hole += 1) {
        MemoryUtil.putInt(offsetsAddress + (long) (hole + 1) * Integer.BYTES, end);
      }
    }
    int begin = MemoryUtil.getInt(offsetsAddress + (long) index * Integer.BYTES);
    long end = (long) begin + length;
    if (end > Integer.MAX_VALUE) {
      throw new InvalidValueException(
          String.format("Field '%s' holds more than 2 GiB in one batch", path()));
    }
    if (end > dataCapacity) {
      while (vector.getDataBuffer().capacity() < end) {
        vector.reallocDataBuffer();
      }
      cacheData();
    }
    // The source range is checked as ArrowBuf.setBytes checks it: the copy reads the array raw.
    Objects.checkFromIndexSize(start, length, source.length);
    MemoryUtil.copyToMemory(source, start, dataAddress + begin, length);
    MemoryUtil.putInt(offsetsAddress + (long) (index + 1) * Integer.BYTES, (int) end);
    markValid(validityAddress, index);
    vector.setLastSet(index);
  }

  private void cacheData() {
    data = vector.getDataBuffer();
    dataAddress = data.memoryAddress();
    dataCapacity = data.capacity();
  }

  @Override
  final void setNull(int index) {
    vector.setNull(index);
  }

  @Override
  final long bufferedBytes(int valueCount) {
    if (valueCount == 0) {
      return 0;
    }

    // Nulls leave the trailing offsets unset until setValueCount, so the data size is read at
    // the last value set rather than at valueCount.
    int lastSet = vector.getLastSet();
    long dataBytes =
        lastSet < 0 ? 0 : vector.getOffsetBuffer().getInt((long) (lastSet + 1) * Integer.BYTES);
    return BitVectorHelper.getValidityBufferSizeFromCount(valueCount)
        + (long) (valueCount + 1) * Integer.BYTES
        + dataBytes;
  }
}

package io.frazil.arrow;

import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryStringData;

/** Writers of string, binary, fixed and uuid fields: values copied as bytes. */
final class StringAndBinaryWriters {
  private StringAndBinaryWriters() {}

  /** Writes fixed and uuid values, which must have exactly the fixed length. */
  static final class FixedWriter extends FixedWidthWriter<FixedSizeBinaryVector> {
    private final int length;

    FixedWriter(FixedSizeBinaryVector vector, String path, boolean nullable) {
      super(vector, path, nullable);
      this.length = vector.getByteWidth();
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      set(index, row.getBinary(pos));
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      set(index, array.getBinary(pos));
    }

    private void set(int index, byte[] bytes) {
      if (bytes.length != length) {
        throw new InvalidValueException(
            String.format(
                "Cannot write %d bytes to field '%s' of fixed length %d",
                bytes.length, path(), length));
      }

      vector.setSafe(index, bytes);
    }
  }

  static final class BinaryWriter extends VariableWidthWriter<VarBinaryVector> {
    BinaryWriter(VarBinaryVector vector, String path, boolean nullable) {
      super(vector, path, nullable);
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      byte[] bytes = row.getBinary(pos);
      putBytes(index, bytes, 0, bytes.length);
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      byte[] bytes = array.getBinary(pos);
      putBytes(index, bytes, 0, bytes.length);
    }
  }

  /** Copies UTF-8 bytes straight from Flink's memory, never decoding to a java.lang.String. */
  static final class StringWriter extends VariableWidthWriter<VarCharVector> {
    StringWriter(VarCharVector vector, String path, boolean nullable) {
      super(vector, path, nullable);
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      set(index, row.getString(pos));
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      set(index, array.getString(pos));
    }

    private void set(int index, StringData string) {
      if (string instanceof BinaryStringData) {
        BinaryStringData binary = (BinaryStringData) string;
        // A string made from a java.lang.String has no binary section until it is materialized,
        // and getSegments() would throw; toBytes() below materializes it.
        if (binary.getBinarySection() != null) {
          MemorySegment[] segments = binary.getSegments();
          if (segments.length == 1) {
            byte[] heap = segments[0].getHeapMemory();
            if (heap != null) {
              putBytes(index, heap, binary.getOffset(), binary.getSizeInBytes());
              return;
            }
          }
        }
      }

      byte[] bytes = string.toBytes();
      putBytes(index, bytes, 0, bytes.length);
    }
  }
}

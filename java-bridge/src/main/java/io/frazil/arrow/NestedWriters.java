package io.frazil.arrow;

import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;

/** Writers of struct, list and map fields, which delegate their values to child writers. */
final class NestedWriters {
  private NestedWriters() {}

  static final class StructWriter extends FieldWriter {
    private final StructVector vector;
    private final FieldWriter[] children;
    private final int[] positions;
    private final int arity;

    StructWriter(
        StructVector vector,
        FieldWriter[] children,
        int[] positions,
        int arity,
        String path,
        boolean nullable) {
      super(path, nullable);
      this.vector = vector;
      this.children = children;
      this.positions = positions;
      this.arity = arity;
    }

    @Override
    void setNull(int index) {
      vector.setNull(index);
      for (FieldWriter child : children) {
        child.setNull(index);
      }
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      set(index, row.getRow(pos, arity));
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      set(index, array.getRow(pos, arity));
    }

    private void set(int index, RowData struct) {
      vector.setIndexDefined(index);
      for (int i = 0; i < children.length; i++) {
        children[i].write(struct, positions[i], index);
      }
    }

    @Override
    long bufferedBytes(int valueCount) {
      long bytes = BitVectorHelper.getValidityBufferSizeFromCount(valueCount);
      for (FieldWriter child : children) {
        bytes += child.bufferedBytes(valueCount);
      }

      return bytes;
    }
  }

  /** Reads the number of child values of the first {@code valueCount} lists or maps. */
  private static int childCount(ListVector vector, int valueCount) {
    // Every index up to valueCount went through startNewValue or setNull, which set its offsets.
    return valueCount == 0 ? 0 : vector.getOffsetBuffer().getInt((long) valueCount * Integer.BYTES);
  }

  private static long listBytes(int valueCount) {
    return valueCount == 0
        ? 0
        : BitVectorHelper.getValidityBufferSizeFromCount(valueCount)
            + (long) (valueCount + 1) * Integer.BYTES;
  }

  static final class ListWriter extends FieldWriter {
    private final ListVector vector;
    private final FieldWriter element;

    ListWriter(ListVector vector, FieldWriter element, String path, boolean nullable) {
      super(path, nullable);
      this.vector = vector;
      this.element = element;
    }

    @Override
    void setNull(int index) {
      vector.setNull(index);
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      set(index, row.getArray(pos));
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      set(index, array.getArray(pos));
    }

    private void set(int index, ArrayData array) {
      int size = array.size();
      int offset = vector.startNewValue(index);
      for (int i = 0; i < size; i++) {
        element.write(array, i, offset + i);
      }

      vector.endValue(index, size);
    }

    @Override
    long bufferedBytes(int valueCount) {
      return listBytes(valueCount) + element.bufferedBytes(childCount(vector, valueCount));
    }
  }

  static final class MapWriter extends FieldWriter {
    private final MapVector vector;
    private final StructVector entries;
    private final FieldWriter key;
    private final FieldWriter value;

    MapWriter(
        MapVector vector,
        StructVector entries,
        FieldWriter key,
        FieldWriter value,
        String path,
        boolean nullable) {
      super(path, nullable);
      this.vector = vector;
      this.entries = entries;
      this.key = key;
      this.value = value;
    }

    @Override
    void setNull(int index) {
      vector.setNull(index);
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      set(index, row.getMap(pos));
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      set(index, array.getMap(pos));
    }

    private void set(int index, MapData map) {
      int size = map.size();
      ArrayData keys = map.keyArray();
      ArrayData values = map.valueArray();
      int offset = vector.startNewValue(index);
      for (int i = 0; i < size; i++) {
        // The entries struct is non-nullable: every entry must be marked present.
        entries.setIndexDefined(offset + i);
        key.write(keys, i, offset + i);
        value.write(values, i, offset + i);
      }

      vector.endValue(index, size);
    }

    @Override
    long bufferedBytes(int valueCount) {
      int entryCount = childCount(vector, valueCount);
      return listBytes(valueCount)
          + BitVectorHelper.getValidityBufferSizeFromCount(entryCount)
          + key.bufferedBytes(entryCount)
          + value.bufferedBytes(entryCount);
    }
  }
}

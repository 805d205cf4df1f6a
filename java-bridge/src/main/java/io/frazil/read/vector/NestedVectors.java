package io.frazil.read.vector;

import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.columnar.ColumnarArrayData;
import org.apache.flink.table.data.columnar.ColumnarMapData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.data.columnar.vector.ArrayColumnVector;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.MapColumnVector;
import org.apache.flink.table.data.columnar.vector.RowColumnVector;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;

/** Structs, lists and maps: views over child vectors, as Flink's columnar formats build them. */
final class NestedVectors {
  private NestedVectors() {}

  static final class Rows extends HeapVector implements RowColumnVector {
    private final VectorizedColumnBatch fields;

    Rows(byte[] validity, ColumnVector[] fields) {
      super(validity);
      this.fields = new VectorizedColumnBatch(fields);
    }

    @Override
    public ColumnarRowData getRow(int i) {
      return new ColumnarRowData(fields, i);
    }
  }

  static final class Arrays extends HeapVector implements ArrayColumnVector {
    private final int[] offsets;
    private final ColumnVector elements;

    Arrays(byte[] validity, int[] offsets, ColumnVector elements) {
      super(validity);
      this.offsets = offsets;
      this.elements = elements;
    }

    @Override
    public ArrayData getArray(int i) {
      return new ColumnarArrayData(elements, offsets[i], offsets[i + 1] - offsets[i]);
    }
  }

  static final class Maps extends HeapVector implements MapColumnVector {
    private final int[] offsets;
    private final ColumnVector keys;
    private final ColumnVector values;

    Maps(byte[] validity, int[] offsets, ColumnVector keys, ColumnVector values) {
      super(validity);
      this.offsets = offsets;
      this.keys = keys;
      this.values = values;
    }

    @Override
    public MapData getMap(int i) {
      return new ColumnarMapData(keys, values, offsets[i], offsets[i + 1] - offsets[i]);
    }
  }
}

package io.frazil.arrow;

import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

/** Writers of boolean, integer and floating-point fields, and the Flink getters they read with. */
final class ScalarWriters {
  private ScalarWriters() {}

  static final class BooleanWriter extends FixedWidthWriter<BitVector> {
    BooleanWriter(BitVector vector, String path, boolean nullable) {
      super(vector, path, nullable);
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      vector.setSafe(index, row.getBoolean(pos) ? 1 : 0);
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      vector.setSafe(index, array.getBoolean(pos) ? 1 : 0);
    }
  }

  /** Reads a Flink integer type no wider than INT; one constant per type root. */
  enum IntReader {
    TINYINT {
      @Override
      int read(RowData row, int pos) {
        return row.getByte(pos);
      }

      @Override
      int read(ArrayData array, int pos) {
        return array.getByte(pos);
      }
    },
    SMALLINT {
      @Override
      int read(RowData row, int pos) {
        return row.getShort(pos);
      }

      @Override
      int read(ArrayData array, int pos) {
        return array.getShort(pos);
      }
    },
    INTEGER {
      @Override
      int read(RowData row, int pos) {
        return row.getInt(pos);
      }

      @Override
      int read(ArrayData array, int pos) {
        return array.getInt(pos);
      }
    };

    abstract int read(RowData row, int pos);

    abstract int read(ArrayData array, int pos);

    static IntReader of(LogicalTypeRoot root) {
      return valueOf(root.name());
    }
  }

  /** Reads a Flink integer type as a long, widening the narrower ones. */
  enum LongReader {
    TINYINT {
      @Override
      long read(RowData row, int pos) {
        return row.getByte(pos);
      }

      @Override
      long read(ArrayData array, int pos) {
        return array.getByte(pos);
      }
    },
    SMALLINT {
      @Override
      long read(RowData row, int pos) {
        return row.getShort(pos);
      }

      @Override
      long read(ArrayData array, int pos) {
        return array.getShort(pos);
      }
    },
    INTEGER {
      @Override
      long read(RowData row, int pos) {
        return row.getInt(pos);
      }

      @Override
      long read(ArrayData array, int pos) {
        return array.getInt(pos);
      }
    },
    BIGINT {
      @Override
      long read(RowData row, int pos) {
        return row.getLong(pos);
      }

      @Override
      long read(ArrayData array, int pos) {
        return array.getLong(pos);
      }
    };

    abstract long read(RowData row, int pos);

    abstract long read(ArrayData array, int pos);

    static LongReader of(LogicalTypeRoot root) {
      return valueOf(root.name());
    }
  }

  /** Reads a Flink FLOAT or DOUBLE as a double. */
  enum DoubleReader {
    FLOAT {
      @Override
      double read(RowData row, int pos) {
        return row.getFloat(pos);
      }

      @Override
      double read(ArrayData array, int pos) {
        return array.getFloat(pos);
      }
    },
    DOUBLE {
      @Override
      double read(RowData row, int pos) {
        return row.getDouble(pos);
      }

      @Override
      double read(ArrayData array, int pos) {
        return array.getDouble(pos);
      }
    };

    abstract double read(RowData row, int pos);

    abstract double read(ArrayData array, int pos);

    static DoubleReader of(LogicalTypeRoot root) {
      return valueOf(root.name());
    }
  }

  static final class IntWriter extends FixedWidthWriter<IntVector> {
    private final IntReader reader;

    IntWriter(IntVector vector, IntReader reader, String path, boolean nullable) {
      super(vector, path, nullable);
      this.reader = reader;
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      putInt(index, reader.read(row, pos));
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      putInt(index, reader.read(array, pos));
    }
  }

  static final class LongWriter extends FixedWidthWriter<BigIntVector> {
    private final LongReader reader;

    LongWriter(BigIntVector vector, LongReader reader, String path, boolean nullable) {
      super(vector, path, nullable);
      this.reader = reader;
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      putLong(index, reader.read(row, pos));
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      putLong(index, reader.read(array, pos));
    }
  }

  static final class FloatWriter extends FixedWidthWriter<Float4Vector> {
    FloatWriter(Float4Vector vector, String path, boolean nullable) {
      super(vector, path, nullable);
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      putFloat(index, row.getFloat(pos));
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      putFloat(index, array.getFloat(pos));
    }
  }

  static final class DoubleWriter extends FixedWidthWriter<Float8Vector> {
    private final DoubleReader reader;

    DoubleWriter(Float8Vector vector, DoubleReader reader, String path, boolean nullable) {
      super(vector, path, nullable);
      this.reader = reader;
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      putDouble(index, reader.read(row, pos));
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      putDouble(index, reader.read(array, pos));
    }
  }
}

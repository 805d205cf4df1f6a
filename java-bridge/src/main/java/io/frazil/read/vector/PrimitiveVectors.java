package io.frazil.read.vector;

import org.apache.flink.table.data.columnar.vector.BooleanColumnVector;
import org.apache.flink.table.data.columnar.vector.DoubleColumnVector;
import org.apache.flink.table.data.columnar.vector.FloatColumnVector;
import org.apache.flink.table.data.columnar.vector.IntColumnVector;
import org.apache.flink.table.data.columnar.vector.LongColumnVector;

/**
 * Fixed-width values on the heap: booleans, ints (also dates and times), longs, floats, doubles.
 */
final class PrimitiveVectors {
  private PrimitiveVectors() {}

  static final class Booleans extends HeapVector implements BooleanColumnVector {
    private final byte[] bits;

    Booleans(byte[] validity, byte[] bits) {
      super(validity);
      this.bits = bits;
    }

    @Override
    public boolean getBoolean(int i) {
      return (bits[i >> 3] & (1 << (i & 7))) != 0;
    }
  }

  static final class Ints extends HeapVector implements IntColumnVector {
    private final int[] values;

    Ints(byte[] validity, int[] values) {
      super(validity);
      this.values = values;
    }

    @Override
    public int getInt(int i) {
      return values[i];
    }
  }

  static final class Longs extends HeapVector implements LongColumnVector {
    private final long[] values;

    Longs(byte[] validity, long[] values) {
      super(validity);
      this.values = values;
    }

    @Override
    public long getLong(int i) {
      return values[i];
    }
  }

  static final class Floats extends HeapVector implements FloatColumnVector {
    private final float[] values;

    Floats(byte[] validity, float[] values) {
      super(validity);
      this.values = values;
    }

    @Override
    public float getFloat(int i) {
      return values[i];
    }
  }

  static final class Doubles extends HeapVector implements DoubleColumnVector {
    private final double[] values;

    Doubles(byte[] validity, double[] values) {
      super(validity);
      this.values = values;
    }

    @Override
    public double getDouble(int i) {
      return values[i];
    }
  }
}

package io.frazil.read.vector;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;

/** Bulk copies out of Arrow buffers (little-endian) into heap arrays. */
final class ArrowBuffers {
  private ArrowBuffers() {}

  static ByteBuffer view(ArrowBuf buf, long bytes) {
    return buf.nioBuffer(0, Math.toIntExact(bytes)).order(ByteOrder.LITTLE_ENDIAN);
  }

  /** The validity bits of {@code vector}, or null when it has no null. */
  static byte[] validity(FieldVector vector) {
    if (vector.getNullCount() == 0) {
      return null;
    }
    return bits(vector.getValidityBuffer(), vector.getValueCount());
  }

  static byte[] bits(ArrowBuf buf, int count) {
    byte[] bits = new byte[(count + 7) >> 3];
    if (bits.length > 0) {
      view(buf, bits.length).get(bits);
    }
    return bits;
  }

  static byte[] bytes(ArrowBuf buf, int count) {
    byte[] out = new byte[count];
    if (count > 0) {
      view(buf, count).get(out);
    }
    return out;
  }

  static int[] ints(ArrowBuf buf, int count) {
    int[] out = new int[count];
    if (count > 0) {
      view(buf, 4L * count).asIntBuffer().get(out);
    }
    return out;
  }

  static long[] longs(ArrowBuf buf, int count) {
    long[] out = new long[count];
    if (count > 0) {
      view(buf, 8L * count).asLongBuffer().get(out);
    }
    return out;
  }

  static float[] floats(ArrowBuf buf, int count) {
    float[] out = new float[count];
    if (count > 0) {
      view(buf, 4L * count).asFloatBuffer().get(out);
    }
    return out;
  }

  static double[] doubles(ArrowBuf buf, int count) {
    double[] out = new double[count];
    if (count > 0) {
      view(buf, 8L * count).asDoubleBuffer().get(out);
    }
    return out;
  }

  /** Offsets of a variable-width or list vector: {@code count + 1} entries. */
  static int[] offsets(ArrowBuf buf, int count) {
    if (count == 0) {
      return new int[] {0};
    }
    return ints(buf, count + 1);
  }
}

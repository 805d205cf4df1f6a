package io.frazil.exchange;

/**
 * One reusable byte array per thread for a batch's serialized bytes on their way between a Flink
 * view and native code. Each use ends before the call that made it returns (the bytes are written
 * to the target view, or copied into native memory), so one array per thread is enough, and
 * serializing a batch allocates and zeroes no array of its size on the Java heap.
 */
final class Scratch {
  /** Arrays grown beyond this are not kept past their use. */
  private static final int KEEP_AT_MOST = 64 << 20;

  private static final ThreadLocal<byte[]> BYTES = ThreadLocal.withInitial(() -> new byte[0]);

  private Scratch() {}

  /** This thread's array, at least {@code capacity} long (its content is undefined). */
  static byte[] atLeast(int capacity) {
    byte[] bytes = BYTES.get();
    if (bytes.length < capacity) {
      bytes = new byte[capacity];
      keep(bytes);
    }
    return bytes;
  }

  /** {@code bytes}, {@code filled} of them in use, grown to hold {@code capacity}. */
  static byte[] grow(byte[] bytes, int filled, int capacity) {
    byte[] grown = new byte[capacity];
    System.arraycopy(bytes, 0, grown, 0, filled);
    keep(grown);
    return grown;
  }

  private static void keep(byte[] bytes) {
    BYTES.set(bytes.length <= KEEP_AT_MOST ? bytes : new byte[0]);
  }
}

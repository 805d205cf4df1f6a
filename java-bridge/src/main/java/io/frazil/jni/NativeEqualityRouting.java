package io.frazil.jni;

/**
 * Iceberg's equality-field key of each row of an Arrow batch, and the rows regrouped by where that
 * key sends them: the 1:1 Java mirror of the JNI exports in {@code native/src/jni/equality.rs}.
 * Stateless and thread-safe.
 *
 * <p>The exported input ({@code ArrowSchema} and {@code ArrowArray}) is moved: native code releases
 * it, on success and on failure. On success the regrouped rows are moved into the empty {@code
 * ArrowArray} at {@code outArrayAddress}; Java owns and releases them. On failure it is left empty.
 */
public final class NativeEqualityRouting {
  /** Key group {@code murmurHash(key) % table.length} (Flink's {@code keyBy}). */
  public static final int KEY_GROUPS = 0;

  /** Slot {@code safeAbs(key) % table.length} (the Dynamic Iceberg Sink's writer slots). */
  public static final int SLOTS = 1;

  private NativeEqualityRouting() {}

  /**
   * Regroups the exported batch by each row's destination, {@code table[index]}, where {@code
   * routing} turns the row's equality key into {@code index}.
   *
   * @param fields {@code [field count, then per field: column index, kind code]}
   * @return the offsets: destination {@code d} is rows {@code offsets[d]} to {@code offsets[d + 1]}
   *     (exclusive) of the regrouped batch; {@code destinations + 1} values
   * @throws UnsupportedOperationException if a kind does not apply to its column's Arrow type
   * @throws IllegalArgumentException if the batch is invalid or the fields or table do not fit it
   */
  public static int[] route(
      long schemaAddress,
      long arrayAddress,
      int[] fields,
      int routing,
      int[] table,
      int destinations,
      long outArrayAddress) {
    NativeLoader.load();
    return routeBatch(
        schemaAddress, arrayAddress, fields, routing, table, destinations, outArrayAddress);
  }

  /** The equality key of every row of the exported batch (moved, as for {@link #route}). */
  public static int[] keys(long schemaAddress, long arrayAddress, int[] fields) {
    NativeLoader.load();
    return rowKeys(schemaAddress, arrayAddress, fields);
  }

  // ---- JNI exports (native/src/jni/equality.rs): Java_io_frazil_jni_NativeEqualityRouting_*

  private static native int[] routeBatch(
      long schemaAddr,
      long arrayAddr,
      int[] fields,
      int routing,
      int[] table,
      int destinations,
      long outArrayAddr);

  private static native int[] rowKeys(long schemaAddr, long arrayAddr, int[] fields);
}

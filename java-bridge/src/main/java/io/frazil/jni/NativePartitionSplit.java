package io.frazil.jni;

/**
 * An Arrow batch regrouped by partition tuple: the 1:1 Java mirror of the JNI export in {@code
 * native/src/jni/split.rs}. Stateless and thread-safe.
 *
 * <p>The exported input ({@code ArrowSchema} and {@code ArrowArray}) is moved: native code releases
 * it, on success and on failure. On success the regrouped rows are moved into the empty {@code
 * ArrowArray} at {@code outArrayAddress} and the key tuples into the empty structs at {@code
 * keysSchemaAddress} / {@code keysArrayAddress}; Java owns and releases them. On failure those
 * three are left empty.
 */
public final class NativePartitionSplit {
  private NativePartitionSplit() {}

  /**
   * Regroups the exported batch by the partition tuple of each row.
   *
   * @param spec the partition fields as {@code io.frazil.partition.SplitSpec} encodes them
   * @return the group offsets: group {@code g} is rows {@code offsets[g]} to {@code offsets[g + 1]}
   *     (exclusive) of the regrouped batch, whose key tuple is row {@code g} of the keys
   * @throws UnsupportedOperationException if a transform does not apply to its source column's
   *     Arrow type
   * @throws IllegalArgumentException if the batch is invalid or the spec does not fit it
   */
  public static int[] split(
      long schemaAddress,
      long arrayAddress,
      int[] spec,
      long outArrayAddress,
      long keysSchemaAddress,
      long keysArrayAddress) {
    NativeLoader.load();
    return splitBatch(
        schemaAddress, arrayAddress, spec, outArrayAddress, keysSchemaAddress, keysArrayAddress);
  }

  // ---- JNI export (native/src/jni/split.rs): Java_io_frazil_jni_NativePartitionSplit_splitBatch

  private static native int[] splitBatch(
      long schemaAddr,
      long arrayAddr,
      int[] spec,
      long outArrayAddr,
      long keysSchemaAddr,
      long keysArrayAddr);
}

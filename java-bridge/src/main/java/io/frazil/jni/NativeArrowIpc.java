package io.frazil.jni;

/**
 * Arrow batches to and from Arrow IPC stream bytes: the 1:1 Java mirror of the JNI exports in
 * {@code native/src/jni/ipc.rs}. Stateless and thread-safe.
 *
 * <p>Both calls move what they are given: the exported {@code ArrowSchema} (and, for {@link
 * #encode}, the exported {@code ArrowArray}) are released by native code, on success and on
 * failure. {@link #decode} moves the decoded batch into the empty {@code ArrowArray} Java
 * allocated; Java owns and releases it.
 */
public final class NativeArrowIpc {
  private NativeArrowIpc() {}

  /**
   * Encodes the exported batch as one IPC stream (schema message, record batch message, end marker)
   * straight into {@code dst} from {@code offset} (the array is pinned while native code writes).
   *
   * @param compression 0 none, 1 LZ4 frame, 2 Zstd
   * @return the stream's length, or minus its length if it does not fit after {@code offset} (the
   *     bytes there are then undefined)
   * @throws IllegalArgumentException if the batch is invalid (lengths, offsets, null counts)
   */
  public static int encode(
      long schemaAddress, long arrayAddress, int compression, byte[] dst, int offset) {
    NativeLoader.load();
    return encodeStream(schemaAddress, arrayAddress, compression, dst, offset);
  }

  /**
   * Decodes the IPC stream in the first {@code length} bytes of {@code bytes} into the empty
   * ArrowArray at {@code arrayAddress}; returns its rows.
   *
   * @throws IllegalArgumentException naming what is wrong if the bytes are truncated or forged, or
   *     were written with another schema than the exported one
   */
  public static int decode(long schemaAddress, byte[] bytes, int length, long arrayAddress) {
    NativeLoader.load();
    return decodeStream(schemaAddress, bytes, length, arrayAddress);
  }

  // ---- JNI exports (native/src/jni/ipc.rs): Java_io_frazil_jni_NativeArrowIpc_<name> ----

  private static native int encodeStream(
      long schemaAddr, long arrayAddr, int compression, byte[] dst, int offset);

  private static native int decodeStream(long schemaAddr, byte[] bytes, int length, long arrayAddr);
}

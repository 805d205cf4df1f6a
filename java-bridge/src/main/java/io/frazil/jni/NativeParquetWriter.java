package io.frazil.jni;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * One native Parquet file encoder: the 1:1 Java mirror of the JNI exports in {@code
 * native/src/jni/mod.rs}.
 *
 * <p>Memory: Java allocates and exports Arrow data through the C Data Interface; {@link #open} and
 * {@link #writeBatch} hand the address of an exported struct to native code, which takes ownership
 * at once (the struct is left released) and releases the Java buffers before returning, on the
 * calling thread. Encoded bytes stay in native memory until {@link #drain}ed.
 *
 * <p>An instance is confined to one thread. {@link #close()} frees the native writer; a second
 * close does nothing, and any other call after it throws {@link IllegalStateException}.
 */
public final class NativeParquetWriter implements AutoCloseable {
  private long handle;

  private NativeParquetWriter(long handle) {
    this.handle = handle;
  }

  /**
   * Opens a writer.
   *
   * @param schemaAddress address of an exported {@code ArrowSchema} (a struct of the table's
   *     columns with Iceberg field ids); consumed
   * @param icebergSchemaJson {@code SchemaParser.toJson} of the write schema, for the footer
   * @param properties Iceberg table/writer properties; {@code write.parquet.*} keys are honoured
   */
  public static NativeParquetWriter open(
      long schemaAddress, String icebergSchemaJson, Map<String, String> properties) {
    NativeLoader.load();
    long handle =
        open(
            schemaAddress,
            icebergSchemaJson.getBytes(StandardCharsets.UTF_8),
            encodeProperties(properties));
    return new NativeParquetWriter(handle);
  }

  /**
   * Hands one exported batch ({@code ArrowArray} address, consumed) to the native encoder and
   * returns the file's estimated length before it.
   *
   * @param keep how many of the caller's batches, this one included, native code may still use when
   *     this returns; older ones were released on the calling thread. A caller passing {@code k >
   *     0} owns {@code k + 1} batches and refills the oldest. With 0 this batch is encoded and
   *     released before this returns.
   */
  public long writeBatch(long arrayAddress, int keep) {
    if (keep < 0) {
      throw new IllegalArgumentException("Invalid batches to keep: " + keep);
    }
    return write(ensureOpen("write a batch"), arrayAddress, keep);
  }

  /** Written bytes plus the estimated encoded size of the open row group. */
  public long estimatedLength() {
    return estimatedLength(ensureOpen("estimate the length"));
  }

  /**
   * Releases the batches native code has finished encoding, without waiting, and returns how many
   * of the caller's most recent batches it still uses (all older ones are free to refill).
   */
  public int releaseEncoded() {
    return releaseEncoded(ensureOpen("release encoded batches"));
  }

  /**
   * Closes the open row group now, before it reaches its size (a memory budget's way to shed a
   * file's buffers), after waiting for the batches in flight: all of the caller's batches are free
   * afterwards, and the row group's bytes are pending output. Returns the bytes the file still
   * holds.
   */
  public long flushRowGroup() {
    return flushRowGroup(ensureOpen("flush a row group"));
  }

  /**
   * Bytes of native memory this file holds now: its first rows (copied before the encoder is set
   * up), its open row group and its pending output.
   */
  public long heldBytes() {
    return heldBytes(ensureOpen("measure held memory"));
  }

  /** Copies pending encoded bytes into {@code dst}; returns the count, 0 when none is pending. */
  public int drain(byte[] dst) {
    return drain(ensureOpen("drain output"), dst);
  }

  /** Finishes the file (footer becomes pending output) and returns its summary. */
  public NativeFileSummary finish() {
    return NativeFileSummary.parse(close(ensureOpen("finish the file")));
  }

  /** True until {@link #close()}. */
  public boolean isOpen() {
    return handle != 0;
  }

  /** Frees the native writer; idempotent. */
  @Override
  public void close() {
    long toFree = handle;
    // Clear first so no path can use the handle after the native side dropped it.
    handle = 0;
    if (toFree != 0) {
      free(toFree);
    }
  }

  /** Native writers opened and not yet freed in this process (for leak checks). */
  public static long liveWriterCount() {
    NativeLoader.load();
    return liveWriters();
  }

  /**
   * Bytes the native library has allocated and not freed, process-wide (encoder buffers, pages, row
   * groups in progress; not the Java-owned Arrow buffers it reads). Exact for the calling thread;
   * each other native thread adds its count in steps of 64 KiB, so the total may be off by up to
   * that much per thread. Only call it once the library is loaded.
   */
  public static long allocatedBytes() {
    return nativeAllocatedBytes();
  }

  /**
   * Tells the native library whether memory is short, process-wide. While it is, a file whose first
   * page is complete keeps its rows held compactly (each column's distinct values and a 16-bit key
   * per row) up to a page's row limit, instead of starting its encoder, whose open page costs about
   * 10 bytes a value; such rows are encoded when the file closes, or at its next batch once memory
   * is no longer short. A file's bytes never depend on it. Only call it once the library is loaded.
   */
  public static void setUnderMemoryPressure(boolean on) {
    setMemoryPressure(on);
  }

  /** What {@link #setUnderMemoryPressure} last said. Only call it once the library is loaded. */
  public static boolean underMemoryPressure() {
    return memoryPressure();
  }

  private long ensureOpen(String action) {
    if (handle == 0) {
      throw new IllegalStateException("Cannot " + action + ": the native writer is closed");
    }
    return handle;
  }

  /** Encodes properties as read by {@code decode_properties} in {@code jni/mod.rs}. */
  static byte[] encodeProperties(Map<String, String> properties) {
    int size = 4;
    byte[][] encoded = new byte[properties.size() * 2][];
    int i = 0;
    for (Map.Entry<String, String> entry : properties.entrySet()) {
      encoded[i] = entry.getKey().getBytes(StandardCharsets.UTF_8);
      encoded[i + 1] = String.valueOf(entry.getValue()).getBytes(StandardCharsets.UTF_8);
      size += 8 + encoded[i].length + encoded[i + 1].length;
      i += 2;
    }
    ByteBuffer out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    out.putInt(properties.size());
    for (byte[] bytes : encoded) {
      out.putInt(bytes.length);
      out.put(bytes);
    }
    return out.array();
  }

  // ---- JNI exports (native/src/jni/mod.rs); same names and argument order ----

  /** The native crate's version. */
  static native String nativeVersion();

  /** Consumes the schema struct at {@code schemaAddr}; returns a writer handle. */
  static native long open(long schemaAddr, byte[] icebergSchemaJson, byte[] properties);

  /**
   * Consumes the array struct at {@code arrayAddr} and queues it for encoding; returns the
   * estimated file length before it, once at most {@code keep} batches are still in use.
   */
  static native long write(long handle, long arrayAddr, int keep);

  static native long estimatedLength(long handle);

  static native int releaseEncoded(long handle);

  static native long flushRowGroup(long handle);

  static native long heldBytes(long handle);

  static native int drain(long handle, byte[] dst);

  /** Finishes the file; returns the encoded {@link NativeFileSummary}. */
  static native byte[] close(long handle);

  /** Drops the writer; a handle that is not live is ignored. */
  static native void free(long handle);

  static native long liveWriters();

  /** Bytes allocated by the library's global allocator and not yet freed. */
  static native long nativeAllocatedBytes();

  static native void setMemoryPressure(boolean on);

  static native boolean memoryPressure();
}

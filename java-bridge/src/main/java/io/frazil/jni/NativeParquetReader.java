package io.frazil.jni;

/**
 * One native Parquet file decoder: the 1:1 Java mirror of the JNI exports in {@code
 * native/src/jni/reader.rs}.
 *
 * <p>Java fetches every byte (the footer, then the column chunks of one row group) through
 * Iceberg's {@code FileIO} and copies it in with {@link #beginRange}/{@link #appendRange}; native
 * code never opens the file. {@link #nextBatch} moves a decoded batch into an empty {@code
 * ArrowArray} that Java allocated: Java owns and releases it.
 *
 * <p>An instance is confined to one thread. {@link #close()} frees the native reader; a second
 * close does nothing, and any other call after it throws {@link IllegalStateException}.
 */
public final class NativeParquetReader implements AutoCloseable {
  private long handle;

  private NativeParquetReader(long handle) {
    this.handle = handle;
  }

  /**
   * Parses a file's footer.
   *
   * @param footer the Thrift {@code FileMetaData} bytes (before the 8-byte tail)
   * @param batchRows rows per decoded batch
   */
  public static NativeParquetReader parseFooter(byte[] footer, long fileLength, int batchRows) {
    NativeLoader.load();
    return new NativeParquetReader(open(footer, fileLength, batchRows));
  }

  public int rowGroups() {
    return rowGroups(ensureOpen("count row groups"));
  }

  /** Writes the schema of the batches of {@code leaves} (a struct) into an empty ArrowSchema. */
  public void exportSchema(int[] leaves, long schemaAddress) {
    exportSchema(ensureOpen("export the schema"), leaves, schemaAddress);
  }

  /** Starts a byte range of the file; its bytes follow through {@link #appendRange}. */
  public void beginRange(long offset, int length) {
    beginRange(ensureOpen("fetch bytes"), offset, length);
  }

  /** The next {@code n} bytes of the range begun last, from the start of {@code bytes}. */
  public void appendRange(byte[] bytes, int n) {
    appendRange(ensureOpen("fetch bytes"), bytes, n);
  }

  /** Decodes {@code leaves} of {@code rowGroup} from the ranges fetched since the last start. */
  public void startRowGroup(int rowGroup, int[] leaves) {
    startRowGroup(ensureOpen("start a row group"), rowGroup, leaves);
  }

  /** Moves the next batch into the empty ArrowArray at {@code arrayAddress}; 0 when done. */
  public int nextBatch(long arrayAddress) {
    return nextBatch(ensureOpen("decode a batch"), arrayAddress);
  }

  @Override
  public void close() {
    long open = handle;
    handle = 0;
    if (open != 0) {
      close(open);
    }
  }

  /** Native readers open in this process (leak checks). */
  public static long openReaders() {
    NativeLoader.load();
    return liveReaders();
  }

  private long ensureOpen(String action) {
    if (handle == 0) {
      throw new IllegalStateException("Cannot " + action + ": the native reader is closed");
    }
    return handle;
  }

  // ---- JNI exports (native/src/jni/reader.rs); same names and argument order ----

  static native long open(byte[] footer, long fileLength, int batchRows);

  static native int rowGroups(long handle);

  static native void exportSchema(long handle, int[] leaves, long schemaAddr);

  static native void beginRange(long handle, long offset, int length);

  static native void appendRange(long handle, byte[] bytes, int n);

  static native void startRowGroup(long handle, int rowGroup, int[] leaves);

  static native int nextBatch(long handle, long arrayAddr);

  static native void close(long handle);

  static native long liveReaders();
}

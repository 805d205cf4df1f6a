package io.frazil.iceberg;

import io.frazil.arrow.IcebergArrowSchema;
import io.frazil.jni.NativeFileSummary;
import io.frazil.jni.NativeParquetWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;

/**
 * One data file being encoded natively and written to an Iceberg {@link OutputFile}.
 *
 * <p>Batches cross to native code through the C Data Interface and are encoded on the native
 * encoder threads, up to {@code keep} batches behind the caller (see {@link #write}); after each
 * batch the encoded bytes that native code has ready are copied to the file's stream, so the output
 * never bypasses Iceberg's FileIO (or its stream encryption). Not thread-safe.
 */
final class NativeFileWriter implements AutoCloseable {
  /** Reused copy buffer per thread: writers are thread-confined and copy synchronously. */
  private static final ThreadLocal<byte[]> DRAIN_BUFFER =
      ThreadLocal.withInitial(() -> new byte[256 * 1024]);

  private final OutputFile file;
  private final boolean overwrite;
  private final NativeParquetWriter nativeWriter;
  private final ArrowArray exportedBatch;
  private final org.apache.arrow.vector.types.pojo.Schema arrowSchema;
  private PositionOutputStream out;
  private long bytesOut = 0L;
  private long estimatedLength = 0L;
  private long inFlightBytes = 0L;

  NativeFileWriter(
      OutputFile file,
      Schema schema,
      Map<String, String> properties,
      boolean overwrite,
      BufferAllocator allocator) {
    this.file = file;
    this.overwrite = overwrite;
    this.arrowSchema = IcebergArrowSchema.convert(schema);
    ArrowSchema exportedSchema = ArrowSchema.allocateNew(allocator);
    try {
      Data.exportSchema(allocator, arrowSchema, null, exportedSchema);
      this.nativeWriter =
          NativeParquetWriter.open(
              exportedSchema.memoryAddress(),
              SchemaParser.toJson(schema),
              ParquetColumnNames.rename(schema, properties));
    } finally {
      try {
        releaseIfNotTaken(exportedSchema);
      } finally {
        exportedSchema.close();
      }
    }
    try {
      this.exportedBatch = ArrowArray.allocateNew(allocator);
    } catch (Throwable t) {
      Failures.cleanUpAfter(t, nativeWriter::close);
      throw t;
    }
    // Create the file now (the first row has arrived): Iceberg's task writers expect a file they
    // are writing to exist, e.g. so that abort() finds and deletes it.
    try {
      stream();
    } catch (Throwable t) {
      Failures.cleanUpAfter(t, this::close);
      throw t;
    }
  }

  /**
   * Encodes the batch in {@code root}. Native code may still use this batch and the {@code keep -
   * 1} written before it when this returns; older ones are free to refill. With {@code keep == 0}
   * the caller may reuse the vectors as soon as this returns.
   */
  void write(VectorSchemaRoot root, BufferAllocator allocator, int keep, long rootBytes) {
    if (root.getRowCount() == 0) {
      return;
    }
    checkSchema(root);
    try {
      Data.exportVectorSchemaRoot(allocator, root, null, exportedBatch);
      this.estimatedLength = nativeWriter.writeBatch(exportedBatch.memoryAddress(), keep);
      // The estimate may miss the batches still encoding; count their raw size meanwhile.
      this.inFlightBytes = keep * rootBytes;
    } finally {
      releaseIfNotTaken(exportedBatch);
    }
    drainToStream();
  }

  /** The Arrow schema every batch must have: {@code IcebergArrowSchema.convert(schema)}. */
  org.apache.arrow.vector.types.pojo.Schema arrowSchema() {
    return arrowSchema;
  }

  /**
   * Refuses a batch of another layout. The C Data array carries no types: native code imports it
   * with the writer's schema, so this must happen before its buffers are read.
   */
  void checkSchema(VectorSchemaRoot root) {
    if (!arrowSchema.equals(root.getSchema())) {
      throw new IllegalArgumentException(
          "Batch schema "
              + root.getSchema()
              + " does not match the writer's schema "
              + arrowSchema
              + " for "
              + file.location());
    }
  }

  /**
   * Closes the open row group early and copies its bytes to the stream (see {@link
   * NativeParquetWriter#flushRowGroup}); every batch written before is free afterwards.
   */
  void flushRowGroup() {
    nativeWriter.flushRowGroup();
    this.inFlightBytes = 0L;
    drainToStream();
    this.estimatedLength = nativeWriter.estimatedLength();
  }

  /**
   * Releases the batches already encoded (no waiting); returns how many of the most recent ones
   * native code still uses.
   */
  int releaseEncoded() {
    return nativeWriter.releaseEncoded();
  }

  /** Bytes of native memory the file holds now. */
  long heldBytes() {
    return nativeWriter.heldBytes();
  }

  /** Bytes the file would have if closed now (exact after {@link #finish()}). */
  long estimatedLength() {
    return estimatedLength + inFlightBytes;
  }

  /** Writes the footer, closes the stream and returns the native summary. */
  NativeFileSummary finish() throws IOException {
    NativeFileSummary summary = nativeWriter.finish();
    drainToStream();
    PositionOutputStream finished = stream();
    this.out = null;
    finished.close();
    if (bytesOut != summary.fileSize()) {
      throw new IOException(
          "Wrote "
              + bytesOut
              + " bytes to "
              + file.location()
              + ", expected "
              + summary.fileSize());
    }
    this.estimatedLength = summary.fileSize();
    this.inFlightBytes = 0L;
    return summary;
  }

  /** Frees native and Arrow resources; on failure also closes the stream without finishing. */
  @Override
  public void close() {
    try {
      try {
        nativeWriter.close();
      } finally {
        exportedBatch.close();
      }
    } finally {
      if (out != null) {
        try {
          out.close();
        } catch (IOException | RuntimeException e) {
          // Already failing or already closed: the file is not reported to Iceberg either way.
        }
      }
    }
  }

  private PositionOutputStream stream() {
    if (out == null) {
      // Opened with the first row (never for an appender that gets none).
      this.out = overwrite ? file.createOrOverwrite() : file.create();
    }
    return out;
  }

  private void drainToStream() {
    byte[] buffer = DRAIN_BUFFER.get();
    try {
      int n;
      while ((n = nativeWriter.drain(buffer)) > 0) {
        stream().write(buffer, 0, n);
        bytesOut += n;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Failed to write encoded Parquet to " + file.location(), e);
    }
  }

  /** If native code never took ownership of an exported struct, release it here. */
  private static void releaseIfNotTaken(ArrowSchema schema) {
    if (schema.snapshot().release != 0) {
      schema.release();
    }
  }

  private static void releaseIfNotTaken(ArrowArray array) {
    if (array.snapshot().release != 0) {
      array.release();
    }
  }
}

package io.frazil.exchange;

import io.frazil.iceberg.ArrowMemory;
import io.frazil.jni.NativeArrowIpc;
import java.io.IOException;
import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * An {@link ArrowBatch} to Arrow IPC stream bytes and back, in native code ({@code
 * native/src/ipc}), the batch crossing JNI through the Arrow C Data Interface as it does for the
 * writer. Encoding leaves the batch as it was (the export holds its own references to the buffers
 * until native code has encoded them); a decoded batch owns buffers native code allocated, in the
 * exchange allocator's accounting.
 */
final class ArrowBatchCodec {
  private ArrowBatchCodec() {}

  /** One encoded batch: the first {@code length} bytes of {@code bytes}. */
  static final class Encoded {
    final byte[] bytes;
    final int length;

    Encoded(byte[] bytes, int length) {
      this.bytes = bytes;
      this.length = length;
    }
  }

  /**
   * One IPC stream holding {@code batch}, in this thread's {@link Scratch} array (valid until the
   * thread's next use of it).
   */
  static Encoded encode(ArrowBatch batch, IpcCompression compression) {
    VectorSchemaRoot root = batch.root();
    byte[] dst = Scratch.atLeast(estimatedLength(root));
    int length = encodeInto(root, compression, dst, 0);
    if (length < 0) {
      // Rare (bodies that compress badly, wide schemas): export and encode again, now fitting.
      dst = Scratch.atLeast(-length);
      length = encodeInto(root, compression, dst, 0);
    }
    if (length < 0) {
      throw new IllegalStateException(
          "An Arrow IPC batch needed " + -length + " bytes after needing fewer: " + batch);
    }
    return new Encoded(dst, length);
  }

  /**
   * Writes {@code batch} to {@code out} as a serializer record (its length, then one IPC stream).
   * When the output's array has room for the estimate, native code encodes straight into it: no
   * copy through a scratch array or a native buffer. Otherwise (the output's first large record;
   * its array then keeps the grown size, as Flink's record writers reuse theirs) the record goes
   * through {@link #encode} and is copied in.
   */
  static void encodeTo(ArrowBatch batch, IpcCompression compression, DataOutputSerializer out)
      throws IOException {
    VectorSchemaRoot root = batch.root();
    int start = out.length();
    int body = start + Integer.BYTES;
    byte[] array = out.getSharedBuffer();
    if (array.length - body >= estimatedLength(root)) {
      int length = encodeInto(root, compression, array, body);
      if (length >= 0) {
        out.writeInt(length);
        out.skipBytesToWrite(length); // the bytes are there already
        return;
      }
    }
    Encoded encoded = encode(batch, compression);
    out.writeInt(encoded.length);
    out.write(encoded.bytes, 0, encoded.length);
  }

  private static int encodeInto(
      VectorSchemaRoot root, IpcCompression compression, byte[] dst, int offset) {
    // Exported through the batch's own allocator: arrow-java exports only buffers under the
    // exporting allocator's root, and a batch may come from another root than the exchange's
    // (a source's or a user's allocator).
    BufferAllocator allocator =
        root.getFieldVectors().isEmpty()
            ? ArrowMemory.exchangeAllocator()
            : root.getVector(0).getAllocator();
    try (ArrowArray array = ArrowArray.allocateNew(allocator);
        ArrowSchema schema = ArrowSchema.allocateNew(allocator)) {
      try {
        Data.exportVectorSchemaRoot(allocator, root, null, array, schema);
        return NativeArrowIpc.encode(
            schema.memoryAddress(), array.memoryAddress(), compression.nativeCode(), dst, offset);
      } finally {
        releaseIfNotTaken(array);
        releaseIfNotTaken(schema);
      }
    }
  }

  /** The raw buffers plus room for padding and the schema and batch metadata. */
  private static int estimatedLength(VectorSchemaRoot root) {
    long bytes = 16 << 10;
    for (FieldVector vector : root.getFieldVectors()) {
      bytes += vector.getBufferSize() + 256;
    }
    return (int) Math.min(Integer.MAX_VALUE - 16, bytes);
  }

  /**
   * The batch in the first {@code length} bytes of {@code bytes}.
   *
   * @throws IllegalArgumentException naming the problem if the bytes are not an IPC stream of one
   *     batch of {@code schema}; nothing stays allocated
   */
  static ArrowBatch decode(Schema schema, byte[] bytes, int length) {
    BufferAllocator allocator = ArrowMemory.exchangeAllocator();
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    ArrowArray array = ArrowArray.allocateNew(allocator);
    try {
      try (ArrowSchema exported = ArrowSchema.allocateNew(allocator)) {
        try {
          Data.exportSchema(allocator, schema, null, exported);
          // Writes the batch into the struct only when it succeeds.
          NativeArrowIpc.decode(exported.memoryAddress(), bytes, length, array.memoryAddress());
        } finally {
          releaseIfNotTaken(exported);
        }
      }
      // Moves the batch into the root's vectors and closes the struct.
      Data.importIntoVectorSchemaRoot(allocator, array, root, null);
    } catch (RuntimeException | Error e) {
      root.close();
      throw e;
    } finally {
      array.close();
    }
    return ArrowBatch.of(root);
  }

  /** A deep copy through the codec: new buffers, nothing shared with {@code batch}. */
  static ArrowBatch copy(ArrowBatch batch) {
    Encoded encoded = encode(batch, IpcCompression.NONE);
    return decode(batch.schema(), encoded.bytes, encoded.length);
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

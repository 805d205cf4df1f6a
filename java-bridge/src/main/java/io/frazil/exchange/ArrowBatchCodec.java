package io.frazil.exchange;

import io.frazil.iceberg.ArrowMemory;
import io.frazil.jni.NativeArrowIpc;
import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An {@link ArrowBatch} to Arrow IPC stream bytes and back, in native code ({@code
 * native/src/ipc}), the batch crossing JNI through the Arrow C Data Interface as it does for the
 * writer. Encoding leaves the batch as it was (the export holds its own references to the buffers
 * until native code has encoded them); a decoded batch owns buffers native code allocated, in the
 * exchange allocator's accounting.
 */
final class ArrowBatchCodec {
  private ArrowBatchCodec() {}

  /** One IPC stream holding {@code batch}. */
  static byte[] encode(ArrowBatch batch, IpcCompression compression) {
    VectorSchemaRoot root = batch.root();
    BufferAllocator allocator = ArrowMemory.exchangeAllocator();
    try (ArrowArray array = ArrowArray.allocateNew(allocator);
        ArrowSchema schema = ArrowSchema.allocateNew(allocator)) {
      try {
        Data.exportVectorSchemaRoot(allocator, root, null, array, schema);
        return NativeArrowIpc.encode(
            schema.memoryAddress(), array.memoryAddress(), compression.nativeCode());
      } finally {
        releaseIfNotTaken(array);
        releaseIfNotTaken(schema);
      }
    }
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
    byte[] bytes = encode(batch, IpcCompression.NONE);
    return decode(batch.schema(), bytes, bytes.length);
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

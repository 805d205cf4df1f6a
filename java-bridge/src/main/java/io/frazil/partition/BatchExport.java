package io.frazil.partition;

import io.frazil.exchange.ArrowBatch;
import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Hands a batch to a native call that takes (moves) its C Data export, and makes sure the export is
 * released if the call never took it. The batch itself stays with the caller.
 */
final class BatchExport {
  private BatchExport() {}

  /** A native call on an exported batch. */
  @FunctionalInterface
  interface NativeCall<T> {
    T apply(long schemaAddress, long arrayAddress);
  }

  /**
   * Exports {@code batch} and runs {@code call} on it. Exported through the batch's own allocator:
   * arrow-java exports only buffers of the exporting allocator's root, and the batch may live under
   * another root than the caller's ({@code fallback} is used for a batch without columns).
   */
  static <T> T call(ArrowBatch batch, BufferAllocator fallback, NativeCall<T> call) {
    VectorSchemaRoot root = batch.root();
    BufferAllocator allocator =
        root.getFieldVectors().isEmpty() ? fallback : root.getVector(0).getAllocator();
    try (ArrowArray array = ArrowArray.allocateNew(allocator);
        ArrowSchema schema = ArrowSchema.allocateNew(allocator)) {
      try {
        Data.exportVectorSchemaRoot(allocator, root, null, array, schema);
        return call.apply(schema.memoryAddress(), array.memoryAddress());
      } finally {
        releaseIfNotTaken(array);
        releaseIfNotTaken(schema);
      }
    }
  }

  /** If native code never took ownership of an exported struct, release it here. */
  static void releaseIfNotTaken(ArrowSchema schema) {
    if (schema.snapshot().release != 0) {
      schema.release();
    }
  }

  static void releaseIfNotTaken(ArrowArray array) {
    if (array.snapshot().release != 0) {
      array.release();
    }
  }
}

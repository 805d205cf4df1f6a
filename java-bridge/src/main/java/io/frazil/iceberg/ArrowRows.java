package io.frazil.iceberg;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;

/**
 * An Arrow batch whose rows are being written one by one (see {@link ArrowRowOrigin}): its leading
 * columns are a table's, laid out as {@code IcebergArrowSchema} converts the table (what the native
 * writer takes), possibly followed by columns the writer never sees (the row kind).
 *
 * <p>Life: whoever turns the batch into rows creates this, emits the rows, and calls {@link
 * #release()} before it frees the batch. Appenders that were given a run of its rows and have not
 * written it yet register a hook ({@link #beforeRelease}); {@code release} runs them, so every run
 * is sliced out of the batch while its buffers are still valid. After {@code release} the batch is
 * freed, never refilled: slices share its buffers until native code has encoded them (Arrow's
 * reference counts keep the memory alive meanwhile, not its contents). Single-threaded, like the
 * chain.
 */
public final class ArrowRows {
  private final VectorSchemaRoot root;
  private final int columns;
  private final List<Runnable> hooks = new ArrayList<>(2);
  private Schema schema;
  private BufferAllocator bufferRoot;
  private boolean rootChecked = false;
  private long bytesPerRow = -1L; // not computed yet
  private boolean released = false;

  /**
   * @param root the batch, which stays valid until {@link #release()} returns
   * @param columns how many leading columns of {@code root} are the table's
   */
  public ArrowRows(VectorSchemaRoot root, int columns) {
    this.root = root;
    this.columns = columns;
  }

  /** The schema of the table's columns, to compare with a writer's. */
  Schema schema() {
    if (schema == null) {
      // The root's own schema: a nested vector's getField() may name its children otherwise.
      List<Field> fields = root.getSchema().getFields();
      this.schema = new Schema(fields.subList(0, columns));
    }
    return schema;
  }

  /**
   * The root allocator of all the batch's buffers, or null when they belong to several (then no
   * slice can be taken).
   */
  BufferAllocator bufferRoot() {
    if (!rootChecked) {
      this.rootChecked = true;
      try {
        this.bufferRoot = BufferRoots.of(root.getFieldVectors());
      } catch (BufferRoots.MixedRootsException e) {
        this.bufferRoot = null;
      }
    }
    return bufferRoot;
  }

  int rowCount() {
    return root.getRowCount();
  }

  /**
   * Average bytes of the table's columns per row: what a run counts toward a file's length.
   * Computed once: the batch is never refilled while its rows are written (see the class comment),
   * so its row count and buffer sizes stay as they were, and each run start asks again.
   */
  long bytesPerRow() {
    if (bytesPerRow < 0) {
      this.bytesPerRow = averageRowBytes();
    }
    return bytesPerRow;
  }

  private long averageRowBytes() {
    int rows = root.getRowCount();
    if (rows == 0) {
      return 0L;
    }
    long bytes = 0L;
    for (int i = 0; i < columns; i++) {
      bytes += root.getVector(i).getBufferSize();
    }
    return bytes / rows;
  }

  /**
   * Rows {@code [from, to)} of the table's columns as a batch of their own, accounted to {@code
   * into} (which must share the batch's root allocator). Buffers are shared, not copied, where
   * Arrow can slice them (a validity bitmap starting mid-byte and variable-width offsets are
   * copied); the slice stays valid after this batch is released. The caller closes it.
   */
  VectorSchemaRoot slice(int from, int to, BufferAllocator into) {
    checkOpen();
    List<FieldVector> sliced = new ArrayList<>(columns);
    try {
      for (int i = 0; i < columns; i++) {
        // The slice's vectors may name a list's child "$data$" (arrow-java's transfer does): the
        // slice root carries the batch's schema, which is what its export describes.
        TransferPair pair = root.getVector(i).getTransferPair(into);
        pair.splitAndTransfer(from, to - from);
        sliced.add((FieldVector) pair.getTo());
      }
    } catch (Throwable t) {
      for (FieldVector vector : sliced) {
        Failures.cleanUpAfter(t, vector::close);
      }
      throw t;
    }
    return new VectorSchemaRoot(schema(), sliced, to - from);
  }

  /** Runs {@code hook} when {@link #release()} is called (before the batch is freed). */
  void beforeRelease(Runnable hook) {
    checkOpen();
    hooks.add(hook);
  }

  /**
   * Runs every hook, in the order they were registered, even when one fails; the first failure is
   * thrown afterwards with the others suppressed. Call it once, before the batch is freed.
   */
  public void release() {
    checkOpen();
    RuntimeException first = null;
    for (Runnable hook : hooks) {
      try {
        hook.run();
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else if (first != e) {
          first.addSuppressed(e);
        }
      }
    }
    hooks.clear();
    this.released = true;
    if (first != null) {
      throw first;
    }
  }

  private void checkOpen() {
    if (released) {
      throw new IllegalStateException("The rows of this Arrow batch were released already");
    }
  }
}

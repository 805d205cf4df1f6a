package io.frazil.iceberg;

import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.validate.ValidateUtil;
import org.apache.arrow.vector.validate.ValidateVectorBufferVisitor;
import org.apache.arrow.vector.validate.ValidateVectorTypeVisitor;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.OutputFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link FileAppender} for callers that already hold Arrow batches: each {@link VectorSchemaRoot}
 * (laid out as {@code IcebergArrowSchema.convert(schema)}) is encoded with no row conversion and no
 * copy. Who owns a batch once {@code add} returns is fixed when the appender is built:
 *
 * <ul>
 *   <li><b>The caller keeps it</b> ({@link FrazilParquet.WriteBuilder#buildArrow()}): {@code add}
 *       returns once native code has encoded the batch and let go of it, so the caller may refill,
 *       reuse or free the root at once, and its buffers may come from any allocator. Nothing
 *       overlaps: each {@code add} waits for the encoder.
 *   <li><b>Ownership passes</b> ({@link FrazilParquet.WriteBuilder#buildArrowTakingOwnership()}):
 *       {@code add} moves the root's buffers into vectors of the appender's (an Arrow transfer: no
 *       copy) and returns while native code may still encode this batch and the one before, as for
 *       RowData input; an older batch is freed on the calling thread, during a later {@code add} or
 *       {@code close}. The root is left empty (no buffers, row count 0) whenever {@code add}
 *       returns or throws; the caller gives it new buffers ({@code root.allocateNew()}, Arrow's
 *       rule after a transfer: arrow-java 19 regrows a string vector that was only given a row
 *       count from one slot, doubling its data buffer at every step) and fills it again. The
 *       buffers must not be written through any other vector that shares them. Their memory is then
 *       accounted to a child allocator the appender creates under their root allocator (on the
 *       first batch) and closes with itself: that root allocator must outlive the appender, while
 *       the allocator they were allocated from may be closed at once.
 * </ul>
 *
 * <p>Arrow moves a buffer only between allocators of one root. Under the ownership contract, a
 * later batch whose buffers belong to another root allocator than the first batch's is encoded
 * before {@code add} returns, as under the caller's contract, and then freed (the root is emptied
 * all the same); this is logged once per file. A batch whose buffers come from several root
 * allocators is refused, as it cannot be exported either way.
 */
public final class FrazilArrowAppender extends NativeFileAppender<VectorSchemaRoot> {
  private static final Logger LOG = LoggerFactory.getLogger(FrazilArrowAppender.class);

  private final boolean takesOwnership;

  /**
   * Allocates the C Data structs. The caller's contract: a child of the first batch's allocator.
   * Ownership passing: a child of the first batch's root allocator, which also holds the batches
   * taken until native code has let go of them.
   */
  private BufferAllocator exportAllocator;

  /**
   * Ownership passing: the vectors each batch's buffers are transferred into. Empty between calls:
   * once exported, a batch's buffers are held by native code alone and freed when it lets go.
   */
  private VectorSchemaRoot taken;

  private long inlineBatches = 0L;

  FrazilArrowAppender(
      OutputFile file,
      Schema schema,
      Map<String, String> properties,
      MetricsConfig metricsConfig,
      boolean overwrite,
      MemoryBudget budget,
      boolean takesOwnership) {
    super(file, schema, properties, metricsConfig, overwrite, budget);
    this.takesOwnership = takesOwnership;
  }

  /** True when {@code add} takes the batch's buffers and may keep them in flight. */
  public boolean takesOwnership() {
    return takesOwnership;
  }

  @Override
  public void add(VectorSchemaRoot root) {
    if (!takesOwnership) {
      addBorrowed(root);
      return;
    }
    try {
      addTaken(root);
    } catch (RuntimeException | Error e) {
      // Ownership passed with the call: a refused batch is freed too.
      Failures.cleanUpAfter(e, root::clear);
      throw e;
    }
    root.clear();
  }

  /** The caller's contract: encoded and let go of before this returns. */
  private void addBorrowed(VectorSchemaRoot root) {
    checkUsable("add a batch");
    if (root.getRowCount() == 0) {
      return;
    }
    try {
      // C Data export goes through the batch's own allocator root (arrow-java requires it).
      BufferAllocator allocator = root.getFieldVectors().get(0).getAllocator();
      if (fileWriter == null) {
        ArrowMemory.checkAccess();
        this.exportAllocator =
            allocator.newChildAllocator("frazil:" + file.location(), 0, Long.MAX_VALUE);
        openFile(exportAllocator);
      }
      checkBuffers(root, file.location());
      fileWriter.write(root, allocator, 0, 0L);
      rowCount += root.getRowCount();
      checkBudget();
    } catch (Throwable t) {
      throw failed(t, "adding a batch to");
    }
  }

  /** Ownership passing: the buffers move to {@link #taken}, then to native code. */
  private void addTaken(VectorSchemaRoot root) {
    checkUsable("add a batch");
    int rows = root.getRowCount();
    if (rows == 0) {
      return;
    }
    try {
      checkBuffers(root, file.location());
      BufferAllocator bufferRoot = bufferRoot(root);
      if (fileWriter == null) {
        ArrowMemory.checkAccess();
        this.exportAllocator =
            bufferRoot.newChildAllocator("frazil:" + file.location(), 0, Long.MAX_VALUE);
        openFile(exportAllocator);
        this.taken = VectorSchemaRoot.create(fileWriter.arrowSchema(), exportAllocator);
      }
      fileWriter.checkSchema(root);
      if (bufferRoot == exportAllocator.getRoot()) {
        writeTaken(root);
      } else {
        writeInline(root, bufferRoot);
      }
      rowCount += rows;
      checkBudget();
    } catch (Throwable t) {
      throw failed(t, "adding a batch to");
    }
  }

  private void writeTaken(VectorSchemaRoot root) {
    long bytes = dataBytes(root);
    try {
      List<FieldVector> from = root.getFieldVectors();
      for (int i = 0; i < from.size(); i++) {
        from.get(i).makeTransferPair(taken.getVector(i)).transfer();
      }
      taken.setRowCount(root.getRowCount());
      // The export keeps every buffer referenced until native code lets go of the batch.
      fileWriter.write(taken, exportAllocator, BATCHES_IN_FLIGHT, bytes);
    } catch (Throwable t) {
      Failures.cleanUpAfter(t, taken::clear);
      throw t;
    }
    taken.clear();
  }

  /** A batch that cannot be transferred here: encoded before this returns, then freed. */
  private void writeInline(VectorSchemaRoot root, BufferAllocator bufferRoot) {
    if (inlineBatches++ == 0) {
      LOG.warn(
          "Frazil: an Arrow batch for {} comes from root allocator '{}', not '{}' of the file's"
              + " first batch: Arrow cannot transfer its buffers, so such batches are encoded"
              + " before add returns (no overlap). Allocate a file's batches under one root.",
          file.location(),
          bufferRoot.getName(),
          exportAllocator.getRoot().getName());
    }
    fileWriter.write(root, bufferRoot, 0, 0L);
  }

  /** Batches encoded before {@code add} returned although ownership passed (tests). */
  long inlineBatches() {
    return inlineBatches;
  }

  /** The root allocator of every buffer in {@code root} (see {@link BufferRoots}). */
  private BufferAllocator bufferRoot(VectorSchemaRoot root) {
    try {
      return BufferRoots.of(root.getFieldVectors());
    } catch (BufferRoots.MixedRootsException e) {
      throw new IllegalArgumentException(
          "Arrow batch for "
              + file.location()
              + " "
              + e.getMessage()
              + ": it can be neither transferred nor exported");
    }
  }

  /** Bytes of data in the batch (its raw size while native code encodes it). */
  private static long dataBytes(VectorSchemaRoot root) {
    long bytes = 0L;
    for (FieldVector vector : root.getFieldVectors()) {
      bytes += vector.getBufferSize();
    }
    return bytes;
  }

  /**
   * The C Data Interface carries no buffer sizes: native code trusts each vector's value count and
   * offsets to stay inside its buffers. A caller's batch is checked here, where the sizes are known
   * (native code then checks offsets, null counts and child lengths itself).
   */
  private static void checkBuffers(VectorSchemaRoot root, String location) {
    for (FieldVector vector : root.getFieldVectors()) {
      try {
        // ValueVectorUtility.validate(vector), but a map column passes the type check.
        vector.accept(new TypeCheck(), null);
        vector.accept(new ValidateVectorBufferVisitor(), null);
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(
            "Arrow batch for "
                + location
                + " is inconsistent in column '"
                + vector.getName()
                + "': "
                + e.getMessage());
      }
    }
  }

  /**
   * arrow-java's type check with one fix: a {@link MapVector} is a {@link ListVector} to visitors,
   * and arrow-java 19 then requires the List type of it, refusing every map column.
   */
  private static final class TypeCheck extends ValidateVectorTypeVisitor {
    @Override
    public Void visit(ListVector vector, Void value) {
      if (!(vector instanceof MapVector)) {
        return super.visit(vector, value);
      }
      if (!(vector.getField().getType() instanceof ArrowType.Map)) {
        throw new ValidateUtil.ValidateException(
            "Incorrect arrow type for " + vector.getClass() + " : " + vector.getField().getType());
      }
      vector.getDataVector().accept(this, null);
      return null;
    }
  }

  /** Nothing waits here to be encoded: each batch is handed to native code in its {@code add}. */
  @Override
  void flushBuffered() {}

  /** The batches taken and still in flight (the caller's own batches are not counted). */
  @Override
  long bufferedMemory() {
    return takesOwnership && exportAllocator != null ? exportAllocator.getAllocatedMemory() : 0L;
  }

  @Override
  void releaseBuffers() {
    // Native code has let go of every batch by now (the writer is closed): both are empty.
    try {
      if (taken != null) {
        taken.close();
      }
    } finally {
      if (exportAllocator != null) {
        exportAllocator.close();
      }
    }
  }
}

package io.frazil.iceberg;

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

/**
 * A {@link FileAppender} for callers that already hold Arrow batches: each {@link VectorSchemaRoot}
 * (laid out as {@code IcebergArrowSchema.convert(schema)}, allocated from any allocator) is encoded
 * as it is added, with no row conversion. The caller keeps ownership of the root and may reuse it
 * once {@code add} returns.
 */
public final class FrazilArrowAppender extends NativeFileAppender<VectorSchemaRoot> {
  private BufferAllocator exportAllocator;

  FrazilArrowAppender(
      OutputFile file,
      Schema schema,
      Map<String, String> properties,
      MetricsConfig metricsConfig,
      boolean overwrite,
      MemoryBudget budget) {
    super(file, schema, properties, metricsConfig, overwrite, budget);
  }

  @Override
  public void add(VectorSchemaRoot root) {
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
      checkBuffers(root);
      fileWriter.write(root, allocator, 0, 0L);
      rowCount += root.getRowCount();
      checkBudget();
    } catch (Throwable t) {
      throw failed(t, "adding a batch to");
    }
  }

  /**
   * The C Data Interface carries no buffer sizes: native code trusts each vector's value count and
   * offsets to stay inside its buffers. A caller's batch is checked here, where the sizes are known
   * (native code then checks offsets, null counts and child lengths itself).
   */
  private void checkBuffers(VectorSchemaRoot root) {
    for (FieldVector vector : root.getFieldVectors()) {
      try {
        // ValueVectorUtility.validate(vector), but a map column passes the type check.
        vector.accept(new TypeCheck(), null);
        vector.accept(new ValidateVectorBufferVisitor(), null);
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(
            "Arrow batch for "
                + file.location()
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

  /** The caller's batches are encoded before {@code add} returns: nothing is buffered here. */
  @Override
  void flushBuffered() {}

  @Override
  long bufferedMemory() {
    return 0L;
  }

  @Override
  void releaseBuffers() {
    if (exportAllocator != null) {
      exportAllocator.close();
    }
  }
}

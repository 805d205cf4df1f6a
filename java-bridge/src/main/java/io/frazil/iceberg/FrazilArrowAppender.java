package io.frazil.iceberg;

import io.frazil.jni.NativeFileSummary;
import io.frazil.metrics.NativeMetrics;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.ValueVectorUtility;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.relocated.com.google.common.base.Preconditions;

/**
 * A {@link FileAppender} for callers that already hold Arrow batches: each {@link VectorSchemaRoot}
 * (laid out as {@code IcebergArrowSchema.convert(schema)}, allocated from any allocator) is encoded
 * as it is added, with no row conversion. The caller keeps ownership of the root and may reuse it
 * once {@code add} returns.
 */
public final class FrazilArrowAppender implements FileAppender<VectorSchemaRoot> {
  private final OutputFile file;
  private final Schema schema;
  private final Map<String, String> properties;
  private final MetricsConfig metricsConfig;
  private final boolean overwrite;

  /** Null when the table or the process keeps this file out of the memory budget. */
  private final MemoryBudget budget;

  private NativeFileWriter fileWriter;
  private MemoryBudget.Member member;
  private BufferAllocator exportAllocator;
  private long rowCount = 0L;
  private boolean closed = false;
  private Throwable failure = null;
  private Metrics metrics;
  private List<Long> splitOffsets;
  private long length = 0L;

  FrazilArrowAppender(
      OutputFile file,
      Schema schema,
      Map<String, String> properties,
      MetricsConfig metricsConfig,
      boolean overwrite,
      MemoryBudget budget) {
    this.file = file;
    this.schema = schema;
    this.properties = properties;
    this.metricsConfig = metricsConfig;
    this.overwrite = overwrite;
    this.budget = budget;
  }

  @Override
  public void add(VectorSchemaRoot root) {
    Preconditions.checkState(!closed, "Cannot add a batch: the appender for %s is closed", file);
    if (failure != null) {
      throw Failures.refused("add a batch", file.location(), failure);
    }
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
        this.fileWriter =
            new NativeFileWriter(file, schema, properties, overwrite, exportAllocator);
        if (budget != null) {
          this.member = budget.join(new BudgetedFile());
        }
      }
      checkBuffers(root);
      fileWriter.write(root, allocator, 0, 0L);
      rowCount += root.getRowCount();
      if (member != null) {
        budget.check(member);
        if (failure != null) {
          throw Failures.rethrow(failure);
        }
      }
    } catch (Throwable t) {
      Throwable thrown = Failures.ordinary(t, "adding a batch to " + file.location());
      this.failure = thrown;
      throw Failures.rethrow(thrown);
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
        ValueVectorUtility.validate(vector);
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

  @Override
  public Metrics metrics() {
    Preconditions.checkState(closed, "Cannot return metrics for an unclosed appender");
    return metrics;
  }

  @Override
  public long length() {
    return closed ? length : fileWriter == null ? 0L : fileWriter.estimatedLength();
  }

  @Override
  public List<Long> splitOffsets() {
    return splitOffsets;
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    this.closed = true;
    if (failure != null) {
      // Even a failure before the first row reached the encoder (the file may exist, empty):
      // nothing of this appender may be reported as a data file.
      IOException refused = Failures.cannotFinish(file.location(), failure);
      Failures.cleanUpAfter(refused, this::release);
      throw refused;
    }
    try {
      if (rowCount == 0) {
        // No row ever reached the encoder: like stock Iceberg, create no file.
        this.metrics = new Metrics(0L, null, null, null, null);
      } else {
        NativeFileSummary summary = fileWriter.finish();
        this.length = summary.fileSize();
        this.splitOffsets = summary.splitOffsets();
        this.metrics = NativeMetrics.build(summary, schema, metricsConfig);
      }
    } catch (Throwable t) {
      throw Failures.closeFailed(t, file.location(), this::release);
    }
    release();
  }

  /** This file's place in the memory budget: only the encoder's row group can be shed. */
  private final class BudgetedFile implements MemoryBudget.Sheddable {
    @Override
    public long heldBytes() {
      return closed || failure != null ? 0L : fileWriter.heldBytes();
    }

    @Override
    public void shed() {
      if (closed || failure != null) {
        return;
      }
      try {
        fileWriter.flushRowGroup();
      } catch (Throwable t) {
        failure = Failures.ordinary(t, "closing a row group of " + file.location() + " early");
      }
    }
  }

  private void release() {
    if (member != null) {
      budget.leave(member);
      this.member = null;
    }
    try {
      if (fileWriter != null) {
        fileWriter.close();
      }
    } finally {
      if (exportAllocator != null) {
        exportAllocator.close();
      }
    }
  }
}

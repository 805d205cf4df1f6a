package io.frazil.arrow;

import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.relocated.com.google.common.base.Preconditions;
import org.apache.iceberg.types.Types;

/**
 * Appends Flink {@link RowData} to Arrow vectors laid out by {@link IcebergArrowSchema}.
 *
 * <p>The per-type writers are chosen once, in the constructor, from the Iceberg type (which fixes
 * the Arrow vector) and the Flink logical type (which fixes the {@code RowData} getter, e.g. a
 * Flink {@code SMALLINT} feeding an Iceberg {@code int}). Writing a row is then a walk over that
 * tree with no type dispatch, boxing or per-row allocation besides what the Flink getters do.
 *
 * <p>Every value is copied into Arrow memory, so callers may reuse row objects. A null in a
 * required field fails {@link #write(RowData)} with an {@link IllegalArgumentException}; the
 * vectors may then hold part of that row, so the current batch must be discarded (close this
 * writer, or call {@link #reset()} before writing again).
 *
 * <p>Read the batch schema from {@code root().getSchema()}: arrow-java names the child vectors of
 * lists and maps {@code $data$} and {@code entries} whatever the schema said, so the per-vector
 * {@code getField()} of a list or map does not carry the {@code element}/{@code key_value} names.
 *
 * <p>The writer tree is built by {@code FieldWriterFactory}; its nodes are {@code FieldWriter}s
 * (fixed-width ones extend {@code FixedWidthWriter}, variable-width ones {@code
 * VariableWidthWriter}), grouped by family in {@code ScalarWriters}, {@code DateTimeWriters},
 * {@code DecimalWriter}, {@code StringAndBinaryWriters} and {@code NestedWriters}.
 *
 * <p>Not thread-safe.
 */
public final class RowDataArrowWriter implements AutoCloseable {
  private final VectorSchemaRoot root;
  private final FieldWriter[] writers;
  private final int[] positions;
  private int rowCount = 0;

  public RowDataArrowWriter(Schema schema, RowType flinkType, BufferAllocator allocator) {
    this(schema, flinkType, allocator, 0);
  }

  /**
   * A writer whose vectors start with room for {@code initialRows} rows (Arrow's default when 0)
   * and grow as rows arrive: a file that receives few rows never holds a full batch's buffers.
   */
  public RowDataArrowWriter(
      Schema schema, RowType flinkType, BufferAllocator allocator, int initialRows) {
    Preconditions.checkNotNull(schema, "Invalid schema: null");
    Preconditions.checkNotNull(flinkType, "Invalid Flink type: null");
    Preconditions.checkNotNull(allocator, "Invalid allocator: null");
    List<Types.NestedField> columns = schema.columns();
    Preconditions.checkArgument(
        flinkType.getFieldCount() == columns.size(),
        "Flink type %s has %s fields but the Iceberg schema has %s columns",
        flinkType,
        flinkType.getFieldCount(),
        columns.size());

    VectorSchemaRoot newRoot =
        VectorSchemaRoot.create(IcebergArrowSchema.convert(schema), allocator);
    try {
      if (initialRows > 0) {
        for (FieldVector vector : newRoot.getFieldVectors()) {
          vector.setInitialCapacity(initialRows);
        }
      }
      newRoot.allocateNew();
      FieldWriterFactory.Children children =
          FieldWriterFactory.Children.of(columns, flinkType, newRoot.getFieldVectors(), "");
      this.writers = children.writers;
      this.positions = children.positions;
    } catch (RuntimeException e) {
      newRoot.close();
      throw e;
    }

    this.root = newRoot;
  }

  /** Returns the vectors of the current batch; their schema is {@link IcebergArrowSchema}'s. */
  public VectorSchemaRoot root() {
    return root;
  }

  /**
   * Appends a copy of {@code row} to the current batch.
   *
   * @throws IllegalArgumentException if a required field is null or a value does not fit its
   *     Iceberg type; the current batch is then unusable
   */
  public void write(RowData row) {
    int index = rowCount;
    try {
      for (int i = 0; i < writers.length; i++) {
        writers[i].write(row, positions[i], index);
      }
    } catch (InvalidValueException e) {
      throw new IllegalArgumentException(
          String.format("%s at row %d of the current batch", e.getMessage(), index));
    }

    this.rowCount = index + 1;
  }

  /** Returns the number of rows appended since the last {@link #reset()}. */
  public int rowCount() {
    return rowCount;
  }

  /**
   * Returns an estimate of the bytes the current batch occupies in Arrow buffers.
   *
   * <p>Costs one step per vector, whatever the number of rows: it is meant to be polled after every
   * row to decide when to cut a batch. It counts data, not allocated capacity, which stays high
   * after {@link #reset()}.
   */
  public long bufferedBytes() {
    long bytes = 0;
    for (FieldWriter writer : writers) {
      bytes += writer.bufferedBytes(rowCount);
    }

    return bytes;
  }

  /** Seals the current batch: sets every vector's value count and the root's row count. */
  public void finishBatch() {
    root.setRowCount(rowCount);
  }

  /** Empties the vectors for the next batch, keeping their buffers allocated. */
  public void reset() {
    for (FieldVector vector : root.getFieldVectors()) {
      vector.reset();
    }

    root.setRowCount(0);
    this.rowCount = 0;
  }

  /** Bytes of Arrow memory this batch's vectors hold (their buffers' capacity, not their data). */
  public long allocatedBytes() {
    return allocatedBytes(root.getFieldVectors());
  }

  // Not getBuffers(): it returns nothing for a vector whose value count is 0.
  private static long allocatedBytes(List<FieldVector> vectors) {
    long bytes = 0;
    for (FieldVector vector : vectors) {
      for (ArrowBuf buffer : vector.getFieldBuffers()) {
        bytes += buffer.capacity();
      }
      bytes += allocatedBytes(vector.getChildrenFromFields());
    }
    return bytes;
  }

  /** Frees all Arrow buffers. */
  @Override
  public void close() {
    root.close();
  }
}

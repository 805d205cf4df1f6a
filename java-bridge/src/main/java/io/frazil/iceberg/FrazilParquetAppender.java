package io.frazil.iceberg;

import io.frazil.arrow.RowDataArrowWriter;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.OutputFile;

/**
 * A {@link FileAppender} of Flink {@link RowData} that writes an Iceberg Parquet data file through
 * the native encoder, with the semantics Iceberg's task writers rely on:
 *
 * <ul>
 *   <li>rows land in the file in {@code add()} order, and each value is copied during {@code add()}
 *       (Flink reuses row objects);
 *   <li>construction is cheap: nothing is allocated or opened before the first row, so fan-out
 *       writers can create one appender per partition up front, and a file that never gets a row is
 *       never created;
 *   <li>{@link #length()} is cheap, counts buffered rows, and is exact after close;
 *   <li>{@link #close()} is synchronous and idempotent; {@link #metrics()} and {@link
 *       #splitOffsets()} are valid after it.
 * </ul>
 */
public final class FrazilParquetAppender extends NativeFileAppender<RowData> {
  private final RowType flinkType;
  private final int batchRows;

  /**
   * Batches native code may still be encoding while rows are copied into the next one: the slowest
   * column may lag the others by a batch (see native/src/encoder.rs), so the appender owns one more
   * batch than that.
   */
  static final int BATCHES_IN_FLIGHT = 2;

  /**
   * Room a new batch starts with; it grows as rows arrive, up to {@code batchRows}. A file that
   * gets few rows (one of many open partitions) then holds little.
   */
  static final int INITIAL_BATCH_ROWS = 256;

  private BufferAllocator allocator;

  /** This file's Arrow bytes when the budget was last checked: growth triggers the next check. */
  private long arrowChecked = 0L;

  // A ring of BATCHES_IN_FLIGHT + 1 batches, created as first needed (again after the budget
  // shed them); `batch` is being filled, null when no batch exists.
  private RowDataArrowWriter[] batches;
  private int current = 0;
  private RowDataArrowWriter batch;

  FrazilParquetAppender(
      OutputFile file,
      Schema schema,
      RowType flinkType,
      Map<String, String> properties,
      MetricsConfig metricsConfig,
      boolean overwrite,
      int batchRows,
      MemoryBudget budget) {
    super(file, schema, properties, metricsConfig, overwrite, budget);
    this.flinkType = flinkType;
    this.batchRows = batchRows;
  }

  @Override
  public void add(RowData row) {
    checkUsable("add a row");
    try {
      if (fileWriter == null) {
        open();
      } else if (batch == null) {
        newRing();
      }
      batch.write(row);
      rowCount += 1;
      if (batch.rowCount() >= batchRows) {
        flushBatch();
        checkArrowBudget();
      } else if (budgeted()
          && (allocator.getAllocatedMemory() != arrowChecked || shedRequested())) {
        checkArrowBudget();
      }
    } catch (Throwable t) {
      // The batch may hold part of this row: the file can no longer be finished correctly. Errors
      // count too (an OutOfMemoryError halfway through a row leaves the same torn batch).
      throw failed(t, "adding a row to");
    }
  }

  private void checkArrowBudget() {
    checkBudget();
    this.arrowChecked = allocator == null ? 0L : allocator.getAllocatedMemory();
  }

  private void open() {
    ArrowMemory.checkAccess();
    this.allocator = ArrowMemory.newWriterAllocator("frazil:" + file.location());
    try {
      newRing();
      openFile(allocator);
    } catch (Throwable t) {
      // What failed is what the caller must see; a leak found while releasing is attached to it.
      Failures.cleanUpAfter(t, this::release);
      throw t;
    }
  }

  private void newRing() {
    this.batches = new RowDataArrowWriter[BATCHES_IN_FLIGHT + 1];
    this.current = 0;
    this.batch = batches[0] = newBatch();
  }

  private RowDataArrowWriter newBatch() {
    return new RowDataArrowWriter(
        schema, flinkType, allocator, Math.min(INITIAL_BATCH_ROWS, batchRows));
  }

  private void flushBatch() {
    batch.finishBatch();
    fileWriter.write(batch.root(), allocator, BATCHES_IN_FLIGHT, batch.bufferedBytes());
    // Native code has released every batch but the last BATCHES_IN_FLIGHT: refill the oldest.
    this.current = (current + 1) % batches.length;
    if (batches[current] == null) {
      batches[current] = newBatch();
    }
    this.batch = batches[current];
    batch.reset();
  }

  @Override
  void flushBuffered() {
    if (batch != null && batch.rowCount() > 0) {
      flushBatch();
    }
  }

  @Override
  long bufferedMemory() {
    return allocator == null ? 0L : allocator.getAllocatedMemory();
  }

  @Override
  long bufferedLength() {
    return batch == null ? 0L : batch.bufferedBytes();
  }

  @Override
  void dropBuffers() {
    closeRing();
  }

  @Override
  void releaseBuffers() {
    try {
      closeRing();
    } finally {
      if (allocator != null) {
        allocator.close();
      }
    }
  }

  private void closeRing() {
    RowDataArrowWriter[] ring = batches;
    this.batches = null;
    this.batch = null;
    this.current = 0;
    if (ring != null) {
      for (RowDataArrowWriter writer : ring) {
        if (writer != null) {
          writer.close();
        }
      }
    }
  }
}

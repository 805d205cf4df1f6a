package io.frazil.iceberg;

import io.frazil.arrow.RowDataArrowWriter;
import io.frazil.jni.NativeFileSummary;
import io.frazil.metrics.NativeMetrics;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.relocated.com.google.common.base.Preconditions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
public final class FrazilParquetAppender implements FileAppender<RowData> {
  private static final Logger LOG = LoggerFactory.getLogger(FrazilParquetAppender.class);
  private static final Metrics EMPTY_METRICS = new Metrics(0L, null, null, null, null);

  private final OutputFile file;
  private final Schema schema;
  private final RowType flinkType;
  private final Map<String, String> properties;
  private final MetricsConfig metricsConfig;
  private final boolean overwrite;
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

  /** Null when the table or the process keeps this file out of the memory budget. */
  private final MemoryBudget budget;

  private BufferAllocator allocator;
  private MemoryBudget.Member member;

  /** This file's Arrow bytes when the budget was last checked: growth triggers the next check. */
  private long arrowChecked = 0L;

  // A ring of BATCHES_IN_FLIGHT + 1 batches, created as first needed (again after the budget
  // shed them); `batch` is being filled, null when no batch exists.
  private RowDataArrowWriter[] batches;
  private int current = 0;
  private RowDataArrowWriter batch;
  private NativeFileWriter fileWriter;
  private long rowCount = 0L;
  private boolean closed = false;
  private Throwable failure = null;
  private Metrics metrics;
  private List<Long> splitOffsets;
  private long length = 0L;
  private long encodeNanos = 0L;

  FrazilParquetAppender(
      OutputFile file,
      Schema schema,
      RowType flinkType,
      Map<String, String> properties,
      MetricsConfig metricsConfig,
      boolean overwrite,
      int batchRows,
      MemoryBudget budget) {
    this.file = file;
    this.schema = schema;
    this.flinkType = flinkType;
    this.properties = properties;
    this.metricsConfig = metricsConfig;
    this.overwrite = overwrite;
    this.batchRows = batchRows;
    this.budget = budget;
  }

  @Override
  public void add(RowData row) {
    Preconditions.checkState(!closed, "Cannot add a row: the appender for %s is closed", file);
    if (failure != null) {
      throw Failures.refused("add a row", file.location(), failure);
    }
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
        checkBudget();
      } else if (member != null
          && (allocator.getAllocatedMemory() != arrowChecked || member.shedRequested())) {
        checkBudget();
      }
    } catch (Throwable t) {
      // The batch may hold part of this row: the file can no longer be finished correctly. Errors
      // count too (an OutOfMemoryError halfway through a row leaves the same torn batch).
      Throwable thrown = Failures.ordinary(t, "adding a row to " + file.location());
      this.failure = thrown;
      throw Failures.rethrow(thrown);
    }
  }

  @Override
  public Metrics metrics() {
    Preconditions.checkState(closed, "Cannot return metrics for an unclosed appender");
    return metrics;
  }

  @Override
  public long length() {
    if (closed) {
      return length;
    }
    if (fileWriter == null) {
      return 0L;
    }
    return fileWriter.estimatedLength() + (batch == null ? 0L : batch.bufferedBytes());
  }

  @Override
  public List<Long> splitOffsets() {
    return splitOffsets;
  }

  /** Nanoseconds native encoder threads spent on this file (valid after close). */
  public long encodeNanos() {
    return encodeNanos;
  }

  /** Rows added so far. */
  public long rowCount() {
    return rowCount;
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    this.closed = true;
    if (failure != null) {
      // A fresh exception that names the failure: the caller already holds the original and may
      // attach this one to it as suppressed (see Failures).
      IOException refused = Failures.cannotFinish(file.location(), failure);
      Failures.cleanUpAfter(refused, this::release);
      throw refused;
    }
    if (fileWriter == null) {
      this.metrics = EMPTY_METRICS;
      return;
    }
    try {
      if (batch != null && batch.rowCount() > 0) {
        flushBatch();
      }
      NativeFileSummary summary = fileWriter.finish();
      this.length = summary.fileSize();
      this.splitOffsets = summary.splitOffsets();
      this.encodeNanos = summary.encodeNanos();
      this.metrics = NativeMetrics.build(summary, schema, metricsConfig);
      LOG.info(
          "Frazil wrote {} ({} rows, {} bytes)", file.location(), rowCount, summary.fileSize());
    } catch (Throwable t) {
      throw Failures.closeFailed(t, file.location(), this::release);
    }
    release();
  }

  private void open() {
    ArrowMemory.checkAccess();
    this.allocator = ArrowMemory.newWriterAllocator("frazil:" + file.location());
    try {
      newRing();
      this.fileWriter = new NativeFileWriter(file, schema, properties, overwrite, allocator);
      if (budget != null) {
        this.member = budget.join(new BudgetedFile());
      }
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

  /** After this file's memory grew: lets the budget shed files (maybe this one) if needed. */
  private void checkBudget() {
    if (member == null) {
      return;
    }
    budget.check(member);
    this.arrowChecked = allocator == null ? 0L : allocator.getAllocatedMemory();
    if (failure != null) {
      // Shedding this file failed (the failure was recorded by the budget's call).
      throw Failures.rethrow(failure);
    }
  }

  /** This file's place in the memory budget; the budget calls it on this file's thread only. */
  private final class BudgetedFile implements MemoryBudget.Sheddable {
    @Override
    public long heldBytes() {
      if (closed || failure != null || fileWriter == null) {
        return 0L;
      }
      return allocator.getAllocatedMemory() + fileWriter.heldBytes();
    }

    @Override
    public void shed() {
      if (closed || failure != null || fileWriter == null) {
        return;
      }
      try {
        if (batch != null && batch.rowCount() > 0) {
          batch.finishBatch();
          fileWriter.write(batch.root(), allocator, BATCHES_IN_FLIGHT, batch.bufferedBytes());
        }
        // Waits for and releases every batch in flight: the whole ring is free afterwards.
        fileWriter.flushRowGroup();
        closeRing();
      } catch (Throwable t) {
        failure = Failures.ordinary(t, "closing a row group of " + file.location() + " early");
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
      try {
        closeRing();
      } finally {
        if (allocator != null) {
          allocator.close();
        }
      }
    }
  }
}

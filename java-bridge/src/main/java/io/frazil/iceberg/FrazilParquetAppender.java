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

  private BufferAllocator allocator;
  // A ring of BATCHES_IN_FLIGHT + 1 batches, created as first needed; `batch` is being filled.
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
      int batchRows) {
    this.file = file;
    this.schema = schema;
    this.flinkType = flinkType;
    this.properties = properties;
    this.metricsConfig = metricsConfig;
    this.overwrite = overwrite;
    this.batchRows = batchRows;
  }

  @Override
  public void add(RowData row) {
    Preconditions.checkState(!closed, "Cannot add a row: the appender for %s is closed", file);
    if (failure != null) {
      throw Failures.refused("add a row", file.location(), failure);
    }
    try {
      if (batch == null) {
        open();
      }
      batch.write(row);
      rowCount += 1;
      if (batch.rowCount() >= batchRows) {
        flushBatch();
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
    return fileWriter.estimatedLength() + batch.bufferedBytes();
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
      if (batch.rowCount() > 0) {
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
      this.batches = new RowDataArrowWriter[BATCHES_IN_FLIGHT + 1];
      this.batch = batches[0] = new RowDataArrowWriter(schema, flinkType, allocator);
      this.fileWriter = new NativeFileWriter(file, schema, properties, overwrite, allocator);
    } catch (Throwable t) {
      // What failed is what the caller must see; a leak found while releasing is attached to it.
      Failures.cleanUpAfter(t, this::release);
      throw t;
    }
  }

  private void flushBatch() {
    batch.finishBatch();
    fileWriter.write(batch.root(), allocator, BATCHES_IN_FLIGHT, batch.bufferedBytes());
    // Native code has released every batch but the last BATCHES_IN_FLIGHT: refill the oldest.
    this.current = (current + 1) % batches.length;
    if (batches[current] == null) {
      batches[current] = new RowDataArrowWriter(schema, flinkType, allocator);
    }
    this.batch = batches[current];
    batch.reset();
  }

  private void release() {
    try {
      if (fileWriter != null) {
        fileWriter.close();
      }
    } finally {
      try {
        if (batches != null) {
          for (RowDataArrowWriter ring : batches) {
            if (ring != null) {
              ring.close();
            }
          }
        }
      } finally {
        if (allocator != null) {
          allocator.close();
        }
      }
    }
  }
}

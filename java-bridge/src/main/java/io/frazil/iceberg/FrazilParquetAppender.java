package io.frazil.iceberg;

import io.frazil.arrow.RowDataArrowWriter;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
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
 *
 * <p>Rows that are rows of an Arrow batch in the file's layout ({@link ArrowRowOrigin}: the Arrow
 * sink's rows, given straight to this appender) are not copied: each run of consecutive rows of one
 * batch is handed to native code as a slice of that batch, once the run ends (another batch, a gap,
 * another kind of row, the batch's release, or close). Rows of both kinds keep their order.
 */
public final class FrazilParquetAppender extends NativeFileAppender<RowData> {
  private final RowType flinkType;
  private final int batchRows;

  /**
   * Room a new batch starts with; it grows as rows arrive, up to {@code batchRows}. A file that
   * gets few rows (one of many open partitions) then holds little.
   */
  static final int INITIAL_BATCH_ROWS = 256;

  /**
   * Data a batch may hold before it is cut, whatever its row count: wide rows (long strings) would
   * otherwise make each of a file's batches several megabytes, held by every open file. Half a
   * megabyte still amortises the per-batch cost (one export and one JNI call).
   */
  static final long BATCH_BYTES = 512L << 10;

  /**
   * Data a batch may hold while memory is short ({@link MemoryBudget#underPressure()}). Native code
   * holds a file's rows more compactly than Arrow does (a file's first page as distinct values and
   * 16-bit keys), so under pressure rows move there sooner, and a batch that grew larger before is
   * dropped once native code is done with it: the next one starts small. With 1,024 open files a
   * file rarely fills half a megabyte before it closes, so all its rows sat in Arrow.
   */
  static final long PRESSURE_BATCH_BYTES = 64L << 10;

  /** Rows between two looks at a batch's size (a look costs one step per column). */
  private static final int BATCH_BYTES_CHECK_ROWS = 64;

  private BufferAllocator allocator;

  /** This file's Arrow bytes when the budget was last checked: growth triggers the next check. */
  private long arrowChecked = 0L;

  // This file's batches: `batch` is being filled (null until the next row needs one), `inFlight`
  // were handed to native code (oldest first), `spare` are free to refill. Created as first
  // needed, again after the budget shed them. Up to BATCHES_IN_FLIGHT may be encoding while rows
  // are copied into the next, so the file may own one more than that; it allocates another only
  // when native code still uses all it has (with many open files, a file's previous batch is
  // usually encoded by the time it fills the next, and the file then owns two).
  private final ArrayDeque<RowDataArrowWriter> inFlight = new ArrayDeque<>(BATCHES_IN_FLIGHT + 1);
  private final ArrayDeque<RowDataArrowWriter> spare = new ArrayDeque<>(BATCHES_IN_FLIGHT + 1);
  private RowDataArrowWriter batch;

  /** Rows handed to native code as slices of their Arrow batch, in this process (tests, bench). */
  private static final AtomicLong SLICED_ROWS = new AtomicLong();

  /** This thread's record of which Arrow batch row a row is; looked up at the first row. */
  private ArrowRowOrigin origin;

  /** The run: rows {@code [runFrom, runTo)} of {@code runBatch}, added and not yet written. */
  private ArrowRows runBatch;

  private int runFrom;
  private int runTo;
  private long runBytesPerRow;

  /** The last batch whose release hook this file registered: one hook per batch. */
  private ArrowRows hooked;

  /** The last batch whose layout and allocator were checked, and whether it can be sliced. */
  private ArrowRows checked;

  private boolean checkedSliceable;

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

  /** Rows handed to native code as slices of their Arrow batch so far, in this process. */
  public static long slicedRows() {
    return SLICED_ROWS.get();
  }

  @Override
  public void add(RowData row) {
    checkUsable("add a row");
    try {
      if (addAsSlice(row)) {
        rowCount += 1;
        return;
      }
      if (runBatch != null) {
        writeRun();
      }
      if (fileWriter == null) {
        open();
      } else if (batch == null) {
        this.batch = nextBatch();
      }
      batch.write(row);
      rowCount += 1;
      int rows = batch.rowCount();
      if (rows >= batchRows
          || (rows % BATCH_BYTES_CHECK_ROWS == 0 && batch.bufferedBytes() >= batchBytesLimit())) {
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

  /**
   * Takes {@code row} into the run when it is a row of an Arrow batch this file can slice; false
   * when it must be copied like any row.
   */
  private boolean addAsSlice(RowData row) {
    if (origin == null) {
      this.origin = ArrowRowOrigin.current();
    }
    ArrowRows from = origin.batchOf(row);
    if (from == null) {
      return false;
    }
    int index = origin.index();
    if (from == runBatch && index == runTo) {
      runTo += 1;
      return true;
    }
    if (fileWriter == null) {
      open();
    }
    if (!sliceable(from)) {
      return false;
    }
    if (runBatch != null) {
      writeRun();
    }
    if (batch != null && batch.rowCount() > 0) {
      flushBatch(); // the rows copied before the run go first
    }
    if (hooked != from) {
      from.beforeRelease(this::writeRunBeforeRelease);
      this.hooked = from;
    }
    this.runBatch = from;
    this.runFrom = index;
    this.runTo = index + 1;
    this.runBytesPerRow = from.bytesPerRow();
    return true;
  }

  /** The batch's table columns are this file's Arrow layout, in buffers Arrow can move here. */
  private boolean sliceable(ArrowRows from) {
    if (from != checked) {
      this.checked = from;
      this.checkedSliceable =
          from.bufferRoot() == allocator.getRoot()
              && from.schema().equals(fileWriter.arrowSchema());
    }
    return checkedSliceable;
  }

  /** Hands the run to native code as one slice of its batch (the slice shares its buffers). */
  private void writeRun() {
    ArrowRows from = runBatch;
    int rows = runTo - runFrom;
    this.runBatch = null;
    VectorSchemaRoot slice = from.slice(runFrom, runTo, allocator);
    try {
      long bytes = 0L;
      for (FieldVector vector : slice.getFieldVectors()) {
        bytes += vector.getBufferSize();
      }
      // The export holds the slice's buffers until native code lets go of them.
      fileWriter.write(slice, allocator, BATCHES_IN_FLIGHT, bytes);
    } finally {
      slice.close();
    }
    SLICED_ROWS.addAndGet(rows);
    checkArrowBudget();
  }

  /** The run's batch is about to be freed: write the run while its buffers are valid. */
  private void writeRunBeforeRelease() {
    this.hooked = null;
    this.checked = null;
    if (runBatch == null) {
      return;
    }
    if (failure != null) {
      this.runBatch = null; // the file is lost already; its rows need not be written
      return;
    }
    try {
      writeRun();
    } catch (Throwable t) {
      throw failed(t, "writing the rows of an Arrow batch to");
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
      this.batch = newBatch();
      openFile(allocator);
    } catch (Throwable t) {
      // What failed is what the caller must see; a leak found while releasing is attached to it.
      Failures.cleanUpAfter(t, this::release);
      throw t;
    }
  }

  /** A free batch to fill: a spare, one native code has finished with, or a new one. */
  private RowDataArrowWriter nextBatch() {
    if (spare.isEmpty() && !inFlight.isEmpty()) {
      releaseUpTo(fileWriter.releaseEncoded());
    }
    dropLargeSparesUnderPressure();
    if (spare.isEmpty()) {
      return newBatch();
    }
    RowDataArrowWriter next = spare.pollFirst();
    next.reset();
    return next;
  }

  /** What this file's batch may hold before it is cut: less while memory is short. */
  private long batchBytesLimit() {
    return budgeted() && MemoryBudget.underPressure() ? PRESSURE_BATCH_BYTES : BATCH_BYTES;
  }

  /** While memory is short, a spare whose buffers grew past the pressure limit is closed. */
  private void dropLargeSparesUnderPressure() {
    long limit = batchBytesLimit();
    if (limit < BATCH_BYTES) {
      spare.removeIf(
          grown -> {
            if (grown.allocatedBytes() <= 2 * limit) {
              return false;
            }
            grown.close();
            return true;
          });
    }
  }

  /** Moves the oldest batches in flight to the spares until {@code stillInUse} remain. */
  private void releaseUpTo(int stillInUse) {
    while (inFlight.size() > stillInUse) {
      spare.addLast(inFlight.pollFirst());
    }
  }

  private RowDataArrowWriter newBatch() {
    return new RowDataArrowWriter(
        schema, flinkType, allocator, Math.min(INITIAL_BATCH_ROWS, batchRows));
  }

  private void flushBatch() {
    batch.finishBatch();
    RowDataArrowWriter written = batch;
    this.batch = null;
    inFlight.addLast(written);
    fileWriter.write(written.root(), allocator, BATCHES_IN_FLIGHT, written.bufferedBytes());
    // Native code has released every batch but the last BATCHES_IN_FLIGHT, and usually more: a
    // file that fills batches slowly (one of many open partitions) finds the older ones encoded.
    // One spare is all the next batch needs; more would sit in every open file until it closes.
    releaseUpTo(fileWriter.releaseEncoded());
    while (spare.size() > 1) {
      spare.pollLast().close();
    }
    dropLargeSparesUnderPressure();
  }

  @Override
  void flushBuffered() {
    if (runBatch != null) {
      writeRun();
    }
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
    long run = runBatch == null ? 0L : (runTo - runFrom) * runBytesPerRow;
    return run + (batch == null ? 0L : batch.bufferedBytes());
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

  /** Closes every batch; called once native code holds none of them (flushed, closed, failed). */
  private void closeRing() {
    this.runBatch = null;
    RowDataArrowWriter filling = batch;
    this.batch = null;
    if (filling != null) {
      filling.close();
    }
    for (ArrayDeque<RowDataArrowWriter> batches : List.of(inFlight, spare)) {
      while (!batches.isEmpty()) {
        batches.pollFirst().close();
      }
    }
  }
}

package io.frazil.flink.arrow;

import io.frazil.arrow.RowDataArrowWriter;
import io.frazil.exchange.ArrowBatch;
import io.frazil.iceberg.ArrowMemory;
import io.frazil.read.BatchAssembly;
import io.frazil.read.NativeRowReader;
import java.io.Closeable;
import java.io.IOException;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;

/**
 * The batches of one file scan task, in the layout of the source; {@link #rowsRead()} counts the
 * task's rows read so far (skipped ones included), which is the split's record offset after the
 * last batch returned.
 */
abstract class FileBatches implements Closeable {
  private long rowsRead;

  FileBatches(long rowsSkipped) {
    this.rowsRead = rowsSkipped;
  }

  /** The next batch (the caller owns it), or null at the end of the task. */
  abstract ArrowBatch next();

  final long rowsRead() {
    return rowsRead;
  }

  final void counted(int rows) {
    rowsRead += rows;
  }

  /** Batches handed over from the native reader's decoded vectors (see {@link BatchAssembly}). */
  static final class Decoded extends FileBatches {
    private final NativeRowReader reader;
    private final BatchAssembly assembly;
    private final CloseableIterable<RowData> owner;

    Decoded(NativeRowReader reader, BatchAssembly assembly, CloseableIterable<RowData> owner) {
      super(0);
      this.reader = reader;
      this.assembly = assembly;
      this.owner = owner;
    }

    @Override
    ArrowBatch next() {
      VectorSchemaRoot root = reader.nextBatch(assembly, ArrowMemory.exchangeAllocator());
      if (root == null) {
        return null;
      }
      counted(root.getRowCount());
      return ArrowBatch.of(root);
    }

    @Override
    public void close() throws IOException {
      try {
        reader.close();
      } finally {
        owner.close();
      }
    }
  }

  /** Rows of the task written into the layout's vectors ({@link RowDataArrowWriter}). */
  static final class Rows extends FileBatches {
    private final CloseableIterator<RowData> rows;
    private final Closeable owner;
    private final ArrowRowLayout layout;
    private final int batchRows;

    Rows(CloseableIterator<RowData> rows, Closeable owner, ArrowRowLayout layout, int batchRows) {
      super(0);
      this.rows = rows;
      this.owner = owner;
      this.layout = layout;
      this.batchRows = batchRows;
    }

    /** Reads and drops {@code count} rows: those emitted before a restore. */
    void skip(long count) {
      for (long i = 0; i < count; i++) {
        if (!rows.hasNext()) {
          throw new IllegalStateException(
              "Cannot restore the split position: the file has "
                  + i
                  + " rows, "
                  + count
                  + " were emitted before");
        }
        rows.next();
        counted(1);
      }
    }

    @Override
    ArrowBatch next() {
      if (!rows.hasNext()) {
        return null;
      }
      RowDataArrowWriter writer =
          new RowDataArrowWriter(
              layout.tableSchema(), layout.rowType(), ArrowMemory.exchangeAllocator(), batchRows);
      try {
        while (writer.rowCount() < batchRows && rows.hasNext()) {
          // The row may be a reused container: its values are copied into Arrow before next().
          writer.write(rows.next());
        }
        writer.finishBatch();
        counted(writer.rowCount());
        return ArrowBatch.of(writer.root());
      } catch (RuntimeException | Error e) {
        writer.close();
        throw e;
      }
    }

    @Override
    public void close() throws IOException {
      try {
        rows.close();
      } finally {
        if (owner != null) {
          owner.close();
        }
      }
    }
  }
}

package io.frazil.flink.arrow;

import io.frazil.arrow.RowDataArrowWriter;
import io.frazil.exchange.ArrowBatch;
import io.frazil.iceberg.ArrowMemory;
import java.io.IOException;
import java.util.NoSuchElementException;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.flink.source.DataIterator;
import org.apache.iceberg.flink.source.reader.RecordAndPosition;
import org.apache.iceberg.io.CloseableIterator;

/**
 * The batches of one split: rows from Iceberg's {@link DataIterator} written into Arrow vectors of
 * the layout ({@link RowDataArrowWriter}, exchange allocator), up to {@code batchRows} rows and
 * never across a file boundary, one batch per fetch.
 *
 * <p>Positions count rows, as Iceberg's own row source does: each batch carries the split position
 * after its last row (file offset, rows of that file read so far), which Iceberg's emitter stores
 * in the split once the batch is emitted. A checkpoint therefore always records a batch boundary,
 * and a restore ({@code DataIterator.seek}) skips exactly the rows already emitted: none is lost or
 * emitted twice, whatever the batch size of the restored job.
 */
final class SplitBatches
    implements CloseableIterator<RecordsWithSplitIds<RecordAndPosition<ArrowBatch>>> {
  private final String splitId;
  private final DataIterator<RowData> rows;
  private final ArrowRowLayout layout;
  private final RowType rowType;
  private final int batchRows;
  private final boolean closeEmitted;

  SplitBatches(
      String splitId,
      DataIterator<RowData> rows,
      ArrowRowLayout layout,
      int batchRows,
      boolean closeEmitted) {
    this.splitId = splitId;
    this.rows = rows;
    this.layout = layout;
    this.rowType = layout.rowType();
    this.batchRows = batchRows;
    this.closeEmitted = closeEmitted;
  }

  @Override
  public boolean hasNext() {
    return rows.hasNext();
  }

  @Override
  public RecordsWithSplitIds<RecordAndPosition<ArrowBatch>> next() {
    if (!rows.hasNext()) {
      throw new NoSuchElementException();
    }
    RowDataArrowWriter writer =
        new RowDataArrowWriter(
            layout.tableSchema(), rowType, ArrowMemory.exchangeAllocator(), batchRows);
    ArrowBatch batch;
    try {
      while (rows.hasNext()) {
        // The row may be a reused container: its values are copied into Arrow before next().
        writer.write(rows.next());
        if (writer.rowCount() >= batchRows || !rows.currentFileHasNext()) {
          break;
        }
      }
      writer.finishBatch();
      batch = ArrowBatch.of(writer.root());
    } catch (RuntimeException | Error e) {
      writer.close();
      throw e;
    }
    return new OneBatchRecords(
        splitId, batch, rows.fileOffset(), rows.recordOffset(), closeEmitted);
  }

  @Override
  public void close() throws IOException {
    rows.close();
  }
}

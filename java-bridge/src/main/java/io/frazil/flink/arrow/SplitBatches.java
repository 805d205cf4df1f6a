package io.frazil.flink.arrow;

import io.frazil.exchange.ArrowBatch;
import io.frazil.read.BatchAssembly;
import io.frazil.read.NativeRowReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.encryption.InputFilesDecryptor;
import org.apache.iceberg.flink.data.RowDataUtil;
import org.apache.iceberg.flink.source.RowDataFileScanTaskReader;
import org.apache.iceberg.flink.source.reader.RecordAndPosition;
import org.apache.iceberg.flink.source.split.IcebergSourceSplit;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.formats.ReadBuilder;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.util.PartitionUtil;

/**
 * The batches of one split, task after task, one batch per fetch.
 *
 * <p>A task with no delete files, read without the source's row filters and from its first row, is
 * opened with the Parquet read builder exactly as Iceberg's {@link RowDataFileScanTaskReader} opens
 * it (projection, partition constants, split range, residual for row-group pruning, name mapping);
 * when that is Frazil's native reader and its decoded batches map onto the layout ({@link
 * BatchAssembly}), those batches are handed over as they are: no rows, column buffers transferred.
 * Every other task — delete files, row filters, a file read by Iceberg's reader, columns the
 * assembly does not take, a restore in the middle of the file — is read as rows by Iceberg's {@link
 * RowDataFileScanTaskReader} (deletes and filters applied by Iceberg) and written into the layout.
 *
 * <p>Positions count rows, as Iceberg's own row source does ({@code DataIterator}): each batch
 * carries the split position after its last row (task index, rows of that task read so far), which
 * Iceberg's emitter stores in the split once the batch is emitted. A checkpoint therefore records a
 * batch boundary, and a restore skips exactly the rows already emitted, whatever the batch size.
 */
final class SplitBatches
    implements CloseableIterator<RecordsWithSplitIds<RecordAndPosition<ArrowBatch>>> {
  static final AtomicLong DECODED_TASKS = new AtomicLong();
  static final AtomicLong ROW_TASKS = new AtomicLong();

  private final String splitId;
  private final List<FileScanTask> tasks;
  private final InputFilesDecryptor decryptor;
  private final ArrowBatchReaderFunction settings;
  private int taskIndex;
  private long skip;
  private FileBatches current = null;
  private ArrowBatch pending = null;

  SplitBatches(IcebergSourceSplit split, ArrowBatchReaderFunction settings) {
    this.splitId = split.splitId();
    this.tasks = new ArrayList<>(split.task().files());
    this.decryptor = new InputFilesDecryptor(split.task(), settings.io(), settings.encryption());
    this.settings = settings;
    this.taskIndex = split.fileOffset();
    this.skip = split.recordOffset();
  }

  @Override
  public boolean hasNext() {
    while (pending == null) {
      if (current == null) {
        if (taskIndex >= tasks.size()) {
          return false;
        }
        current = open(tasks.get(taskIndex), skip);
        skip = 0;
      }
      pending = current.next();
      if (pending == null) {
        closeCurrent();
        taskIndex++;
      }
    }
    return true;
  }

  @Override
  public RecordsWithSplitIds<RecordAndPosition<ArrowBatch>> next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    ArrowBatch batch = pending;
    pending = null;
    return new OneBatchRecords(
        splitId, batch, taskIndex, current.rowsRead(), settings.closeEmitted());
  }

  private FileBatches open(FileScanTask task, long rowsToSkip) {
    if (task.deletes().isEmpty()
        && settings.filters().isEmpty()
        && rowsToSkip == 0
        && task.file().format() == FileFormat.PARQUET) {
      FileBatches opened = openDecoded(task);
      (opened instanceof FileBatches.Decoded ? DECODED_TASKS : ROW_TASKS).incrementAndGet();
      return opened;
    }
    ROW_TASKS.incrementAndGet();
    RowDataFileScanTaskReader reader =
        new RowDataFileScanTaskReader(
            settings.tableSchema(),
            settings.layout().tableSchema(),
            settings.nameMapping(),
            settings.caseSensitive(),
            settings.filters());
    CloseableIterator<RowData> rows = reader.open(task, decryptor);
    FileBatches.Rows batches =
        new FileBatches.Rows(rows, null, settings.layout(), settings.batchRows());
    try {
      batches.skip(rowsToSkip);
    } catch (RuntimeException | Error e) {
      closeQuietly(batches, e);
      throw e;
    }
    return batches;
  }

  /** The task read natively as decoded batches, or else this very reading of it as rows. */
  private FileBatches openDecoded(FileScanTask task) {
    ReadBuilder<RowData, RowType> builder =
        FormatModelRegistry.readBuilder(
            task.file().format(), RowData.class, decryptor.getInputFile(task));
    if (settings.nameMapping() != null) {
      builder.withNameMapping(NameMappingParser.fromJson(settings.nameMapping()));
    }
    CloseableIterable<RowData> iterable =
        builder
            .project(settings.layout().tableSchema())
            .idToConstant(PartitionUtil.constantsMap(task, RowDataUtil::convertConstant))
            .split(task.start(), task.length())
            .caseSensitive(settings.caseSensitive())
            .filter(task.residual())
            .reuseContainers()
            .build();
    try {
      CloseableIterator<RowData> rows = iterable.iterator();
      if (rows instanceof NativeRowReader) {
        NativeRowReader reader = (NativeRowReader) rows;
        BatchAssembly assembly = reader.batchAssembly(settings.layout().arrowSchema());
        if (assembly != null) {
          return new FileBatches.Decoded(reader, assembly, iterable);
        }
      }
      // Not native or not assembled: this very reading, as rows (no deletes, no filters here).
      return new FileBatches.Rows(rows, iterable, settings.layout(), settings.batchRows());
    } catch (RuntimeException | Error e) {
      closeQuietly(iterable, e);
      throw e;
    }
  }

  private void closeCurrent() {
    FileBatches closing = current;
    current = null;
    try {
      closing.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void closeQuietly(java.io.Closeable closeable, Throwable failure) {
    try {
      closeable.close();
    } catch (IOException | RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  @Override
  public void close() throws IOException {
    try {
      if (pending != null) {
        pending.close();
        pending = null;
      }
    } finally {
      if (current != null) {
        FileBatches closing = current;
        current = null;
        closing.close();
      }
    }
  }
}

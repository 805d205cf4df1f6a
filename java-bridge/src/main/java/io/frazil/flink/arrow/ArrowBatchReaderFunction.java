package io.frazil.flink.arrow;

import io.frazil.exchange.ArrowBatch;
import java.util.List;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.iceberg.Schema;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.flink.source.DataIterator;
import org.apache.iceberg.flink.source.RowDataFileScanTaskReader;
import org.apache.iceberg.flink.source.reader.ReaderFunction;
import org.apache.iceberg.flink.source.reader.RecordAndPosition;
import org.apache.iceberg.flink.source.split.IcebergSourceSplit;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.FileIO;

/**
 * Iceberg's FLIP-27 {@code IcebergSource} reader function for {@link ArrowBatch}es of an {@link
 * ArrowRowLayout} (append-only: the table's projected columns).
 *
 * <p>Where the rows come from: each file scan task is opened by Iceberg's own {@link
 * RowDataFileScanTaskReader}, exactly as {@code RowDataReaderFunction} opens it, so the Parquet
 * files are decoded by the installed Frazil read hook ({@code FrazilReadBuilder}: natively, or by
 * Iceberg's reader for the files its rules send there) and Iceberg applies what the file reader
 * does not: position, equality and deletion-vector deletes ({@code DeleteFilter}), the source's row
 * filters ({@code FlinkSourceFilter}), identity-partition and metadata constants, the projection of
 * the columns deletes needed. Every task, with or without deletes or filters, is therefore read
 * exactly as Iceberg's RowData source reads it; the rows (reused views over the native reader's
 * heap vectors) are then written into the layout's Arrow vectors ({@link SplitBatches}). The native
 * reader's decoded Arrow batches are not handed over as they are: their layout is the file's
 * (arrow-rs types, file field order, no constants, no deletes applied), not the table's.
 *
 * <p>Split positions count rows ({@link SplitBatches}); a source built with this function ignores
 * the builder's {@code limit}.
 */
public final class ArrowBatchReaderFunction implements ReaderFunction<ArrowBatch> {
  private static final long serialVersionUID = 1L;

  private final Schema tableSchema;
  private final ArrowRowLayout layout;
  private final String nameMapping;
  private final boolean caseSensitive;
  private final FileIO io;
  private final EncryptionManager encryption;
  private final List<Expression> filters;
  private final int batchRows;
  private final boolean closeEmitted;

  /**
   * @param layout the batches' layout; its table schema is the projection read
   * @param closeEmitted close each batch once the source emitted it: only when object reuse is off
   *     (see {@link OneBatchRecords})
   */
  @SuppressWarnings("checkstyle:ParameterNumber")
  public ArrowBatchReaderFunction(
      Schema tableSchema,
      ArrowRowLayout layout,
      String nameMapping,
      boolean caseSensitive,
      FileIO io,
      EncryptionManager encryption,
      List<Expression> filters,
      int batchRows,
      boolean closeEmitted) {
    if (layout.hasRowKind()) {
      throw new IllegalArgumentException(
          "An Iceberg source emits inserts only: use ArrowRowLayout.appendOnly");
    }
    if (batchRows < 1) {
      throw new IllegalArgumentException("Invalid batch size: " + batchRows + " rows");
    }
    this.tableSchema = tableSchema;
    this.layout = layout;
    this.nameMapping = nameMapping;
    this.caseSensitive = caseSensitive;
    this.io = io;
    this.encryption = encryption;
    this.filters = filters;
    this.batchRows = batchRows;
    this.closeEmitted = closeEmitted;
  }

  public ArrowRowLayout layout() {
    return layout;
  }

  @Override
  public CloseableIterator<RecordsWithSplitIds<RecordAndPosition<ArrowBatch>>> apply(
      IcebergSourceSplit split) {
    RowDataFileScanTaskReader tasks =
        new RowDataFileScanTaskReader(
            tableSchema, layout.tableSchema(), nameMapping, caseSensitive, filters);
    DataIterator<org.apache.flink.table.data.RowData> rows =
        new DataIterator<>(tasks, split.task(), io, encryption);
    try {
      rows.seek(split.fileOffset(), split.recordOffset());
    } catch (RuntimeException | Error e) {
      try {
        rows.close();
      } catch (java.io.IOException | RuntimeException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
    return new SplitBatches(split.splitId(), rows, layout, batchRows, closeEmitted);
  }
}

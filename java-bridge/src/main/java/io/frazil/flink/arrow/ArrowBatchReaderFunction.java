package io.frazil.flink.arrow;

import io.frazil.exchange.ArrowBatch;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.iceberg.Schema;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.flink.source.reader.ReaderFunction;
import org.apache.iceberg.flink.source.reader.RecordAndPosition;
import org.apache.iceberg.flink.source.split.IcebergSourceSplit;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.FileIO;

/**
 * Iceberg's FLIP-27 {@code IcebergSource} reader function for {@link ArrowBatch}es of an {@link
 * ArrowRowLayout} (append-only: the table's projected columns), one batch per fetch.
 *
 * <p>Where the batches come from ({@link SplitBatches}): a task without delete files, read without
 * row filters, whose Parquet file the installed Frazil read hook decodes natively and whose columns
 * are plain file columns of the layout's Arrow types or partition constants, gets the native
 * reader's decoded batches themselves (buffers transferred into the exchange allocator, no rows).
 * Every other task is read exactly as Iceberg's RowData source reads it ({@code
 * RowDataFileScanTaskReader}: deletes, row filters, constants and metadata columns applied by
 * Iceberg, the file still decoded natively where the read hook can) and its rows are written into
 * the layout's vectors. Split positions count rows, at batch boundaries.
 *
 * <p>A source built with this function ignores the builder's {@code limit}.
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
    this.filters = filters == null ? Collections.emptyList() : new ArrayList<>(filters);
    this.batchRows = batchRows;
    this.closeEmitted = closeEmitted;
  }

  public ArrowRowLayout layout() {
    return layout;
  }

  @Override
  public CloseableIterator<RecordsWithSplitIds<RecordAndPosition<ArrowBatch>>> apply(
      IcebergSourceSplit split) {
    return new SplitBatches(split, this);
  }

  Schema tableSchema() {
    return tableSchema;
  }

  String nameMapping() {
    return nameMapping;
  }

  boolean caseSensitive() {
    return caseSensitive;
  }

  FileIO io() {
    return io;
  }

  EncryptionManager encryption() {
    return encryption;
  }

  List<Expression> filters() {
    return filters;
  }

  int batchRows() {
    return batchRows;
  }

  boolean closeEmitted() {
    return closeEmitted;
  }
}

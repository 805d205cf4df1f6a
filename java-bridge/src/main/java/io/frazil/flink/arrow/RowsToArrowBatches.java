package io.frazil.flink.arrow;

import io.frazil.arrow.RowDataArrowWriter;
import io.frazil.exchange.ArrowBatch;
import io.frazil.iceberg.ArrowMemory;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

/**
 * Gathers {@link RowData} into {@link ArrowBatch}es of up to {@code batchRows} rows, laid out by an
 * {@link ArrowRowLayout}, with the writer's own RowData→Arrow code ({@link RowDataArrowWriter}).
 *
 * <p>No row stays only in this operator's memory across a checkpoint: the open batch is emitted
 * before every checkpoint or savepoint barrier ({@link #prepareSnapshotPreBarrier}), before every
 * watermark (so rows never fall behind a watermark they preceded) and at end of input. The operator
 * therefore has no state. A batch is also emitted when full; rows' timestamps are not kept.
 *
 * <p>Ownership: each batch is built in the exchange allocator ({@code
 * ArrowMemory.exchangeAllocator()}). After {@code collect} returns, this operator closes the batch
 * when nothing downstream can still hold that instance: object reuse is off (a chained successor
 * got a copy, a network edge serialized it inside {@code collect}) or every output is a network
 * edge. Otherwise (object reuse on and a chained successor) the successor owns it and must close
 * it. Rows of an open batch that a failure interrupts are freed in {@link #close()}; they are
 * replayed from the last checkpoint, as all rows after it are.
 */
public final class RowsToArrowBatches extends AbstractStreamOperator<ArrowBatch>
    implements OneInputStreamOperator<RowData, ArrowBatch>, BoundedOneInput {
  private static final long serialVersionUID = 1L;

  private final ArrowRowLayout layout;
  private final RowType rowType;
  private final int batchRows;

  private transient RowDataArrowWriter writer;
  private transient TinyIntVector kinds;
  private transient boolean closeAfterCollect;
  private transient StreamRecord<ArrowBatch> record;

  /**
   * @param rowType the Flink type of the incoming rows (as many fields as the table has columns)
   * @param batchRows the most rows in one batch
   */
  public RowsToArrowBatches(ArrowRowLayout layout, RowType rowType, int batchRows) {
    if (batchRows < 1) {
      throw new IllegalArgumentException("Invalid batch size: " + batchRows + " rows");
    }
    this.layout = layout;
    this.rowType = rowType;
    this.batchRows = batchRows;
  }

  @Override
  public void open() throws Exception {
    super.open();
    this.closeAfterCollect =
        !getExecutionConfig().isObjectReuseEnabled()
            || getOperatorConfig().getChainedOutputs(getUserCodeClassloader()).isEmpty();
    this.record = new StreamRecord<>(null);
  }

  @Override
  public void processElement(StreamRecord<RowData> element) {
    RowData row = element.getValue();
    if (writer == null) {
      startBatch();
    }
    int index = writer.rowCount();
    RowKind kind = row.getRowKind();
    if (kinds != null) {
      kinds.setSafe(index, kind.toByteValue());
    } else if (kind != RowKind.INSERT) {
      throw new IllegalArgumentException(
          "Cannot put a "
              + kind.shortString()
              + " row into append-only Arrow batches: build the layout with"
              + " ArrowRowLayout.withRowKind to carry row kinds (row "
              + index
              + " of the open batch)");
    }
    writer.write(row);
    if (writer.rowCount() >= batchRows) {
      emitBatch();
    }
  }

  @Override
  public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
    super.prepareSnapshotPreBarrier(checkpointId);
    emitBatch();
  }

  @Override
  public void processWatermark(Watermark mark) throws Exception {
    emitBatch();
    super.processWatermark(mark);
  }

  @Override
  public void endInput() {
    emitBatch();
  }

  @Override
  public void close() throws Exception {
    try {
      discardBatch();
    } finally {
      super.close();
    }
  }

  private void startBatch() {
    BufferAllocator allocator = ArrowMemory.exchangeAllocator();
    writer = new RowDataArrowWriter(layout.tableSchema(), rowType, allocator, batchRows);
    if (layout.hasRowKind()) {
      kinds = new TinyIntVector(ArrowRowLayout.rowKindField(), allocator);
      kinds.allocateNew(batchRows);
    }
  }

  /** Hands the open batch (if it has rows) downstream; the next row starts a new one. */
  private void emitBatch() {
    if (writer == null || writer.rowCount() == 0) {
      return;
    }
    int rows = writer.rowCount();
    writer.finishBatch();
    VectorSchemaRoot root = writer.root();
    if (kinds != null) {
      kinds.setValueCount(rows);
      List<FieldVector> vectors = new ArrayList<>(root.getFieldVectors());
      vectors.add(kinds);
      // The layout's schema, not the vectors' fields: arrow-java renames list and map children.
      root = new VectorSchemaRoot(layout.arrowSchema(), vectors, rows);
    }
    writer = null;
    kinds = null;
    ArrowBatch batch = ArrowBatch.of(root);
    try {
      output.collect(record.replace(batch));
    } finally {
      if (closeAfterCollect) {
        batch.close();
      }
    }
  }

  private void discardBatch() {
    try {
      if (writer != null) {
        writer.close();
      }
    } finally {
      if (kinds != null) {
        kinds.close();
      }
      writer = null;
      kinds = null;
    }
  }
}

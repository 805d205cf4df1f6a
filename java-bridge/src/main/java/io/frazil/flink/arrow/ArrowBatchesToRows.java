package io.frazil.flink.arrow;

import io.frazil.exchange.ArrowBatch;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

/**
 * Emits every row of each {@link ArrowBatch} of an {@link ArrowRowLayout} as {@link RowData}, with
 * its row kind when the layout carries one.
 *
 * <p>Ownership: this function is the batch's last holder and closes it. It first copies the batch's
 * columns into Flink heap column vectors (the native reader's converters), closes the batch, then
 * emits one {@link ColumnarRowData} view per row over those heap vectors: a new view object per row
 * and new vectors per batch, so a row stays valid for as long as anything downstream keeps it,
 * whether object reuse is on or off, and no row refers to Arrow memory. A batch whose schema is not
 * the layout's fails the task with an {@link IllegalArgumentException} naming the first difference;
 * it is closed all the same.
 *
 * <p>With object reuse on, a batch must reach only this function: a batch fanned out to two chained
 * consumers is one instance, and the first to close it releases it for both.
 */
public final class ArrowBatchesToRows extends RichFlatMapFunction<ArrowBatch, RowData>
    implements ResultTypeQueryable<RowData> {
  private static final long serialVersionUID = 1L;

  private final ArrowRowLayout layout;
  private final String table;
  private transient ArrowBatchColumns columns;

  /**
   * @param table the table's name, for messages
   */
  public ArrowBatchesToRows(ArrowRowLayout layout, String table) {
    this.layout = layout;
    this.table = table;
  }

  @Override
  public void flatMap(ArrowBatch batch, Collector<RowData> out) {
    if (columns == null) {
      columns = new ArrowBatchColumns(layout);
    }
    VectorizedColumnBatch rows;
    RowKind[] kinds;
    try {
      checkSchema(batch);
      if (batch.rowCount() == 0) {
        return;
      }
      rows = columns.copy(batch.root());
      kinds = columns.rowKinds(batch.root());
    } finally {
      batch.close();
    }
    for (int i = 0; i < rows.getNumRows(); i++) {
      ColumnarRowData row = new ColumnarRowData(rows, i);
      if (kinds != null) {
        row.setRowKind(kinds[i]);
      }
      out.collect(row);
    }
  }

  private void checkSchema(ArrowBatch batch) {
    if (!layout.arrowSchema().equals(batch.schema())) {
      throw new IllegalArgumentException(
          "An ArrowBatch reaching the sink of table "
              + table
              + " does not match the table's layout: "
              + SchemaMismatch.describe(layout.arrowSchema(), batch.schema()));
    }
  }

  @Override
  public TypeInformation<RowData> getProducedType() {
    return InternalTypeInfo.of(layout.rowType());
  }
}

package io.frazil.flink.arrow;

import io.frazil.exchange.ArrowBatch;
import io.frazil.iceberg.ArrowRowOrigin;
import io.frazil.iceberg.ArrowRows;
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
 * <p>The direct path to the writer: each row is recorded in this thread's {@link ArrowRowOrigin} as
 * it is emitted, so that a Frazil appender chained behind this function (Iceberg's writer, same
 * thread) that receives the very same row object writes runs of rows as slices of the batch, not
 * copying them again (see {@code FrazilParquetAppender}). The batch is held open until every row is
 * emitted and every such appender has sliced its run out of it. {@code
 * -Dfrazil.arrow.direct.enabled=false} turns the direct path off in a process.
 *
 * <p>With object reuse on, a batch must reach only this function: a batch fanned out to two chained
 * consumers is one instance, and the first to close it releases it for both.
 */
public final class ArrowBatchesToRows extends RichFlatMapFunction<ArrowBatch, RowData>
    implements ResultTypeQueryable<RowData> {
  private static final long serialVersionUID = 1L;

  /** The process switch of the direct path to Frazil's appenders (on unless {@code false}). */
  public static final String DIRECT_SWITCH = "frazil.arrow.direct.enabled";

  private final ArrowRowLayout layout;
  private final String table;
  private final boolean forWriter;
  private transient ArrowBatchColumns columns;
  private transient ArrowRowOrigin origin;

  /**
   * @param table the table's name, for messages
   */
  public ArrowBatchesToRows(ArrowRowLayout layout, String table) {
    this(layout, table, false);
  }

  /**
   * @param forWriter the rows go straight to Iceberg's writer ({@link FrazilArrowSink}), which
   *     reads them only while they are emitted: with the direct path on, columns are then copied to
   *     the heap only when read ({@link LazyColumnVector}), and rows read after their batch is
   *     released fail by name
   */
  ArrowBatchesToRows(ArrowRowLayout layout, String table, boolean forWriter) {
    this.layout = layout;
    this.table = table;
    this.forWriter = forWriter;
  }

  @Override
  public void flatMap(ArrowBatch batch, Collector<RowData> out) {
    if (columns == null) {
      columns = new ArrowBatchColumns(layout);
      origin = directEnabled() ? ArrowRowOrigin.current() : null;
    }
    try {
      checkSchema(batch);
      if (batch.rowCount() == 0) {
        return;
      }
      RowKind[] kinds = columns.rowKinds(batch.root());
      if (origin == null) {
        VectorizedColumnBatch rows = columns.copy(batch.root());
        batch.close();
        emit(rows, kinds, null, out);
      } else {
        VectorizedColumnBatch rows = forWriter ? columns.lazy(batch) : columns.copy(batch.root());
        emit(rows, kinds, new ArrowRows(batch.root(), layout.tableColumns()), out);
      }
    } finally {
      if (!batch.isReleased()) {
        batch.close();
      }
    }
  }

  /**
   * One row view per row; with {@code direct}, each recorded as its row of the batch while it is
   * emitted, and the batch's appenders given their runs before it is freed.
   */
  private void emit(
      VectorizedColumnBatch rows, RowKind[] kinds, ArrowRows direct, Collector<RowData> out) {
    Throwable failure = null;
    try {
      for (int i = 0; i < rows.getNumRows(); i++) {
        ColumnarRowData row = new ColumnarRowData(rows, i);
        if (kinds != null) {
          row.setRowKind(kinds[i]);
        }
        if (direct != null) {
          origin.set(row, direct, i);
        }
        out.collect(row);
      }
    } catch (Throwable t) {
      failure = t;
      throw t;
    } finally {
      if (direct != null) {
        origin.clear();
        release(direct, failure);
      }
    }
  }

  /**
   * Lets the appenders write their runs of the batch, also when emitting failed (each must stay
   * consistent for its close or abort); their failure is then attached to the first one.
   */
  private static void release(ArrowRows direct, Throwable failure) {
    try {
      direct.release();
    } catch (RuntimeException e) {
      if (failure == null) {
        throw e;
      }
      if (e != failure) {
        failure.addSuppressed(e);
      }
    }
  }

  private static boolean directEnabled() {
    return !"false".equalsIgnoreCase(System.getProperty(DIRECT_SWITCH, "true").trim());
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

package io.frazil.flink.arrow;

import io.frazil.exchange.ArrowBatch;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

/**
 * Turns a stream of {@link RowData} into one of {@link ArrowBatch}es and back, for jobs that mix
 * rows and batches. Both steps run at their input's parallelism, so they chain to it.
 */
public final class ArrowStreams {
  /** Rows per batch unless a job says otherwise (the writer's own batch size). */
  public static final int DEFAULT_BATCH_ROWS = 8192;

  private ArrowStreams() {}

  /**
   * Batches of up to {@code batchRows} rows of {@code rows} ({@link RowsToArrowBatches}), typed
   * {@code layout.typeInfo()}. The rows' type is read from the stream ({@code InternalTypeInfo}).
   */
  public static SingleOutputStreamOperator<ArrowBatch> toBatches(
      DataStream<RowData> rows, ArrowRowLayout layout, int batchRows) {
    return rows.transform(
            "RowData → ArrowBatch",
            layout.typeInfo(),
            new RowsToArrowBatches(layout, rowType(rows), batchRows))
        .setParallelism(rows.getParallelism());
  }

  /**
   * The rows of {@code batches} ({@link ArrowBatchesToRows}), which must be laid out as {@code
   * layout}; each batch is closed once its rows are copied out.
   */
  public static SingleOutputStreamOperator<RowData> toRows(
      DataStream<ArrowBatch> batches, ArrowRowLayout layout, String table) {
    return batches
        .flatMap(new ArrowBatchesToRows(layout, table))
        .name("ArrowBatch → RowData")
        .returns(InternalTypeInfo.of(layout.rowType()))
        .setParallelism(batches.getParallelism());
  }

  /**
   * The rows of {@code batches} for Iceberg's writer ({@link FrazilArrowSink}): as {@link #toRows},
   * typed so that Flink's copying chain hands them on as they are ({@link SinkRowsTypeInfo}).
   */
  static SingleOutputStreamOperator<RowData> toSinkRows(
      DataStream<ArrowBatch> batches, ArrowRowLayout layout, String table) {
    return batches
        .flatMap(new ArrowBatchesToRows(layout, table, true))
        .name("ArrowBatch → RowData")
        .returns(new SinkRowsTypeInfo(layout.rowType()))
        .setParallelism(batches.getParallelism());
  }

  private static RowType rowType(DataStream<RowData> rows) {
    TypeInformation<RowData> type = rows.getType();
    if (!(type instanceof InternalTypeInfo)
        || !(((InternalTypeInfo<RowData>) type).toLogicalType() instanceof RowType)) {
      throw new IllegalArgumentException(
          "Expected a RowData stream typed by InternalTypeInfo.of(RowType), got " + type);
    }
    return (RowType) ((InternalTypeInfo<RowData>) type).toLogicalType();
  }
}

package io.frazil.flink.arrow;

import io.frazil.exchange.ArrowBatch;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;

/**
 * The rows of the parts a writer subtask receives ({@link PartitionedBatches} by partition path,
 * {@link EqualityRoutedBatches} by subtask), for Iceberg's writer chained behind: {@link
 * ArrowBatchesToRows} on each part, so the direct path to the native writer applies. One operator,
 * not a map to the batch and then the conversion: with object reuse off, Flink would deep-copy
 * every batch passed between the two.
 */
final class PartitionRowsToWriter<K> extends RichFlatMapFunction<Tuple2<K, ArrowBatch>, RowData> {
  private static final long serialVersionUID = 1L;

  private final ArrowBatchesToRows rows;

  PartitionRowsToWriter(ArrowRowLayout layout, String table) {
    this.rows = new ArrowBatchesToRows(layout, table, true);
  }

  @Override
  public void flatMap(Tuple2<K, ArrowBatch> part, Collector<RowData> out) {
    rows.flatMap(part.f1, out);
  }
}

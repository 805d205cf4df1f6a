package io.frazil.flink.arrow;

import io.frazil.exchange.ArrowBatch;
import io.frazil.partition.ArrowBatchSplitter;
import io.frazil.partition.KeyedSubBatch;
import java.util.List;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.api.java.typeutils.TupleTypeInfo;
import org.apache.flink.util.Collector;
import org.apache.iceberg.PartitionSpec;

/**
 * Splits each batch by the table's partition spec ({@link ArrowBatchSplitter}, native) and emits
 * one part per partition tuple with its partition path, the key stock Iceberg's {@code
 * write.distribution-mode=hash} keys each row by: a {@code keyBy} on the path then moves whole
 * parts to the writer subtask stock would send their rows to.
 *
 * <p>Ownership: closes each input batch once it is split, and each part once emitted. Its output
 * must therefore be a network edge (the {@code keyBy} {@link FrazilArrowSink} adds), where a part
 * is serialized before {@code collect} returns.
 */
final class PartitionedBatches extends RichFlatMapFunction<ArrowBatch, Tuple2<String, ArrowBatch>>
    implements ResultTypeQueryable<Tuple2<String, ArrowBatch>> {
  private static final long serialVersionUID = 1L;

  private final ArrowRowLayout layout;
  private final PartitionSpec spec;
  private transient ArrowBatchSplitter splitter;

  PartitionedBatches(ArrowRowLayout layout, PartitionSpec spec) {
    this.layout = layout;
    this.spec = spec;
  }

  /** The parts' type: the partition path and a batch of the layout. */
  static TypeInformation<Tuple2<String, ArrowBatch>> typeOf(ArrowRowLayout layout) {
    return new TupleTypeInfo<>(Types.STRING, layout.typeInfo());
  }

  @Override
  public void flatMap(ArrowBatch batch, Collector<Tuple2<String, ArrowBatch>> out) {
    List<KeyedSubBatch> parts;
    try {
      if (splitter == null) {
        splitter = new ArrowBatchSplitter(spec, layout.tableSchema(), layout.arrowSchema());
      }
      parts = splitter.split(batch);
    } finally {
      batch.close();
    }
    Parts.emitAndClose(parts, KeyedSubBatch::key, KeyedSubBatch::batch, out);
  }

  @Override
  public TypeInformation<Tuple2<String, ArrowBatch>> getProducedType() {
    return typeOf(layout);
  }
}

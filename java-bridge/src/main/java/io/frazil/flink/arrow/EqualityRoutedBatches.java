package io.frazil.flink.arrow;

import io.frazil.exchange.ArrowBatch;
import io.frazil.partition.EqualityKeyRouter;
import io.frazil.partition.RoutedSubBatch;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.functions.Partitioner;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.api.java.typeutils.TupleTypeInfo;
import org.apache.flink.util.Collector;

/**
 * Splits each batch by the writer subtask its rows' equality keys send them to ({@link
 * EqualityKeyRouter}, native) and emits one part per subtask with that subtask's index; {@link
 * #ToSubtask} on a {@code partitionCustom} then moves whole parts there.
 *
 * <p>Ownership: closes each input batch once it is split, and each part once emitted. Its output
 * must therefore be a network edge (the {@code partitionCustom} {@link FrazilArrowSink} adds),
 * where a part is serialized before {@code collect} returns.
 */
final class EqualityRoutedBatches
    extends RichFlatMapFunction<ArrowBatch, Tuple2<Integer, ArrowBatch>>
    implements ResultTypeQueryable<Tuple2<Integer, ArrowBatch>> {
  private static final long serialVersionUID = 1L;

  private final ArrowRowLayout layout;
  private final Set<Integer> equalityFieldIds;
  private final String tableName;
  private final int writeParallelism;
  private final int maxWriteParallelism;
  private transient EqualityKeyRouter router;

  /** Routes as the Dynamic Iceberg Sink routes a table's records by their equality fields. */
  EqualityRoutedBatches(
      ArrowRowLayout layout,
      Set<Integer> equalityFieldIds,
      String tableName,
      int writeParallelism,
      int maxWriteParallelism) {
    this.layout = layout;
    this.equalityFieldIds = Set.copyOf(equalityFieldIds);
    this.tableName = tableName;
    this.writeParallelism = writeParallelism;
    this.maxWriteParallelism = maxWriteParallelism;
    // Fail when the job is built, not at its first batch.
    EqualityKeyRouter.dynamicSink(
        layout.tableSchema(),
        this.equalityFieldIds,
        layout.arrowSchema(),
        tableName,
        writeParallelism,
        maxWriteParallelism);
  }

  static TypeInformation<Tuple2<Integer, ArrowBatch>> typeOf(ArrowRowLayout layout) {
    return new TupleTypeInfo<>(Types.INT, layout.typeInfo());
  }

  @Override
  public void flatMap(ArrowBatch batch, Collector<Tuple2<Integer, ArrowBatch>> out) {
    List<RoutedSubBatch> parts;
    try {
      if (router == null) {
        router =
            EqualityKeyRouter.dynamicSink(
                layout.tableSchema(),
                equalityFieldIds,
                layout.arrowSchema(),
                tableName,
                writeParallelism,
                maxWriteParallelism);
      }
      parts = router.route(batch);
    } finally {
      batch.close();
    }
    Parts.emitAndClose(parts, RoutedSubBatch::destination, RoutedSubBatch::batch, out);
  }

  @Override
  public TypeInformation<Tuple2<Integer, ArrowBatch>> getProducedType() {
    return typeOf(layout);
  }

  /** The part's subtask, as its key. */
  static final class Destination implements KeySelector<Tuple2<Integer, ArrowBatch>, Integer> {
    private static final long serialVersionUID = 1L;

    @Override
    public Integer getKey(Tuple2<Integer, ArrowBatch> part) {
      return part.f0;
    }
  }

  /** Sends a part to the subtask it names, which must exist. */
  static final class ToSubtask implements Partitioner<Integer> {
    private static final long serialVersionUID = 1L;

    @Override
    public int partition(Integer subtask, int subtasks) {
      if (subtask < 0 || subtask >= subtasks) {
        throw new IllegalStateException(
            "A part routed to writer subtask "
                + subtask
                + " of "
                + subtasks
                + ": the writers' parallelism is not the one the parts were routed for");
      }
      return subtask;
    }
  }
}

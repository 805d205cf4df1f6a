package io.frazil.flink.arrow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.frazil.arrow.RowDataArrowWriter;
import io.frazil.exchange.ArrowBatch;
import io.frazil.iceberg.ArrowMemory;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.util.Collector;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * {@link EqualityRoutedBatches} on its own: parts cover the batch once, with the subtask each
 * names; a batch of another schema or a failing downstream fails the call by name and leaves no
 * Arrow memory; the partitioner refuses a subtask that does not exist.
 */
public class TestEqualityRoutedBatches {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()));
  private static final ArrowRowLayout LAYOUT = ArrowRowLayout.appendOnly(SCHEMA);

  @Test
  public void partsCoverTheBatchOnceAndTheirMemoryComesBack() {
    long before = ArrowMemory.exchangeAllocator().getAllocatedMemory();
    EqualityRoutedBatches routed = routed();
    List<Tuple2<Integer, ArrowBatch>> parts = new ArrayList<>();
    Collector<Tuple2<Integer, ArrowBatch>> out =
        new Collector<>() {
          @Override
          public void collect(Tuple2<Integer, ArrowBatch> part) {
            assertThat(part.f1.isReleased()).isFalse();
            parts.add(Tuple2.of(part.f0, null));
            rows[0] += part.f1.rowCount();
          }

          @Override
          public void close() {}
        };
    ArrowBatch batch = batch(SCHEMA, 1_000);
    routed.flatMap(batch, out);
    assertThat(batch.isReleased()).as("the input is closed").isTrue();
    assertThat(rows[0]).isEqualTo(1_000);
    assertThat(parts).extracting(p -> p.f0).doesNotHaveDuplicates().allMatch(d -> d >= 0 && d < 3);
    assertThat(parts).hasSizeGreaterThan(1);
    assertThat(ArrowMemory.exchangeAllocator().getAllocatedMemory()).isEqualTo(before);
  }

  @Test
  public void aFailingDownstreamFailsTheCallAndLeavesNoMemory() {
    long before = ArrowMemory.exchangeAllocator().getAllocatedMemory();
    List<ArrowBatch> seen = new ArrayList<>();
    Collector<Tuple2<Integer, ArrowBatch>> failing =
        new Collector<>() {
          @Override
          public void collect(Tuple2<Integer, ArrowBatch> part) {
            seen.add(part.f1);
            throw new IllegalStateException("downstream failed");
          }

          @Override
          public void close() {}
        };
    assertThatThrownBy(() -> routed().flatMap(batch(SCHEMA, 1_000), failing))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("downstream failed");
    assertThat(seen).hasSize(1);
    assertThat(ArrowMemory.exchangeAllocator().getAllocatedMemory()).isEqualTo(before);
  }

  @Test
  public void aBatchOfAnotherSchemaFailsByNameAndIsClosed() {
    long before = ArrowMemory.exchangeAllocator().getAllocatedMemory();
    Schema other =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(3, "label", Types.StringType.get()));
    ArrowBatch batch = batch(other, 10);
    assertThatThrownBy(() -> routed().flatMap(batch, ignoring()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not the router's");
    assertThat(batch.isReleased()).isTrue();
    assertThat(ArrowMemory.exchangeAllocator().getAllocatedMemory()).isEqualTo(before);
  }

  @Test
  public void thePartitionerRefusesASubtaskThatDoesNotExist() {
    EqualityRoutedBatches.ToSubtask partitioner = new EqualityRoutedBatches.ToSubtask();
    assertThat(partitioner.partition(2, 3)).isEqualTo(2);
    assertThatThrownBy(() -> partitioner.partition(3, 3))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("writer subtask 3 of 3");
  }

  private final long[] rows = new long[1];

  private static EqualityRoutedBatches routed() {
    return new EqualityRoutedBatches(LAYOUT, Set.of(1), "db.t", 3, 128);
  }

  private static Collector<Tuple2<Integer, ArrowBatch>> ignoring() {
    return new Collector<>() {
      @Override
      public void collect(Tuple2<Integer, ArrowBatch> part) {}

      @Override
      public void close() {}
    };
  }

  /** {@code count} rows of {@code schema} as a batch in the exchange allocator. */
  private static ArrowBatch batch(Schema schema, int count) {
    // The batch takes the writer's root; the writer holds no other memory (SplitBench does so).
    RowDataArrowWriter writer =
        new RowDataArrowWriter(
            schema, FlinkSchemaUtil.convert(schema), ArrowMemory.exchangeAllocator());
    for (int i = 0; i < count; i++) {
      writer.write(GenericRowData.of((long) i, StringData.fromString("row " + i)));
    }
    writer.finishBatch();
    return ArrowBatch.of(writer.root());
  }
}

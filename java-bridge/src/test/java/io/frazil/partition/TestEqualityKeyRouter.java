package io.frazil.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.frazil.arrow.IcebergArrowSchema;
import io.frazil.arrow.RowDataArrowWriter;
import io.frazil.exchange.ArrowBatch;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.sink.EqualityFieldKeySelector;
import org.apache.iceberg.flink.sink.dynamic.StockDynamicSinkKeys;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link EqualityKeyRouter} against stock Iceberg and Flink: the same random rows as {@link
 * RowData} and as an Arrow batch; every row's native key equals {@link
 * EqualityFieldKeySelector#getKey} for every type an equality field can have and for multi-field
 * keys; every row's destination equals the subtask Flink's {@code keyBy} sends that key to ({@link
 * KeyGroupRangeAssignment#assignKeyToParallelOperator}) and the writer the Dynamic Iceberg Sink
 * picks for it ({@code HashKeyGenerator}); the sub-batches hold exactly the input rows, in order,
 * and all Arrow memory is returned.
 */
public class TestEqualityKeyRouter {
  private static final int ROWS = 3_000;
  private static final Schema SCHEMA = SplitTestRows.SCHEMA;
  private static final org.apache.arrow.vector.types.pojo.Schema ARROW =
      IcebergArrowSchema.convert(SCHEMA);

  /** Every top-level column of a type an equality field may have (the struct is nested). */
  private static final String[] KEYABLE = {
    "id", "i", "l", "d", "t", "ts", "tstz", "ts_ns", "tstz_ns", "dec9", "dec18", "dec38", "s", "u",
    "fx", "bin", "b", "f", "dbl"
  };

  private BufferAllocator allocator;

  @BeforeEach
  public void openAllocator() {
    allocator = new RootAllocator();
  }

  @AfterEach
  public void closeAllocator() {
    assertThat(allocator.getAllocatedMemory()).as("Arrow memory left").isZero();
    allocator.close();
  }

  @Test
  public void keysOfEveryTypeAreStockKeys() {
    for (int i = 0; i < KEYABLE.length; i++) {
      assertKeysAreStocks(100 + i, ids(KEYABLE[i]));
    }
  }

  @Test
  public void multiFieldKeysMixFieldsInSchemaOrder() {
    // Given out of schema order: the key mixes them in the schema's.
    assertKeysAreStocks(130, ids("s", "id"));
    assertKeysAreStocks(131, ids("dbl", "u", "d", "dec38", "b"));
    assertKeysAreStocks(132, ids(KEYABLE));
  }

  @Test
  public void keyByDestinationsAreFlinksSubtasks() {
    int[][] shapes = {{128, 1}, {128, 2}, {128, 3}, {128, 7}, {4096, 5}, {7, 7}};
    for (int[] shape : shapes) {
      Set<Integer> ids = ids("s", "id");
      EqualityFieldKeySelector stock =
          new EqualityFieldKeySelector(SCHEMA, SplitTestRows.ROW_TYPE, ids);
      int maxParallelism = shape[0];
      int parallelism = shape[1];
      EqualityKeyRouter router =
          EqualityKeyRouter.keyBy(SCHEMA, ids, ARROW, maxParallelism, parallelism, allocator);
      assertRoutes(
          140 + parallelism,
          router,
          row ->
              KeyGroupRangeAssignment.assignKeyToParallelOperator(
                  stock.getKey(row), maxParallelism, parallelism));
    }
  }

  @Test
  public void dynamicSinkDestinationsAreTheSinksWriters() throws Exception {
    TableIdentifier table = TableIdentifier.of("db", "orders");
    PartitionSpec spec = PartitionSpec.unpartitioned();
    for (DistributionMode mode :
        new DistributionMode[] {DistributionMode.NONE, DistributionMode.HASH}) {
      for (int writeParallelism : new int[] {1, 2, 3, 8}) {
        int maxWriteParallelism = 128;
        StockDynamicSinkKeys stock = new StockDynamicSinkKeys(maxWriteParallelism);
        Set<String> names = Set.of("u", "l");
        EqualityKeyRouter router =
            EqualityKeyRouter.dynamicSink(
                SCHEMA,
                ids("u", "l"),
                ARROW,
                table.toString(),
                writeParallelism,
                maxWriteParallelism,
                allocator);
        assertRoutes(
            150 + writeParallelism,
            router,
            row -> {
              int key = stock.key(table, SCHEMA, spec, names, mode, writeParallelism, row);
              return KeyGroupRangeAssignment.assignKeyToParallelOperator(
                  key, maxWriteParallelism, writeParallelism);
            });
      }
    }
  }

  @Test
  public void oneDestinationIsTheWholeBatchAndAnEmptyBatchNone() {
    EqualityKeyRouter router = EqualityKeyRouter.keyBy(SCHEMA, ids("l"), ARROW, 128, 1, allocator);
    try (ArrowBatch batch = arrowBatch(new SplitTestRows(160).rows(500))) {
      List<RoutedSubBatch> parts = router.route(batch);
      assertThat(parts).hasSize(1);
      assertThat(parts.get(0).destination()).isZero();
      assertThat(parts.get(0).batch().rowCount()).isEqualTo(500);
      parts.forEach(p -> p.batch().close());
    }
    try (ArrowBatch empty = arrowBatch(List.of())) {
      assertThat(router.route(empty)).isEmpty();
    }
  }

  @Test
  public void nestedOrMissingFieldsAreNotRoutedAndBadBatchesAreNamed() {
    assertThat(EqualityKeyRouter.supports(SCHEMA, ids("st.inner_l"), ARROW)).isFalse();
    assertThat(EqualityKeyRouter.supports(SCHEMA, Set.of(), ARROW)).isFalse();
    Schema withList =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(
                2, "tags", Types.ListType.ofOptional(3, Types.StringType.get())));
    assertThat(
            EqualityKeyRouter.supports(withList, Set.of(2), IcebergArrowSchema.convert(withList)))
        .isFalse();
    assertThatThrownBy(
            () -> EqualityKeyRouter.keyBy(SCHEMA, ids("st.inner_s"), ARROW, 128, 2, allocator))
        .isInstanceOf(UnsupportedSplitException.class)
        .hasMessageContaining("'st'")
        .hasMessageContaining("nested");
    // A batch of another schema is refused by name, before any native call.
    EqualityKeyRouter router =
        EqualityKeyRouter.keyBy(withList, Set.of(1), IcebergArrowSchema.convert(withList), 128, 2);
    try (ArrowBatch batch = arrowBatch(new SplitTestRows(170).rows(10))) {
      assertThatThrownBy(() -> router.route(batch))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("not the router's");
    }
  }

  // ---------------------------------------------------------------------------------------------

  @FunctionalInterface
  private interface Destination {
    int of(RowData row) throws Exception;
  }

  private void assertKeysAreStocks(long seed, Set<Integer> ids) {
    List<RowData> rows = new SplitTestRows(seed).rows(ROWS);
    EqualityFieldKeySelector stock =
        new EqualityFieldKeySelector(SCHEMA, SplitTestRows.ROW_TYPE, ids);
    EqualityKeyRouter router = EqualityKeyRouter.keyBy(SCHEMA, ids, ARROW, 128, 4, allocator);
    try (ArrowBatch batch = arrowBatch(rows)) {
      int[] keys = router.keys(batch);
      assertThat(keys).hasSize(ROWS);
      Set<Integer> distinct = new HashSet<>();
      for (int r = 0; r < ROWS; r++) {
        int expected = stock.getKey(rows.get(r));
        assertThat(keys[r]).as("key of row %s over %s", r, names(ids)).isEqualTo(expected);
        distinct.add(expected);
      }
      // The pools repeat values and hold a null: many keys, not one.
      assertThat(distinct).as("distinct keys over %s", names(ids)).hasSizeGreaterThan(1);
    }
  }

  private void assertRoutes(long seed, EqualityKeyRouter router, Destination expected) {
    List<RowData> rows = new SplitTestRows(seed).rows(ROWS);
    try (ArrowBatch batch = arrowBatch(rows)) {
      List<RoutedSubBatch> parts = router.route(batch);
      try {
        Set<Integer> destinations = new HashSet<>();
        Set<Long> seen = new HashSet<>();
        for (RoutedSubBatch part : parts) {
          assertThat(destinations.add(part.destination())).isTrue();
          VectorSchemaRoot root = part.batch().root();
          assertThat(root.getSchema()).isEqualTo(batch.schema());
          assertThat(root.getRowCount()).isPositive();
          BigIntVector ids = (BigIntVector) root.getVector("id");
          long previous = -1;
          for (int r = 0; r < root.getRowCount(); r++) {
            long id = ids.get(r);
            assertThat(id).as("original order").isGreaterThan(previous);
            previous = id;
            assertThat(seen.add(id)).as("row %s once", id).isTrue();
            assertThat(part.destination())
                .as("destination of row %s", id)
                .isEqualTo(expected.of(rows.get((int) id)));
            assertThat(root.getVector("s").getObject(r))
                .isEqualTo(batch.root().getVector("s").getObject((int) id));
          }
        }
        assertThat(seen).hasSize(ROWS);
      } catch (Exception e) {
        throw new AssertionError(e);
      } finally {
        parts.forEach(p -> p.batch().close());
      }
      assertThat(batch.isReleased()).isFalse();
    }
  }

  private static Set<Integer> ids(String... names) {
    Set<Integer> ids = new HashSet<>();
    for (String name : names) {
      ids.add(SCHEMA.findField(name).fieldId());
    }
    return ids;
  }

  private static String names(Set<Integer> ids) {
    return ids.stream().map(SCHEMA::findColumnName).sorted().collect(Collectors.joining(","));
  }

  private ArrowBatch arrowBatch(List<RowData> rows) {
    try (RowDataArrowWriter writer =
        new RowDataArrowWriter(SCHEMA, SplitTestRows.ROW_TYPE, allocator)) {
      rows.forEach(writer::write);
      writer.finishBatch();
      return ArrowBatch.of(ArrowBatchSplitter.slice(writer.root(), 0, rows.size()));
    }
  }
}

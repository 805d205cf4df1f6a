package io.frazil.partition;

import static org.assertj.core.api.Assertions.assertThat;

import io.frazil.arrow.IcebergArrowSchema;
import io.frazil.arrow.RowDataArrowWriter;
import io.frazil.exchange.ArrowBatch;
import io.frazil.iceberg.ArrowMemory;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compare.Range;
import org.apache.arrow.vector.compare.RangeEqualsVisitor;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.flink.sink.PartitionKeySelector;
import org.apache.iceberg.transforms.Transform;
import org.apache.iceberg.transforms.Transforms;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ArrowBatchSplitter} against stock Iceberg: the same random rows as {@link RowData} and as
 * an Arrow batch ({@link RowDataArrowWriter}); for every transform and source type, every row's
 * sub-batch key equals what {@link PartitionKeySelector#getKey} returns for that row, the
 * sub-batches hold exactly the input rows (each once, values equal, original order within a
 * sub-batch, one sub-batch per key), and all Arrow memory is returned.
 */
public class TestArrowBatchSplitter {
  private static final int ROWS = 3_000;

  private static final String[] IDENTITY = {
    "i",
    "l",
    "d",
    "t",
    "ts",
    "tstz",
    "ts_ns",
    "tstz_ns",
    "dec9",
    "dec18",
    "dec38",
    "s",
    "u",
    "fx",
    "bin",
    "st.inner_l",
    "st.inner_s",
    "b",
    "f",
    "dbl"
  };

  private static final String[] BUCKETABLE = {
    "i",
    "l",
    "d",
    "t",
    "ts",
    "tstz",
    "ts_ns",
    "tstz_ns",
    "dec9",
    "dec18",
    "dec38",
    "s",
    "u",
    "fx",
    "bin",
    "st.inner_l",
    "st.inner_s"
  };

  private static final String[] TRUNCATABLE = {"i", "l", "dec9", "dec18", "dec38", "s", "bin"};

  private static final String[] TIMESTAMPS = {"ts", "tstz", "ts_ns", "tstz_ns"};

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
  public void identityOfEveryTypeMatchesStockKeys() {
    for (String column : IDENTITY) {
      assertParity(11, b -> b.identity(column));
    }
  }

  @Test
  public void bucketOfEveryTypeMatchesStockKeys() {
    int[] buckets = {1, 7, 16, 1000};
    for (int i = 0; i < BUCKETABLE.length; i++) {
      String column = BUCKETABLE[i];
      int n = buckets[i % buckets.length];
      assertParity(20 + i, b -> b.bucket(column, n));
    }
  }

  @Test
  public void truncateOfEveryTypeMatchesStockKeys() {
    int[] widths = {1, 3, 10, 50};
    for (int i = 0; i < TRUNCATABLE.length; i++) {
      for (int width : widths) {
        String column = TRUNCATABLE[i];
        assertParity(40 + i, b -> b.truncate(column, width));
      }
    }
  }

  @Test
  public void timeTransformsOfDatesAndTimestampsMatchStockKeys() {
    assertParity(60, b -> b.year("d"));
    assertParity(61, b -> b.month("d"));
    assertParity(62, b -> b.day("d"));
    for (String column : TIMESTAMPS) {
      assertParity(63, b -> b.year(column));
      assertParity(64, b -> b.month(column));
      assertParity(65, b -> b.day(column));
      assertParity(66, b -> b.hour(column));
    }
  }

  @Test
  public void theRowsHoldTheValueWhereIcebergsHourIsNotTheFloor() {
    // Iceberg's hour of -3,599,000,001 µs (1969-12-31T23:00:00.999999) is -2, where the floor is
    // -1 (DateTimeUtil.convertMicros); the parity above covers it because the rows hold it.
    long micros = -3_599_000_001L;
    Transform<Long, Integer> hour = Transforms.hour();
    assertThat(hour.bind(Types.TimestampType.withoutZone()).apply(micros)).isEqualTo(-2);
    assertThat(Math.floorDiv(micros, 3_600_000_000L)).isEqualTo(-1);
    int ts = SplitTestRows.SCHEMA.columns().indexOf(SplitTestRows.SCHEMA.findField("ts"));
    assertThat(new SplitTestRows(66).rows(ROWS))
        .anyMatch(
            row -> {
              if (row.isNullAt(ts)) {
                return false;
              }
              TimestampData value = row.getTimestamp(ts, 6);
              return value.getMillisecond() * 1000 + value.getNanoOfMillisecond() / 1000 == micros;
            });
  }

  @Test
  public void multiFieldAndVoidSpecsMatchStockKeys() {
    assertParity(
        70, b -> b.bucket("l", 8).day("ts").identity("s").truncate("i", 10).alwaysNull("bin"));
    assertParity(71, b -> b.hour("tstz_ns").bucket("u", 4).identity("st.inner_s"));
    assertParity(72, b -> b.alwaysNull("dbl"));
    assertParity(73, b -> b.identity("b").identity("f").month("tstz").truncate("dec38", 7));
  }

  @Test
  public void unpartitionedIsOneSubBatchWithAnEmptyKey() {
    assertParity(80, b -> {});
  }

  @Test
  public void anEmptyBatchGivesNoSubBatches() {
    PartitionSpec spec = PartitionSpec.builderFor(SplitTestRows.SCHEMA).bucket("l", 4).build();
    try (ArrowBatch batch = arrowBatch(List.of())) {
      assertThat(splitter(spec).split(batch)).isEmpty();
    }
  }

  @Test
  public void aBatchInNativeMemoryUnderAnotherRootSplitsAlikeAndComesBackWhole() {
    // Batches that crossed an exchange live in native memory under the exchange allocator
    // (ArrowBatch.copy decodes as the serializer does); this splitter's allocator is another root.
    PartitionSpec spec =
        PartitionSpec.builderFor(SplitTestRows.SCHEMA).bucket("s", 5).month("tstz").build();
    List<RowData> rows = new SplitTestRows(95).rows(ROWS);
    PartitionKeySelector stock =
        new PartitionKeySelector(spec, SplitTestRows.SCHEMA, SplitTestRows.ROW_TYPE);
    BufferAllocator exchange = ArrowMemory.exchangeAllocator();
    long before = exchange.getAllocatedMemory();
    try (ArrowBatch original = arrowBatch(rows, exchange);
        ArrowBatch decoded = original.copy()) {
      List<KeyedSubBatch> parts = splitter(spec).split(decoded);
      try {
        assertSplitIsExact(spec, rows, stock, decoded, parts);
        assertThat(allocator.getAllocatedMemory()).isPositive();
      } finally {
        parts.forEach(p -> p.batch().close());
      }
    }
    assertThat(exchange.getAllocatedMemory()).isEqualTo(before);
  }

  @Test
  public void keysAreRememberedAcrossBatches() {
    PartitionSpec spec = PartitionSpec.builderFor(SplitTestRows.SCHEMA).bucket("i", 3).build();
    ArrowBatchSplitter splitter = splitter(spec);
    List<RowData> rows = new SplitTestRows(90).rows(500);
    for (int round = 0; round < 3; round++) {
      try (ArrowBatch batch = arrowBatch(rows)) {
        List<KeyedSubBatch> parts = splitter.split(batch);
        assertThat(parts).hasSize(4); // three buckets and null
        parts.forEach(p -> p.batch().close());
      }
    }
  }

  // ---------------------------------------------------------------------------------------------

  private void assertParity(long seed, Consumer<PartitionSpec.Builder> fields) {
    PartitionSpec.Builder builder = PartitionSpec.builderFor(SplitTestRows.SCHEMA);
    fields.accept(builder);
    PartitionSpec spec = builder.build();
    List<RowData> rows = new SplitTestRows(seed).rows(ROWS);
    PartitionKeySelector stock =
        new PartitionKeySelector(spec, SplitTestRows.SCHEMA, SplitTestRows.ROW_TYPE);
    List<KeyedSubBatch> parts;
    try (ArrowBatch batch = arrowBatch(rows)) {
      parts = splitter(spec).split(batch);
      try {
        assertSplitIsExact(spec, rows, stock, batch, parts);
      } finally {
        parts.forEach(p -> p.batch().close());
      }
      assertThat(batch.isReleased()).isFalse();
      assertThat(batch.rowCount()).isEqualTo(ROWS);
    }
    assertThat(allocator.getAllocatedMemory()).as("memory after %s", spec).isZero();
  }

  private static void assertSplitIsExact(
      PartitionSpec spec,
      List<RowData> rows,
      PartitionKeySelector stock,
      ArrowBatch input,
      List<KeyedSubBatch> parts) {
    Set<String> keys = new HashSet<>();
    Map<Long, String> seen = new LinkedHashMap<>();
    for (KeyedSubBatch part : parts) {
      assertThat(keys.add(part.key()))
          .as("one sub-batch per key: %s in %s", part.key(), spec)
          .isTrue();
      VectorSchemaRoot root = part.batch().root();
      assertThat(root.getSchema()).isEqualTo(input.schema());
      for (int c = 0; c < root.getFieldVectors().size(); c++) {
        // What an export sends: the vectors' own fields, nested metadata (field ids) included.
        assertThat(root.getVector(c).getField()).isEqualTo(input.schema().getFields().get(c));
      }
      assertThat(root.getRowCount()).isPositive();
      BigIntVector ids = (BigIntVector) root.getVector("id");
      long previous = -1;
      for (int r = 0; r < root.getRowCount(); r++) {
        long id = ids.get(r);
        assertThat(id).as("original order within %s", part.key()).isGreaterThan(previous);
        previous = id;
        assertThat(seen.put(id, part.key())).as("row %s once", id).isNull();
        String expected = stock.getKey(rows.get((int) id));
        assertThat(part.key()).as("key of row %s under %s", id, spec).isEqualTo(expected);
        assertSameRow(input.root(), (int) id, root, r);
      }
    }
    assertThat(seen).hasSize(rows.size());
  }

  private static void assertSameRow(
      VectorSchemaRoot left, int leftRow, VectorSchemaRoot right, int rightRow) {
    for (int c = 0; c < left.getFieldVectors().size(); c++) {
      FieldVector l = left.getVector(c);
      FieldVector r = right.getVector(c);
      assertThat(new RangeEqualsVisitor(l, r).rangeEquals(new Range(leftRow, rightRow, 1)))
          .as(
              "column %s of row %s: %s (%s) against %s (%s)",
              l.getName(),
              leftRow,
              l.getObject(leftRow),
              l.getField().getChildren().isEmpty()
                  ? l.getField().getMetadata()
                  : l.getChildrenFromFields().get(0).getField().getMetadata(),
              r.getObject(rightRow),
              r.getField().getChildren().isEmpty()
                  ? r.getField().getMetadata()
                  : r.getChildrenFromFields().get(0).getField().getMetadata())
          .isTrue();
    }
  }

  private ArrowBatchSplitter splitter(PartitionSpec spec) {
    return new ArrowBatchSplitter(
        spec, SplitTestRows.SCHEMA, IcebergArrowSchema.convert(SplitTestRows.SCHEMA), allocator);
  }

  /** The rows as one Arrow batch the caller owns. */
  private ArrowBatch arrowBatch(List<RowData> rows) {
    return arrowBatch(rows, allocator);
  }

  private static ArrowBatch arrowBatch(List<RowData> rows, BufferAllocator allocator) {
    try (RowDataArrowWriter writer =
        new RowDataArrowWriter(SplitTestRows.SCHEMA, SplitTestRows.ROW_TYPE, allocator)) {
      rows.forEach(writer::write);
      writer.finishBatch();
      return ArrowBatch.of(ArrowBatchSplitter.slice(writer.root(), 0, rows.size()));
    }
  }
}

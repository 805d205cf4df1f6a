package io.frazil.exchange;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;

import io.frazil.iceberg.ArrowMemory;
import io.frazil.testkit.RowDataGenerator;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.testutils.DeeplyEqualsChecker;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Flink's own serializer test base over {@link ArrowBatchSerializer} (copies, reuse, sequences,
 * serialized copies, snapshot and restore, serializability, null handling, concurrent duplicates),
 * on batches with nulls, nesting and no rows. Two batches are equal when their vectors are ({@link
 * ArrowBatch#contentEquals}): the one equality hook the base offers, its checks unchanged.
 *
 * <p>The base drops the copies it makes without releasing them, so this also proves the cleaner:
 * after each test every batch is released and the exchange allocator is empty again.
 */
public class TestArrowBatchSerializer extends SerializerTestBase<ArrowBatch> {
  static final Schema SCHEMA =
      new Schema(
          required(1, "id", Types.LongType.get()),
          optional(2, "name", Types.StringType.get()),
          optional(3, "price", Types.DecimalType.of(12, 2)),
          optional(4, "ts", Types.TimestampType.withZone()),
          optional(5, "tags", Types.ListType.ofOptional(6, Types.StringType.get())),
          optional(
              7,
              "attrs",
              Types.MapType.ofOptional(8, 9, Types.StringType.get(), Types.IntegerType.get())),
          optional(
              10,
              "nested",
              Types.StructType.of(
                  optional(11, "x", Types.DoubleType.get()),
                  optional(12, "b", Types.BinaryType.get()))));

  private final List<ArrowBatch> data = new ArrayList<>();
  private long liveBefore;

  public TestArrowBatchSerializer() {
    super(
        new DeeplyEqualsChecker()
            .withCustomCheck(
                (a, b) -> a instanceof ArrowBatch && b instanceof ArrowBatch,
                (a, b, checker) -> ((ArrowBatch) a).contentEquals((ArrowBatch) b)));
  }

  @BeforeEach
  public void before() throws InterruptedException {
    ArrowBatches.awaitUnreachableReleased(ArrowBatch.liveBatches());
    this.liveBefore = ArrowBatch.liveBatches();
  }

  @AfterEach
  public void after() throws InterruptedException {
    data.forEach(ArrowBatch::close);
    data.clear();
    ArrowBatches.awaitUnreachableReleased(liveBefore);
    assertThat(ArrowBatch.liveBatches()).as("batches left unreleased").isEqualTo(liveBefore);
    assertThat(ArrowMemory.allocatedBytes()).as("Arrow bytes left allocated").isZero();
  }

  @Override
  protected TypeSerializer<ArrowBatch> createSerializer() {
    return new ArrowBatchSerializer(ArrowBatchTypeInfo.of(SCHEMA).schema(), IpcCompression.NONE);
  }

  @Override
  protected int getLength() {
    return -1;
  }

  @Override
  protected Class<ArrowBatch> getTypeClass() {
    return ArrowBatch.class;
  }

  @Override
  protected ArrowBatch[] getTestData() {
    if (data.isEmpty()) {
      data.add(ArrowBatches.of(SCHEMA, new RowDataGenerator(1, 0.2).rows(SCHEMA, 100)));
      data.add(ArrowBatches.of(SCHEMA, new RowDataGenerator(2, 0.9, true).rows(SCHEMA, 37)));
      data.add(ArrowBatches.of(SCHEMA, List.of()));
      data.add(ArrowBatches.of(SCHEMA, new RowDataGenerator(3, 0.0, true).rows(SCHEMA, 1)));
      data.add(ArrowBatches.of(SCHEMA, new RowDataGenerator(4, 0.1).rows(SCHEMA, 5000)));
    }
    return data.toArray(new ArrowBatch[0]);
  }
}

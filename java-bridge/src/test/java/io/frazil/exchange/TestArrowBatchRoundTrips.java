package io.frazil.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import io.frazil.arrow.IcebergArrowSchema;
import io.frazil.arrow.RowDataArrowWriter;
import io.frazil.iceberg.ArrowMemory;
import io.frazil.jni.NativeParquetWriter;
import io.frazil.testkit.RandomSchemas;
import io.frazil.testkit.RowDataGenerator;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Serializer round trips over the randomized schemas of the parity fuzz ({@link RandomSchemas},
 * {@link RowDataGenerator} with extremes and nulls), each with every compression: the batch read
 * back has the same vectors, bit for bit, and is independent of the one written. Row counts are
 * drawn from the seed and include empty batches; one case is a large batch.
 */
public class TestArrowBatchRoundTrips {
  private static final long BASE_SEED = 20261205L;
  private static final long STEP = 0x9E3779B97F4A7C15L;
  private static final int CASES = 24;

  private long liveBefore;

  @BeforeEach
  public void before() throws InterruptedException {
    ArrowBatches.awaitUnreachableReleased(ArrowBatch.liveBatches());
    this.liveBefore = ArrowBatch.liveBatches();
  }

  @AfterEach
  public void after() {
    assertThat(ArrowBatch.liveBatches()).as("batches left unreleased").isEqualTo(liveBefore);
    assertThat(ArrowMemory.allocatedBytes()).as("Arrow bytes left allocated").isZero();
  }

  static Stream<Arguments> cases() {
    return LongStream.range(0, CASES)
        .mapToObj(i -> BASE_SEED + i * STEP)
        .flatMap(
            seed -> Stream.of(IpcCompression.values()).map(codec -> Arguments.of(seed, codec)));
  }

  @ParameterizedTest(name = "seed {0} {1}")
  @MethodSource("cases")
  public void randomSchemasRoundTrip(long seed, IpcCompression codec) throws Exception {
    Random random = new Random(seed);
    Schema schema = RandomSchemas.generate(seed);
    int rows = random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(3000);
    double nullRate = random.nextInt(3) == 0 ? 0.0 : random.nextDouble();
    List<RowData> data = new RowDataGenerator(seed, nullRate, true).rows(schema, rows);
    assertRoundTrip(schema, data, codec);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("codecs")
  public void largeBatchRoundTrips(IpcCompression codec) throws Exception {
    Schema schema = TestArrowBatchSerializer.SCHEMA;
    List<RowData> data = new RowDataGenerator(7, 0.1, true).rows(schema, 200_000);
    assertRoundTrip(schema, data, codec);
  }

  static Stream<IpcCompression> codecs() {
    return Stream.of(IpcCompression.values());
  }

  /** A decoded batch holds native memory until it is released, and gives it back then. */
  @Test
  public void decodedBatchesHoldNativeMemoryUntilReleased() throws Exception {
    Schema schema = TestArrowBatchSerializer.SCHEMA;
    ArrowBatchSerializer serializer = serializer(schema, IpcCompression.NONE);
    byte[] record;
    try (ArrowBatch batch =
        ArrowBatches.of(schema, new RowDataGenerator(8, 0.0, true).rows(schema, 100_000))) {
      record = ArrowBatches.serialize(serializer, batch);
    }
    assertThat(record.length).as("serialized bytes").isGreaterThan(16 << 20);
    long baseline = NativeParquetWriter.allocatedBytes();
    ArrowBatch decoded = ArrowBatches.deserialize(serializer, record);
    // The decoded buffers are slices of the native copy of the record (the count lags by up to
    // 64 KiB per thread, so allow half).
    assertThat(NativeParquetWriter.allocatedBytes() - baseline)
        .as("native bytes held by a decoded batch")
        .isGreaterThan(record.length / 2);
    assertThat(ArrowMemory.allocatedBytes()).isGreaterThan(record.length / 2);
    decoded.close();
    assertThat(NativeParquetWriter.allocatedBytes() - baseline)
        .as("native bytes after release")
        .isLessThan(4 << 20);
  }

  /**
   * Into an output with room (what a record writer's reused array has after its first large
   * record), native code encodes in place, after what the output holds already; the records are the
   * bytes the copying path writes into an output without room, and read back in order.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(IpcCompression.class)
  public void recordsEncodedInPlaceAreTheCopiedRecords(IpcCompression codec) throws Exception {
    Schema schema = TestArrowBatchSerializer.SCHEMA;
    ArrowBatchSerializer serializer = serializer(schema, codec);
    try (ArrowBatch first =
            ArrowBatches.of(schema, new RowDataGenerator(21, 0.2).rows(schema, 3_000));
        ArrowBatch second =
            ArrowBatches.of(schema, new RowDataGenerator(22, 0.2).rows(schema, 1_000))) {
      DataOutputSerializer copied = new DataOutputSerializer(1);
      copied.writeInt(42);
      serializer.serialize(first, copied);
      int afterFirst = copied.length();
      assertThat(copied.getSharedBuffer().length - afterFirst)
          .as("no room left for the second record: it is copied in too")
          .isLessThan(16 << 10);
      serializer.serialize(second, copied);

      DataOutputSerializer inPlace = new DataOutputSerializer(8 << 20);
      inPlace.writeInt(42);
      byte[] array = inPlace.getSharedBuffer();
      serializer.serialize(first, inPlace);
      serializer.serialize(second, inPlace);
      assertThat(inPlace.getSharedBuffer()).as("encoded in the output's own array").isSameAs(array);
      assertThat(inPlace.getCopyOfBuffer()).isEqualTo(copied.getCopyOfBuffer());

      DataInputDeserializer in = new DataInputDeserializer(inPlace.getCopyOfBuffer());
      assertThat(in.readInt()).isEqualTo(42);
      try (ArrowBatch readFirst = serializer.deserialize(in);
          ArrowBatch readSecond = serializer.deserialize(in)) {
        assertThat(readFirst.contentEquals(first)).isTrue();
        assertThat(readSecond.contentEquals(second)).isTrue();
      }
      assertThat(in.available()).isZero();
    }
  }

  /**
   * The copy Flink makes between chained operators (object reuse off) shares the buffers of a batch
   * built in or decoded into the exchange allocator (every buffer of the copy is one of the
   * original's, at the same address), and still reads the same values after the original's release.
   * A batch of another allocator is copied into buffers of its own.
   */
  @Test
  public void copiesOfExchangeBatchesShareTheirBuffers() throws Exception {
    Schema schema = TestArrowBatchSerializer.SCHEMA;
    List<RowData> rows = new RowDataGenerator(23, 0.2, true).rows(schema, 5_000);
    ArrowBatchSerializer serializer = serializer(schema, IpcCompression.NONE);
    try (ArrowBatch reference = ArrowBatches.of(schema, rows)) {
      ArrowBatch built = ArrowBatches.of(schema, rows);
      ArrowBatch decoded =
          ArrowBatches.deserialize(serializer, ArrowBatches.serialize(serializer, built));
      for (ArrowBatch original : List.of(built, decoded)) {
        ArrowBatch copy = serializer.copy(original);
        assertThat(addresses(copy)).as("the copy's buffers").isEqualTo(addresses(original));
        original.close();
        assertThat(copy.contentEquals(reference))
            .as("the copy after the original's release")
            .isTrue();
        copy.close();
      }
      try (RootAllocator other = new RootAllocator()) {
        try (ArrowBatch foreign = batchOf(other, schema, rows);
            ArrowBatch copy = serializer.copy(foreign)) {
          assertThat(addresses(copy))
              .as("a copy of another allocator's batch")
              .doesNotContainAnyElementsOf(addresses(foreign));
          assertThat(copy.contentEquals(reference)).isTrue();
        }
      }
    }
  }

  /** The addresses of every non-empty buffer of the batch, its vectors' children included. */
  private static java.util.Set<Long> addresses(ArrowBatch batch) {
    java.util.Set<Long> addresses = new java.util.HashSet<>();
    java.util.ArrayDeque<FieldVector> vectors =
        new java.util.ArrayDeque<>(batch.root().getFieldVectors());
    while (!vectors.isEmpty()) {
      FieldVector vector = vectors.pollFirst();
      for (org.apache.arrow.memory.ArrowBuf buffer : vector.getFieldBuffers()) {
        if (buffer.capacity() > 0) {
          addresses.add(buffer.memoryAddress());
        }
      }
      vectors.addAll(vector.getChildrenFromFields());
    }
    return addresses;
  }

  /** The copy Flink makes between chained operators is independent: it outlives the original. */
  @Test
  public void copiesAreIndependentOfTheOriginal() throws Exception {
    Schema schema = TestArrowBatchSerializer.SCHEMA;
    ArrowBatchSerializer serializer = serializer(schema, IpcCompression.NONE);
    ArrowBatch original = ArrowBatches.of(schema, new RowDataGenerator(9, 0.3).rows(schema, 500));
    ArrowBatch reference = ArrowBatches.of(schema, new RowDataGenerator(9, 0.3).rows(schema, 500));
    ArrowBatch copy = serializer.copy(original);
    original.close();
    assertThat(copy.contentEquals(reference)).as("the copy after the original's release").isTrue();
    copy.close();
    reference.close();
  }

  /**
   * A batch whose buffers live under another root allocator than the exchange's (a source's or a
   * user's) serializes and copies, and both allocators get every byte back.
   */
  @Test
  public void batchesOfAnotherRootAllocatorSerializeAndCopy() throws Exception {
    Schema schema = TestArrowBatchSerializer.SCHEMA;
    List<RowData> rows = new RowDataGenerator(10, 0.2, true).rows(schema, 1_000);
    ArrowBatchSerializer serializer = serializer(schema, IpcCompression.LZ4_FRAME);
    try (RootAllocator other = new RootAllocator()) {
      try (ArrowBatch foreign = batchOf(other, schema, rows);
          ArrowBatch reference = ArrowBatches.of(schema, rows)) {
        byte[] record = ArrowBatches.serialize(serializer, foreign);
        try (ArrowBatch read = ArrowBatches.deserialize(serializer, record);
            ArrowBatch copy = serializer.copy(foreign)) {
          assertThat(read.contentEquals(reference)).as("read back").isTrue();
          assertThat(copy.contentEquals(reference)).as("copied").isTrue();
        }
      }
      assertThat(other.getAllocatedMemory()).as("the other allocator's bytes").isZero();
    }
  }

  /** A batch of {@code rows} whose buffers belong to {@code allocator} (not the exchange's). */
  private static ArrowBatch batchOf(RootAllocator allocator, Schema schema, List<RowData> rows) {
    RowDataArrowWriter writer =
        new RowDataArrowWriter(schema, FlinkSchemaUtil.convert(schema), allocator);
    rows.forEach(writer::write);
    writer.finishBatch();
    return ArrowBatch.of(writer.root());
  }

  private static ArrowBatchSerializer serializer(Schema schema, IpcCompression codec) {
    return new ArrowBatchSerializer(IcebergArrowSchema.convert(schema), codec);
  }

  private static void assertRoundTrip(Schema schema, List<RowData> data, IpcCompression codec)
      throws Exception {
    ArrowBatchSerializer serializer = serializer(schema, codec);
    try (ArrowBatch written = ArrowBatches.of(schema, data)) {
      assertThat(written.rowCount()).isEqualTo(data.size());
      byte[] record = ArrowBatches.serialize(serializer, written);
      try (ArrowBatch read = ArrowBatches.deserialize(serializer, record)) {
        assertThat(read.rowCount()).isEqualTo(data.size());
        assertThat(read.schema()).isEqualTo(written.schema());
        assertThat(read.contentEquals(written))
            .as("%s rows of %s read back with %s", data.size(), schema, codec)
            .isTrue();
        try (ArrowBatch copy = serializer.copy(read)) {
          assertThat(copy.contentEquals(written)).as("a copy of the read batch").isTrue();
        }
      }
    }
  }
}

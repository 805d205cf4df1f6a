package io.frazil.iceberg;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.frazil.arrow.IcebergArrowSchema;
import io.frazil.jni.NativeParquetWriter;
import io.frazil.testkit.RowDataGenerator;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.relocated.com.google.common.collect.Maps;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Arrow appender's two contracts: the caller keeps its batch ({@code buildArrow}), or hands it
 * over and native code keeps up to two in flight ({@code buildArrowTakingOwnership}). Both write
 * what stock Iceberg writes, and every buffer taken returns to its allocator, also after failures.
 */
public class TestArrowOwnership {
  private static final Schema SCHEMA =
      new Schema(required(1, "id", Types.LongType.get()), optional(2, "s", Types.StringType.get()));

  /**
   * Native code picks dictionaries after the first batch (a page of 1,000 rows) and keeps batches
   * in flight from the second on; row groups of 64 KiB close (and are drained) while they are.
   */
  private static final Map<String, String> PIPELINED =
      Map.of(
          "write.parquet.compression-codec", "zstd",
          "write.parquet.page-row-limit", "1000",
          "write.parquet.row-group-size-bytes", "65536");

  @TempDir private File temp;

  @AfterEach
  public void after() {
    assertThat(ArrowMemory.allocatedBytes()).as("Arrow bytes left allocated").isZero();
    assertThat(NativeParquetWriter.liveWriterCount()).as("native writers left open").isZero();
  }

  @ParameterizedTest(name = "{0} nulls={2} rows={3} props={4} metrics={5}")
  @MethodSource("io.frazil.iceberg.TestParquetParity#cases")
  public void bothArrowContractsWriteWhatStockWrites(
      String name,
      Schema schema,
      double nullRate,
      int rowCount,
      Map<String, String> tableProps,
      String configName,
      MetricsConfig config)
      throws IOException {
    List<RowData> rows = new RowDataGenerator(name.hashCode(), nullRate).rows(schema, rowCount);
    Map<String, String> props = Maps.newHashMap(tableProps);
    props.putIfAbsent("write.parquet.compression-codec", "zstd");
    ParityHarness.Written stock =
        ParityHarness.writeStock(new File(temp, "stock.parquet"), schema, rows, props, config);
    ParityHarness.Written kept =
        ParityHarness.writeFrazilArrow(
            new File(temp, "kept.parquet"), schema, rows, props, config, 1000, false);
    ParityHarness.Written taken =
        ParityHarness.writeFrazilArrow(
            new File(temp, "taken.parquet"), schema, rows, props, config, 1000, true);

    for (ParityHarness.Written frazil : List.of(kept, taken)) {
      ParityAssertions.assertSameRows(schema, stock, frazil, rowCount);
      ParityAssertions.assertSameFooter(stock, frazil, props);
      ParityAssertions.assertSameMetrics(stock.metrics, frazil.metrics);
    }
    // Batches in flight change when native code lets go of them, never what it writes.
    assertThat(Files.readAllBytes(taken.file.toPath()))
        .isEqualTo(Files.readAllBytes(kept.file.toPath()));
    assertThat(taken.splitOffsets).isEqualTo(kept.splitOffsets);
  }

  @Test
  public void addTakesTheBuffersAndLeavesTheCallersRootEmptyAndReusable() throws IOException {
    File file = new File(temp, "taken.parquet");
    FrazilArrowAppender appender = taking(org.apache.iceberg.Files.localOutput(file), Map.of());
    assertThat(appender.takesOwnership()).isTrue();
    try (BufferAllocator allocator = new RootAllocator()) {
      BufferAllocator callers = allocator.newChildAllocator("caller", 0, Long.MAX_VALUE);
      VectorSchemaRoot root = newRoot(callers);
      for (int batch = 0; batch < 5; batch += 1) {
        fill(root, batch * 10_000L, 10_000);
        long filled = callers.getAllocatedMemory();
        appender.add(root);
        assertThat(root.getRowCount()).isZero();
        for (FieldVector vector : root.getFieldVectors()) {
          assertThat(vector.getValueCount()).isZero();
          assertThat(vector.getBufferSize()).isZero();
        }
        assertThat(callers.getAllocatedMemory()).as("nothing left with the caller").isZero();
        if (batch >= 2) {
          // Past the first 20,000 rows (which native code copies while it picks dictionaries)
          // the batch is in flight, in the appender's allocator, until a later call lets go of it.
          assertThat(appender.bufferedMemory()).isGreaterThanOrEqualTo(filled);
        }
      }
      // Ownership passed: the caller may close what the batches came from before the appender.
      root.close();
      callers.close();
      appender.close();
      assertThat(allocator.getAllocatedMemory()).isZero();
    }
    assertThat(appender.metrics().recordCount()).isEqualTo(50_000L);
    assertThat(appender.inlineBatches()).isZero();
    List<Record> records = ParityHarness.read(file, SCHEMA);
    assertThat(records).hasSize(50_000);
    for (int i = 0; i < 50_000; i += 1) {
      assertThat(records.get(i).getField("id")).isEqualTo((long) i);
      assertThat(records.get(i).getField("s")).isEqualTo(i % 7 == 0 ? null : "value " + i);
    }
  }

  @Test
  public void aFailingOutputWhileBatchesAreInFlightLeavesNoFileAndFreesEveryBuffer() {
    OutputFile failing = new FailingOutputFile(new File(temp, "failing.parquet"));
    FrazilArrowAppender appender = taking(failing, PIPELINED);
    long[] inFlight = {0L};
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = newRoot(allocator)) {
      Throwable original =
          failLikeIcebergsWriter(
              () -> {
                // The first row group that closes reaches the failing stream.
                for (int batch = 0; batch < 100; batch += 1) {
                  fill(root, batch * 1000L, 1000);
                  appender.add(root);
                  inFlight[0] = appender.bufferedMemory();
                }
              },
              appender);
      assertThat(original)
          .isInstanceOf(UncheckedIOException.class)
          .hasStackTraceContaining("disk full");
      assertThat(inFlight[0]).as("batches in flight when it failed").isGreaterThan(16_000L);
      assertThat(root.getRowCount()).isZero();
      assertThat(allocator.getAllocatedMemory()).as("every batch taken is freed").isZero();
      // A later batch is refused, and freed like any other batch handed over.
      fill(root, 0L, 10);
      assertThatThrownBy(() -> appender.add(root)).isInstanceOf(IllegalStateException.class);
      assertThat(allocator.getAllocatedMemory()).isZero();
    }
    assertThat(appender.metrics()).as("no metrics for a failed file").isNull();
  }

  @Test
  public void aBatchNativeCodeRefusesWhileOthersAreInFlightFreesThemAll() {
    FrazilArrowAppender appender =
        taking(org.apache.iceberg.Files.localOutput(new File(temp, "refused.parquet")), PIPELINED);
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = newRoot(allocator)) {
      Throwable original =
          failLikeIcebergsWriter(
              () -> {
                fill(root, 0L, 1000);
                appender.add(root);
                fill(root, 1000L, 1000);
                appender.add(root);
                assertThat(appender.bufferedMemory()).as("in flight").isGreaterThan(16_000L);
                // A null in the required column passes Arrow's own checks; native code refuses it.
                fill(root, 2000L, 1000);
                ((BigIntVector) root.getVector(0)).setNull(500);
                appender.add(root);
              },
              appender);
      assertThat(original).hasMessageContaining("id");
      assertThat(root.getRowCount()).as("a refused batch is freed too").isZero();
      assertThat(allocator.getAllocatedMemory()).isZero();
    }
    assertThat(appender.metrics()).isNull();
  }

  @Test
  public void aBatchOfAnotherSchemaIsRefusedAndEmptiedWithBatchesInFlight() {
    Schema other = new Schema(required(1, "id", Types.IntegerType.get()));
    FrazilArrowAppender appender =
        taking(org.apache.iceberg.Files.localOutput(new File(temp, "schema.parquet")), Map.of());
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = newRoot(allocator);
        VectorSchemaRoot wrong =
            VectorSchemaRoot.create(IcebergArrowSchema.convert(other), allocator)) {
      fill(root, 0L, 1000);
      appender.add(root);
      ((org.apache.arrow.vector.IntVector) wrong.getVector(0)).setSafe(0, 1);
      wrong.setRowCount(1);
      Throwable original = failLikeIcebergsWriter(() -> appender.add(wrong), appender);
      assertThat(original)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("does not match the writer's schema");
      assertThat(wrong.getRowCount()).isZero();
      assertThat(allocator.getAllocatedMemory()).isZero();
    }
  }

  @Test
  public void batchesOfAnotherRootAllocatorAreEncodedBeforeAddReturnsAndFreed() throws IOException {
    File file = new File(temp, "two-roots.parquet");
    FrazilArrowAppender appender = taking(org.apache.iceberg.Files.localOutput(file), Map.of());
    try (BufferAllocator first = new RootAllocator();
        BufferAllocator second = new RootAllocator();
        VectorSchemaRoot a = newRoot(first);
        VectorSchemaRoot b = newRoot(second)) {
      fill(a, 0L, 100);
      appender.add(a);
      fill(b, 100L, 100);
      appender.add(b);
      assertThat(b.getRowCount()).isZero();
      assertThat(second.getAllocatedMemory()).as("encoded and freed before add returned").isZero();
      fill(a, 200L, 100);
      appender.add(a);
      appender.close();
      assertThat(appender.inlineBatches()).isEqualTo(1L);
      assertThat(first.getAllocatedMemory()).isZero();
    }
    assertThat(appender.metrics().recordCount()).isEqualTo(300L);
    assertThat(ParityHarness.read(file, SCHEMA)).hasSize(300);
  }

  @Test
  public void aBatchWhoseColumnsComeFromTwoRootAllocatorsIsRefusedClearly() {
    FrazilArrowAppender appender =
        taking(org.apache.iceberg.Files.localOutput(new File(temp, "mixed.parquet")), Map.of());
    org.apache.arrow.vector.types.pojo.Schema arrow = IcebergArrowSchema.convert(SCHEMA);
    try (BufferAllocator first = new RootAllocator();
        BufferAllocator second = new RootAllocator();
        VectorSchemaRoot mixed =
            new VectorSchemaRoot(
                List.of(
                    arrow.getFields().get(0).createVector(first),
                    arrow.getFields().get(1).createVector(second)))) {
      fill(mixed, 0L, 10);
      Throwable original = failLikeIcebergsWriter(() -> appender.add(mixed), appender);
      assertThat(original)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("two root allocators");
      assertThat(mixed.getRowCount()).isZero();
      assertThat(first.getAllocatedMemory() + second.getAllocatedMemory()).isZero();
    }
  }

  @Test
  public void theMemoryBudgetCountsTheBatchesTakenAndShedsThem() throws IOException {
    File file = new File(temp, "budgeted.parquet");
    MemoryBudget budget = new MemoryBudget(64L << 10);
    FrazilArrowAppender appender =
        FrazilParquet.write(org.apache.iceberg.Files.localOutput(file))
            .schema(SCHEMA)
            .memoryBudget(budget)
            .buildArrowTakingOwnership();
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = newRoot(allocator)) {
      for (int batch = 0; batch < 20; batch += 1) {
        fill(root, batch * 2000L, 2000);
        appender.add(root);
      }
      appender.close();
      assertThat(allocator.getAllocatedMemory()).isZero();
    }
    assertThat(budget.earlyFlushes()).as("row groups closed by the budget").isPositive();
    assertThat(ParityHarness.footer(file).getBlocks()).hasSizeGreaterThan(1);
    assertThat(ParityHarness.read(file, SCHEMA)).hasSize(40_000);
  }

  // ---------------------------------------------------------------------------------------------

  private static FrazilArrowAppender taking(OutputFile file, Map<String, String> props) {
    return FrazilParquet.write(file).schema(SCHEMA).setAll(props).buildArrowTakingOwnership();
  }

  private static VectorSchemaRoot newRoot(BufferAllocator allocator) {
    return VectorSchemaRoot.create(IcebergArrowSchema.convert(SCHEMA), allocator);
  }

  /**
   * Fills {@code root} with ids {@code first ..} and their strings, in new buffers as a caller does
   * after handing its last batch over (Arrow's rule after a transfer: allocate before refilling).
   */
  private static void fill(VectorSchemaRoot root, long first, int rows) {
    root.allocateNew();
    BigIntVector ids = (BigIntVector) root.getVector(0);
    VarCharVector strings = (VarCharVector) root.getVector(1);
    for (int i = 0; i < rows; i += 1) {
      long id = first + i;
      ids.setSafe(i, id);
      if (id % 7 == 0) {
        strings.setNull(i);
      } else {
        strings.setSafe(i, ("value " + id).getBytes(StandardCharsets.UTF_8));
      }
    }
    root.setRowCount(rows);
  }

  /** Iceberg's handling of a failed add (see {@link IcebergWriterFailure}). */
  private static Throwable failLikeIcebergsWriter(Runnable add, FrazilArrowAppender appender) {
    Throwable original = IcebergWriterFailure.afterFailedAdd(add, appender::close);
    assertThat(original.getSuppressed()[original.getSuppressed().length - 1])
        .isInstanceOf(IOException.class)
        .hasNoCause()
        .hasMessageContaining("an earlier write failed");
    return original;
  }
}

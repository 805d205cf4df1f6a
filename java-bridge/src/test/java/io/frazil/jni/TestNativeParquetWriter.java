package io.frazil.jni;

import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.frazil.arrow.IcebergArrowSchema;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongUnaryOperator;
import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The JNI boundary: every failure is a specific Java exception and the JVM keeps running. */
public class TestNativeParquetWriter {
  private static final Schema SCHEMA = new Schema(required(1, "id", Types.LongType.get()));

  private BufferAllocator allocator;

  @BeforeEach
  public void before() {
    this.allocator = new RootAllocator();
  }

  @AfterEach
  public void after() {
    assertThat(allocator.getAllocatedMemory()).as("Arrow bytes left allocated").isZero();
    allocator.close();
    assertThat(NativeParquetWriter.liveWriterCount()).as("native writers left open").isZero();
  }

  private NativeParquetWriter open(org.apache.arrow.vector.types.pojo.Schema arrowSchema) {
    try (ArrowSchema exported = ArrowSchema.allocateNew(allocator)) {
      Data.exportSchema(allocator, arrowSchema, null, exported);
      return NativeParquetWriter.open(exported.memoryAddress(), "{}", Collections.emptyMap());
    }
  }

  private long write(NativeParquetWriter writer, VectorSchemaRoot root) {
    try (ArrowArray array = ArrowArray.allocateNew(allocator)) {
      Data.exportVectorSchemaRoot(allocator, root, null, array);
      return writer.writeBatch(array.memoryAddress(), 0);
    }
  }

  /** A batch of {@link #SCHEMA} holding ids 0..count-1. */
  private VectorSchemaRoot ids(int count) {
    return ids(count, i -> i);
  }

  /** A batch of {@link #SCHEMA} whose row {@code i} holds {@code id.applyAsLong(i)}. */
  private VectorSchemaRoot ids(int count, LongUnaryOperator id) {
    VectorSchemaRoot root = VectorSchemaRoot.create(IcebergArrowSchema.convert(SCHEMA), allocator);
    BigIntVector ids = (BigIntVector) root.getVector(0);
    for (int i = 0; i < count; i += 1) {
      ids.setSafe(i, id.applyAsLong(i));
    }
    root.setRowCount(count);
    return root;
  }

  @Test
  public void versionMatchesTheJar() {
    NativeLoader.load();
    assertThat(NativeParquetWriter.nativeVersion()).isEqualTo(NativeLoader.javaVersion());
  }

  @Test
  public void writesAndFinishesAFile() {
    try (NativeParquetWriter writer = open(IcebergArrowSchema.convert(SCHEMA));
        VectorSchemaRoot root = ids(100)) {
      assertThat(write(writer, root)).isPositive();
      NativeFileSummary summary = writer.finish();
      assertThat(summary.recordCount()).isEqualTo(100);
      assertThat(summary.encodeNanos()).as("native encode time").isPositive();
      long drained = 0;
      byte[] buffer = new byte[1000];
      int n;
      while ((n = writer.drain(buffer)) > 0) {
        drained += n;
      }
      assertThat(drained).isEqualTo(summary.fileSize());
      assertThat(summary.splitOffsets()).containsExactly(4L);
    }
  }

  @Test
  public void allocatedBytesRiseWhileAWriterHoldsMemory() {
    NativeLoader.load();
    int rows = 1 << 20;
    try (NativeParquetWriter writer = open(IcebergArrowSchema.convert(SCHEMA));
        VectorSchemaRoot root = ids(rows, i -> i * 0x9E3779B97F4A7C15L)) {
      write(writer, root);
      // The open writer holds its row group in progress: about 8 bytes a row, since scrambled ids
      // neither compress nor fit a dictionary. The total lags by up to 64 KiB per live native
      // thread (each thread flushes its count in steps), and work done on encoder threads may not
      // be flushed yet, so a small file can read as 0 here: hold megabytes and allow half.
      assertThat(NativeParquetWriter.allocatedBytes()).isGreaterThan(rows * 8L / 2);
    }
  }

  @Test
  public void nullInNonNullableColumnIsRejected() {
    org.apache.arrow.vector.types.pojo.Schema arrowSchema = IcebergArrowSchema.convert(SCHEMA);
    try (NativeParquetWriter writer = open(arrowSchema);
        VectorSchemaRoot root = VectorSchemaRoot.create(arrowSchema, allocator)) {
      BigIntVector ids = (BigIntVector) root.getVector(0);
      ids.setSafe(0, 1);
      ids.setNull(1);
      root.setRowCount(2);
      assertThatThrownBy(() -> write(writer, root))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("id");
    }
  }

  @Test
  public void unsupportedArrowTypeIsRejected() {
    Field tiny =
        new Field(
            "tiny",
            new FieldType(false, new ArrowType.Int(8, true), null, Map.of("PARQUET:field_id", "1")),
            null);
    org.apache.arrow.vector.types.pojo.Schema arrowSchema =
        new org.apache.arrow.vector.types.pojo.Schema(java.util.List.of(tiny));
    assertThatThrownBy(() -> open(arrowSchema))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("tiny");
  }

  @Test
  public void fieldWithoutIdIsRejected() {
    Field noId = new Field("x", new FieldType(false, new ArrowType.Int(64, true), null), null);
    org.apache.arrow.vector.types.pojo.Schema arrowSchema =
        new org.apache.arrow.vector.types.pojo.Schema(java.util.List.of(noId));
    assertThatThrownBy(() -> open(arrowSchema))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PARQUET:field_id");
  }

  @Test
  public void closedWriterRefusesCalls() {
    NativeParquetWriter writer = open(IcebergArrowSchema.convert(SCHEMA));
    writer.close();
    writer.close(); // a second close is a no-op
    assertThat(writer.isOpen()).isFalse();
    assertThatThrownBy(() -> writer.writeBatch(0, 0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(writer::finish).isInstanceOf(IllegalStateException.class);
  }

  @Test
  public void freedHandleIsRejectedByNativeCode() {
    NativeLoader.load();
    long handle;
    try (ArrowSchema exported = ArrowSchema.allocateNew(allocator)) {
      Data.exportSchema(allocator, IcebergArrowSchema.convert(SCHEMA), null, exported);
      handle =
          NativeParquetWriter.open(
              exported.memoryAddress(),
              "{}".getBytes(StandardCharsets.UTF_8),
              NativeParquetWriter.encodeProperties(Map.of()));
    }
    NativeParquetWriter.free(handle);
    NativeParquetWriter.free(handle); // double free is ignored, not a crash
    assertThatThrownBy(() -> NativeParquetWriter.estimatedLength(handle))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not live");
    assertThatThrownBy(() -> NativeParquetWriter.close(0))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  public void manyFreshThreadsOpenWritersAtOnce() throws Exception {
    // Each new thread's first native allocation initializes allocator thread state; doing that
    // on many threads at once once crashed the JVM (mimalloc v3 in a dlopen'ed library).
    int threads = 32;
    java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
    java.util.List<Thread> workers = new java.util.ArrayList<>();
    java.util.List<Throwable> failures =
        java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    for (int t = 0; t < threads; t += 1) {
      Thread worker =
          new Thread(
              () -> {
                try {
                  start.await();
                  writesAndFinishesAFile();
                } catch (Throwable e) {
                  failures.add(e);
                }
              });
      worker.start();
      workers.add(worker);
    }
    start.countDown();
    for (Thread worker : workers) {
      worker.join();
    }
    assertThat(failures).isEmpty();
  }

  /**
   * The panic export is only in the test build of the library ({@code native/test-hooks}: every
   * export of the release library plus {@link NativeTestHooks}), so a child JVM loads that build in
   * place of the bundled one and runs {@link PanicProbe}: a real Rust panic through the real JNI
   * error mapping, three times, then a file from the same library. A crash fails this test with the
   * child's output instead of taking the test JVM down.
   */
  @Test
  public void panicBecomesAJavaExceptionAndTheJvmLivesOn() throws Exception {
    Path library = Paths.get(System.getProperty("frazil.test.hooks.library", ""));
    assertThat(library)
        .as("the test build of the library (`make native-test-hooks`)")
        .isRegularFile();
    File log = Files.createTempFile("frazil-panic-probe", ".log").toFile();
    Process process =
        new ProcessBuilder(
                List.of(
                    Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xcheck:jni",
                    "--add-opens=java.base/java.nio=ALL-UNNAMED",
                    "-D" + NativeLoader.PATH_PROPERTY + "=" + library.toAbsolutePath(),
                    "-cp",
                    System.getProperty("java.class.path"),
                    PanicProbe.class.getName()))
            .redirectErrorStream(true)
            .redirectOutput(log)
            .start();
    try {
      assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("the probe finished").isTrue();
    } finally {
      process.destroyForcibly();
    }
    String output = Files.readString(log.toPath(), StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(output).isZero();
    for (int i = 1; i <= 3; i += 1) {
      assertThat(output)
          .contains(
              "panic " + i + ": " + NativeWriterException.class.getName() + ": native panic: boom");
    }
    assertThat(output).contains("file written after the panics").doesNotContain("FATAL");
    Files.delete(log.toPath());
  }
}

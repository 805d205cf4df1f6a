package io.frazil.iceberg;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.frazil.arrow.IcebergArrowSchema;
import io.frazil.jni.NativeParquetWriter;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.iceberg.Files;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input and failing outputs become specific Java exceptions; nothing leaks or crashes. */
public class TestFailureHandling {
  private static final Schema SCHEMA =
      new Schema(required(1, "id", Types.LongType.get()), optional(2, "s", Types.StringType.get()));

  @TempDir private File temp;

  @AfterEach
  public void after() {
    assertThat(ArrowMemory.allocatedBytes()).as("Arrow bytes left allocated").isZero();
    assertThat(NativeParquetWriter.liveWriterCount()).as("native writers left open").isZero();
  }

  private FrazilParquetAppender appender(OutputFile file) {
    return FrazilParquet.write(file).schema(SCHEMA).batchRows(4).buildRowData();
  }

  private static RowData row(Long id, String s) {
    return GenericRowData.of(id, s == null ? null : StringData.fromString(s));
  }

  @Test
  public void nullInRequiredColumnIsRejected() throws IOException {
    FrazilParquetAppender appender = appender(Files.localOutput(new File(temp, "a.parquet")));
    appender.add(row(1L, "x"));
    assertThatThrownBy(() -> appender.add(row(null, "y")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("id");
    // A failed appender refuses further rows, naming the failure without referencing it, and
    // never finishes a file.
    assertThatThrownBy(() -> appender.add(row(2L, "z")))
        .isInstanceOf(IllegalStateException.class)
        .hasNoCause()
        .hasMessageContaining("Null value in required field 'id'");
    assertThatThrownBy(appender::close)
        .isInstanceOf(IOException.class)
        .hasMessageContaining("an earlier write failed");
  }

  /** Iceberg's handling of a failed add (see {@link IcebergWriterFailure}), close failing once. */
  private static Throwable failLikeIcebergsWriter(
      Runnable add, IcebergWriterFailure.Closer appender) {
    Throwable original = IcebergWriterFailure.afterFailedAdd(add, appender);
    assertThat(original.getSuppressed()).as("close() failed once").hasSize(1);
    Throwable closeFailure = original.getSuppressed()[0];
    assertThat(closeFailure)
        .isInstanceOf(IOException.class)
        .hasNoCause()
        .hasMessageContaining("an earlier write failed")
        .hasMessageContaining(original.getMessage());
    return original;
  }

  @Test
  public void closeAfterAFailedRowNamesTheFailureWithoutACycle() {
    FrazilParquetAppender appender = appender(Files.localOutput(new File(temp, "cycle.parquet")));
    appender.add(row(1L, "x"));
    Throwable original =
        failLikeIcebergsWriter(() -> appender.add(row(null, "y")), appender::close);
    assertThat(original)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Null value in required field 'id'");
    assertThat(appender.metrics()).as("no metrics for a failed file").isNull();
  }

  @Test
  public void closeAfterANativeFailureNamesItWithoutACycle() {
    FrazilParquetAppender appender =
        FrazilParquet.write(Files.localOutput(new File(temp, "native-cycle.parquet")))
            .schema(SCHEMA)
            .set("write.parquet.page-version", "v3")
            .buildRowData();
    Throwable original = failLikeIcebergsWriter(() -> appender.add(row(1L, "x")), appender::close);
    assertThat(original).hasMessageContaining("write.parquet.page-version");
  }

  @Test
  public void arrowBatchOfAnotherSchemaIsRejectedAndItsCloseFailsWithoutACycle()
      throws IOException {
    Schema other = new Schema(required(1, "id", Types.IntegerType.get()));
    FrazilArrowAppender appender =
        FrazilParquet.write(Files.localOutput(new File(temp, "arrow-cycle.parquet")))
            .schema(SCHEMA)
            .buildArrow();
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root =
            VectorSchemaRoot.create(IcebergArrowSchema.convert(other), allocator)) {
      ((IntVector) root.getVector(0)).setSafe(0, 1);
      root.setRowCount(1);
      // The first batch fails before any row reaches the encoder: close() must still refuse to
      // report a file (it used to return empty metrics for the file it had created).
      Throwable original = failLikeIcebergsWriter(() -> appender.add(root), appender::close);
      assertThat(original)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("does not match the writer's schema");
      assertThat(appender.metrics()).isNull();
    }
  }

  @Test
  public void outOfMemoryWhileCopyingARowFailsTheWriteAsAnOrdinaryException() {
    FrazilParquetAppender appender = appender(Files.localOutput(new File(temp, "oom.parquet")));
    appender.add(row(1L, "x"));
    // A row whose string getter runs out of memory halfway through the row's copy.
    RowData starved =
        (RowData)
            java.lang.reflect.Proxy.newProxyInstance(
                RowData.class.getClassLoader(),
                new Class<?>[] {RowData.class},
                (proxy, method, args) -> {
                  switch (method.getName()) {
                    case "getArity":
                      return 2;
                    case "isNullAt":
                      return false;
                    case "getLong":
                      return 2L;
                    case "getString":
                      throw new OutOfMemoryError("injected: Java heap space");
                    default:
                      throw new UnsupportedOperationException(method.getName());
                  }
                });
    // An Error would be fatal for some Flink paths; the task must just fail.
    Throwable original = failLikeIcebergsWriter(() -> appender.add(starved), appender::close);
    assertThat(original)
        .isInstanceOf(WriterMemoryException.class)
        .hasMessageContaining("Out of memory while adding a row")
        .hasCauseInstanceOf(OutOfMemoryError.class);
  }

  @Test
  public void aJvmWithoutArrowsAddOpensGetsOneMessageThatSaysHowToFixIt() throws Exception {
    Process process =
        new ProcessBuilder(
                System.getProperty("java.home") + "/bin/java",
                "-cp",
                System.getProperty("java.class.path"),
                AddOpensProbe.class.getName())
            .redirectErrorStream(true)
            .start();
    assertThat(process.waitFor(120, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    String output =
        new String(
            process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(output).isZero();
    assertThat(output)
        .as("the real cause is attached, not replaced by a leak report")
        .contains("add: java.lang.IllegalStateException: Frazil cannot hand Arrow batches")
        .contains(ArrowMemory.ADD_OPENS)
        .contains("append it to env.java.opts.all")
        .contains("cause: class java.lang.")
        .doesNotContain("Memory was leaked")
        .contains("close: java.io.IOException: Cannot finish")
        .contains("arrow bytes: 0")
        .contains("files left: 0");
  }

  @Test
  public void arrowBatchWhoseOffsetsLeaveTheirBufferIsRefusedBeforeNativeCodeReadsIt()
      throws IOException {
    FrazilArrowAppender appender =
        FrazilParquet.write(Files.localOutput(new File(temp, "forged.parquet")))
            .schema(SCHEMA)
            .buildArrow();
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root =
            VectorSchemaRoot.create(IcebergArrowSchema.convert(SCHEMA), allocator)) {
      org.apache.arrow.vector.BigIntVector ids =
          (org.apache.arrow.vector.BigIntVector) root.getVector(0);
      org.apache.arrow.vector.VarCharVector strings =
          (org.apache.arrow.vector.VarCharVector) root.getVector(1);
      for (int i = 0; i < 3; i += 1) {
        ids.setSafe(i, i);
        strings.setSafe(i, ("v" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      root.setRowCount(3);
      // A faulty producer: the last string claims to end 1 MiB into a buffer of a few bytes.
      strings.getOffsetBuffer().setInt(3L * Integer.BYTES, 1 << 20);
      Throwable original = failLikeIcebergsWriter(() -> appender.add(root), appender::close);
      assertThat(original)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("inconsistent in column 's'");
    }
    assertThat(NativeParquetWriter.liveWriterCount()).isZero();
  }

  @Test
  public void addAfterCloseIsRejected() throws IOException {
    FrazilParquetAppender appender = appender(Files.localOutput(new File(temp, "b.parquet")));
    appender.add(row(1L, "x"));
    appender.close();
    appender.close(); // idempotent
    assertThatThrownBy(() -> appender.add(row(2L, "y")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThat(appender.metrics().recordCount()).isEqualTo(1L);
  }

  @Test
  public void zeroRowsCreateNoFile() throws IOException {
    File file = new File(temp, "empty.parquet");
    FrazilParquetAppender appender = appender(Files.localOutput(file));
    appender.close();
    assertThat(file).doesNotExist();
    assertThat(appender.length()).isZero();
    assertThat(appender.metrics().recordCount()).isZero();
  }

  @Test
  public void unsupportedCodecIsRejected() {
    FrazilParquetAppender appender =
        FrazilParquet.write(Files.localOutput(new File(temp, "c.parquet")))
            .schema(SCHEMA)
            .set("write.parquet.compression-codec", "brotli")
            .buildRowData();
    assertThatThrownBy(() -> appender.add(row(1L, "x")))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("brotli");
    assertThatThrownBy(appender::close).isInstanceOf(IOException.class);
  }

  @Test
  public void badPageVersionIsRejected() {
    FrazilParquetAppender appender =
        FrazilParquet.write(Files.localOutput(new File(temp, "d.parquet")))
            .schema(SCHEMA)
            .set("write.parquet.page-version", "v3")
            .buildRowData();
    assertThatThrownBy(() -> appender.add(row(1L, "x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("write.parquet.page-version");
    assertThatThrownBy(appender::close).isInstanceOf(IOException.class);
  }

  @Test
  public void unsupportedIcebergTypeIsRejected() {
    Schema variant = new Schema(required(1, "v", Types.VariantType.get()));
    FrazilParquetAppender appender =
        FrazilParquet.write(Files.localOutput(new File(temp, "e.parquet")))
            .schema(variant)
            .flinkType(
                org.apache.flink.table.types.logical.RowType.of(
                    new org.apache.flink.table.types.logical.VarBinaryType()))
            .buildRowData();
    assertThatThrownBy(() -> appender.add(GenericRowData.of(new byte[] {1})))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("v");
    assertThatThrownBy(appender::close).isInstanceOf(IOException.class);
  }

  @Test
  public void failingOutputStreamSurfacesAndReportsNothing() throws IOException {
    OutputFile failing = new FailingOutputFile(new File(temp, "f.parquet"));
    FrazilParquetAppender appender = appender(failing);
    // Small batches reach native code, but a row group is only flushed on close.
    for (long i = 0; i < 10; i += 1) {
      appender.add(row(i, "value " + i));
    }
    assertThatThrownBy(appender::close)
        .isInstanceOfAny(IOException.class, UncheckedIOException.class)
        .hasStackTraceContaining("disk full");
    assertThat(appender.metrics()).as("no metrics for a file that failed").isNull();
  }
}

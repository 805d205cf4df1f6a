package io.frazil.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.frazil.jni.NativeParquetWriter;
import io.frazil.testkit.ExceptionGraph;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.iceberg.Files;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.relocated.com.google.common.collect.ImmutableMap;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The process-wide memory budget: many open files shed row groups early and lose nothing. */
class TestMemoryBudget {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "part", Types.IntegerType.get()),
          Types.NestedField.optional(3, "note", Types.StringType.get()));
  private static final MetricsConfig METRICS = MetricsConfig.getDefault();
  private static final Map<String, String> ZSTD =
      ImmutableMap.of("write.parquet.compression-codec", "zstd");
  private static final long MIB = 1L << 20;

  @TempDir Path temp;

  @AfterEach
  void everythingIsReturned() {
    assertThat(ArrowMemory.allocatedBytes()).isZero();
    assertThat(NativeParquetWriter.liveWriterCount()).isZero();
  }

  @Test
  void budgetSettingsAreSizesSharesOfTheHeapOrOff() {
    Runtime runtime = Runtime.getRuntime();
    assertThat(MemoryBudget.parse("256m", runtime)).isEqualTo(256 * MIB);
    assertThat(MemoryBudget.parse(" 1G ", runtime)).isEqualTo(1024 * MIB);
    assertThat(MemoryBudget.parse("64k", runtime)).isEqualTo(64 * 1024);
    assertThat(MemoryBudget.parse("1048576", runtime)).isEqualTo(MIB);
    assertThat(MemoryBudget.parse("25%", runtime)).isEqualTo(runtime.maxMemory() / 4);
    assertThat(MemoryBudget.parse("off", runtime)).isZero();
    for (String bad : new String[] {"lots", "-5m", "0%", "12q", ""}) {
      assertThatThrownBy(() -> MemoryBudget.parse(bad, runtime))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(MemoryBudget.PROPERTY)
          .hasMessageContaining(bad);
    }
    assertThat(MemoryBudget.process().limitBytes())
        .isEqualTo(MemoryBudget.parse(MemoryBudget.DEFAULT_BUDGET, runtime));
  }

  @Test
  void manyOpenFilesStayNearTheBudgetAndMatchStock() throws IOException {
    int files = 64;
    int rows = 160_000;
    MemoryBudget budget = new MemoryBudget(4 * MIB);
    FanOut budgeted = writeInterleaved("budgeted", files, rows, budget);
    FanOut unbounded = writeInterleaved("unbounded", files, rows, null);

    assertThat(budget.earlyFlushes()).isGreaterThan(files);
    // A file that holds next to nothing is not worth a row group: no shedding at every row (a
    // 64 KiB output buffer kept per file once made 64 files shed on each of 160,000 rows).
    assertThat(budget.earlyFlushes()).isLessThan(rows / 50);
    // Without a budget the same files hold several times more (about 3 times: 12.9 vs 4.2 MB
    // since string buffers grow with their data only); with it, the process stays near the budget
    // (it is checked when a file's memory grows, so it can be passed by one growth).
    assertThat(unbounded.peakHeld).isGreaterThan(2 * budgeted.peakHeld);
    assertThat(budgeted.peakHeld).isLessThan(3 * budget.limitBytes());

    for (int f = 0; f < files; f += 1) {
      List<RowData> partition = partitionRows(f, files, rows);
      ParityHarness.Written stock =
          ParityHarness.writeStock(
              temp.resolve("stock-" + f + ".parquet").toFile(), SCHEMA, partition, ZSTD, METRICS);
      ParityHarness.Written frazil = budgeted.written.get(f);
      assertThat(ParityHarness.read(frazil.file, SCHEMA))
          .isEqualTo(ParityHarness.read(stock.file, SCHEMA));
      ParityAssertions.assertSameMetrics(stock.metrics, frazil.metrics);
      ParityAssertions.assertImportMetricsAgree(SCHEMA, frazil, METRICS);
      List<BlockMetaData> rowGroups = ParityHarness.footer(frazil.file).getBlocks();
      assertThat(rowGroups).as("row groups closed early").hasSizeGreaterThan(1);
      assertThat(frazil.splitOffsets).isEqualTo(rowGroupStarts(rowGroups));
      assertThat(frazil.length).isEqualTo(frazil.file.length());
      assertThat(ParityHarness.footer(unbounded.written.get(f).file).getBlocks()).hasSize(1);
    }
  }

  @Test
  void underMemoryPressureFilesHoldTheirRowsPastTheFirstPageAndWriteTheSameBytes()
      throws IOException {
    int files = 16;
    int rows = 240_000;
    // 15,000 rows a file; 256 KiB pages: a file's first page ends at about 5,000 rows (by the
    // note column's bytes), then its rows are held up to 512 KiB or 20,000 rows.
    Map<String, String> properties =
        ImmutableMap.<String, String>builder()
            .putAll(ZSTD)
            .put("write.parquet.page-size-bytes", String.valueOf(256 * 1024))
            .buildOrThrow();
    FanOut eager =
        writeInterleaved("eager", files, rows, null, properties, TestMemoryBudget::repeatingRow);
    assertThat(eager.pressureSeen).as("no budget, no pressure").isFalse();
    long episodesBefore = MemoryBudget.pressureEpisodes();
    // Half of what the files held without a budget is short: the files hold their rows instead.
    MemoryBudget budget = new MemoryBudget(eager.peakHeld);
    FanOut held =
        writeInterleaved("held", files, rows, budget, properties, TestMemoryBudget::repeatingRow);
    assertThat(held.pressureSeen).isTrue();
    assertThat(MemoryBudget.pressureEpisodes()).isGreaterThan(episodesBefore);
    assertThat(NativeParquetWriter.underMemoryPressure())
        .as("the last file out ends the pressure")
        .isFalse();
    assertThat(MemoryBudget.underPressure()).isFalse();
    assertThat(budget.earlyFlushes()).as("holding kept the files within the budget").isZero();
    // Most of what these files hold is their Arrow batches (16.4 against 14.3 MB when written).
    assertThat(held.peakHeld).isLessThan(eager.peakHeld);

    for (int f = 0; f < files; f += 1) {
      ParityHarness.Written frazil = held.written.get(f);
      assertThat(java.nio.file.Files.readAllBytes(frazil.file.toPath()))
          .as("file %s", f)
          .isEqualTo(java.nio.file.Files.readAllBytes(eager.written.get(f).file.toPath()));
      assertMatchesStock(frazil, f, files, rows, properties);
    }
  }

  @Test
  void underMemoryPressureBatchesAreCutSmallSoFilesKeepTheirRowGroups() throws IOException {
    int files = 96;
    int rows = files * 2_000;
    // 2,000 rows a file: far from a half-megabyte batch, so without pressure every row of every
    // file waits in Arrow until the file closes.
    Map<String, String> properties = ZSTD;
    FanOut eager =
        writeInterleaved("eager", files, rows, null, properties, TestMemoryBudget::repeatingRow);
    assertThat(eager.pressureSeen).isFalse();
    // Three quarters of what the files held without a budget: once pressure begins at half of it,
    // their batches are handed over at 64 KiB, native code holds the rows compactly, and the
    // files stay within the budget instead of closing row groups early.
    MemoryBudget budget = new MemoryBudget(eager.peakHeld * 3 / 4);
    FanOut pressed =
        writeInterleaved(
            "pressed", files, rows, budget, properties, TestMemoryBudget::repeatingRow);
    assertThat(pressed.pressureSeen).isTrue();
    assertThat(budget.earlyFlushes()).as("no row group closed early").isZero();
    assertThat(pressed.peakHeld).isLessThanOrEqualTo(budget.limitBytes());
    assertThat(MemoryBudget.underPressure()).as("the last file out ends the pressure").isFalse();

    for (int f = 0; f < files; f += 1) {
      ParityHarness.Written frazil = pressed.written.get(f);
      assertThat(java.nio.file.Files.readAllBytes(frazil.file.toPath()))
          .as("file %s", f)
          .isEqualTo(java.nio.file.Files.readAllBytes(eager.written.get(f).file.toPath()));
      if (f % 8 == 0) {
        assertMatchesStock(frazil, f, files, rows, properties);
      }
    }
  }

  @Test
  void aTableCanKeepItsFilesOutOfTheBudget() throws IOException {
    File file = temp.resolve("opted-out.parquet").toFile();
    FrazilParquetAppender appender =
        FrazilParquet.write(Files.localOutput(file))
            .schema(SCHEMA)
            .set(MemoryBudget.TABLE_PROPERTY, "false")
            .buildRowData();
    try (FileAppender<RowData> closing = appender) {
      for (RowData row : partitionRows(0, 1, 50_000)) {
        closing.add(row);
      }
    }
    // With the process's budget this file would still be in one row group; the point is that the
    // table property is read: a budget of a few bytes would otherwise split it.
    MemoryBudget tiny = new MemoryBudget(1);
    File budgetedFile = temp.resolve("tiny-budget.parquet").toFile();
    try (FileAppender<RowData> closing =
        FrazilParquet.write(Files.localOutput(budgetedFile))
            .schema(SCHEMA)
            .memoryBudget(tiny)
            .buildRowData()) {
      for (RowData row : partitionRows(0, 1, 50_000)) {
        closing.add(row);
      }
    }
    assertThat(ParityHarness.footer(file).getBlocks()).hasSize(1);
    assertThat(ParityHarness.footer(budgetedFile).getBlocks()).hasSizeGreaterThan(1);
    assertThat(tiny.earlyFlushes()).isPositive();
    assertThat(ParityHarness.read(budgetedFile, SCHEMA))
        .isEqualTo(ParityHarness.read(file, SCHEMA));
  }

  @Test
  void aFileOfAnotherThreadShedsAtItsNextRow() throws Exception {
    long baseline = MemoryBudget.usedBytes();
    MemoryBudget budget = new MemoryBudget(baseline + 64 * MIB);
    ExecutorService other = Executors.newSingleThreadExecutor();
    File big = temp.resolve("other-thread.parquet").toFile();
    File small = temp.resolve("this-thread.parquet").toFile();
    FrazilParquetAppender held = null;
    try {
      held =
          other
              .submit(
                  () -> {
                    FrazilParquetAppender appender =
                        FrazilParquet.write(Files.localOutput(big))
                            .schema(SCHEMA)
                            .memoryBudget(budget)
                            .buildRowData();
                    // Fill it to 56 of the 64 MiB: once its encoders' scratch memory is freed it
                    // still holds more than the 48 MiB the budget sheds down to, and its growth
                    // steps stay below the limit.
                    int id = 0;
                    while (MemoryBudget.usedBytes() < baseline + 56 * MIB) {
                      appender.add(wideRow(id));
                      id += 1;
                    }
                    return appender;
                  })
              .get();
      long before = budget.earlyFlushes();
      assertThat(before).as("the other thread's file stayed within the budget").isZero();
      try (FrazilParquetAppender appender =
          FrazilParquet.write(Files.localOutput(small))
              .schema(SCHEMA)
              .memoryBudget(budget)
              .buildRowData()) {
        // Past the budget this thread sheds its own file, which is not enough: the other thread's
        // file, the largest, is asked to shed, never touched from here.
        for (int id = 0; budget.earlyFlushes() == before && id < 1_000_000; id++) {
          appender.add(wideRow(id));
        }
        long afterThisThread = budget.earlyFlushes();
        assertThat(afterThisThread).isGreaterThan(before);
        FrazilParquetAppender asked = held;
        other
            .submit(
                () -> {
                  // This row goes into the row group the shed closes; the next starts another.
                  asked.add(wideRow(-1));
                  asked.add(wideRow(-2));
                  asked.close();
                  return null;
                })
            .get();
        assertThat(budget.earlyFlushes()).isGreaterThan(afterThisThread);
      }
      assertThat(ParityHarness.footer(big).getBlocks()).hasSizeGreaterThan(1);
    } finally {
      FrazilParquetAppender toClose = held;
      if (toClose != null) {
        other
            .submit(
                () -> {
                  toClose.close();
                  return null;
                })
            .get();
      }
      other.shutdownNow();
    }
  }

  @Test
  void aFileThatFailsToShedFailsOnItsOwnNextCall() throws IOException {
    MemoryBudget tiny = new MemoryBudget(1);
    File healthyFile = temp.resolve("healthy.parquet").toFile();
    OutputFile broken = new FailingOutputFile(temp.resolve("broken.parquet").toFile());
    FrazilParquetAppender failing =
        FrazilParquet.write(broken).schema(SCHEMA).memoryBudget(tiny).buildRowData();
    FrazilParquetAppender healthy =
        FrazilParquet.write(Files.localOutput(healthyFile))
            .schema(SCHEMA)
            .memoryBudget(tiny)
            .buildRowData();
    // The failing file's first shed writes to its stream and fails; the failure is its own.
    assertThatThrownBy(
            () -> {
              for (int id = 0; id < 10_000; id++) {
                failing.add(row(id, 0));
              }
            })
        .hasRootCauseInstanceOf(IOException.class)
        .hasRootCauseMessage("disk full");
    for (int id = 0; id < 10_000; id++) {
      healthy.add(row(id, 1));
    }
    healthy.close();
    assertThat(healthy.metrics().recordCount()).isEqualTo(10_000L);
    assertThatThrownBy(() -> failing.add(row(1, 0))).isInstanceOf(IllegalStateException.class);
    IOException closed = null;
    try {
      failing.close();
    } catch (IOException e) {
      closed = e;
    }
    assertThat(closed).as("a failed file never reports metrics").isNotNull();
    ExceptionGraph.assertAcyclic(closed);
  }

  /**
   * File {@code f} of {@code files} interleaved files of repeating rows matches stock Iceberg's.
   */
  private void assertMatchesStock(
      ParityHarness.Written frazil, int f, int files, int rows, Map<String, String> properties)
      throws IOException {
    List<RowData> partition = new ArrayList<>();
    for (int i = f; i < rows; i += files) {
      partition.add(repeatingRow(i, f));
    }
    ParityHarness.Written stock =
        ParityHarness.writeStock(
            temp.resolve("stock-" + f + ".parquet").toFile(),
            SCHEMA,
            partition,
            properties,
            METRICS);
    assertThat(ParityHarness.read(frazil.file, SCHEMA))
        .isEqualTo(ParityHarness.read(stock.file, SCHEMA));
    ParityAssertions.assertSameMetrics(stock.metrics, frazil.metrics);
    assertThat(frazil.splitOffsets).isEqualTo(stock.splitOffsets);
  }

  /** Files written by one appender each, rows arriving interleaved (row i to file i mod n). */
  private FanOut writeInterleaved(String name, int files, int rows, MemoryBudget budget)
      throws IOException {
    return writeInterleaved(name, files, rows, budget, ZSTD, TestMemoryBudget::row);
  }

  private FanOut writeInterleaved(
      String name,
      int files,
      int rows,
      MemoryBudget budget,
      Map<String, String> properties,
      RowMaker rowMaker)
      throws IOException {
    List<FrazilParquetAppender> appenders = new ArrayList<>();
    List<File> paths = new ArrayList<>();
    for (int f = 0; f < files; f += 1) {
      File file = temp.resolve(name + "-" + f + ".parquet").toFile();
      paths.add(file);
      FrazilParquet.WriteBuilder builder =
          FrazilParquet.write(Files.localOutput(file)).schema(SCHEMA).setAll(properties);
      if (budget != null) {
        builder.memoryBudget(budget);
      } else {
        builder.set(MemoryBudget.TABLE_PROPERTY, "false");
      }
      appenders.add(builder.buildRowData());
    }
    long baseline = MemoryBudget.usedBytes();
    long peak = 0L;
    boolean pressureSeen = false;
    for (int i = 0; i < rows; i += 1) {
      appenders.get(i % files).add(rowMaker.row(i, i % files));
      if (i % 500 == 0) {
        peak = Math.max(peak, MemoryBudget.usedBytes() - baseline);
        pressureSeen |= NativeParquetWriter.underMemoryPressure();
      }
    }
    FanOut result = new FanOut(peak, pressureSeen);
    for (int f = 0; f < files; f += 1) {
      FrazilParquetAppender appender = appenders.get(f);
      appender.close();
      result.written.add(
          new ParityHarness.Written(
              paths.get(f), appender.metrics(), appender.splitOffsets(), appender.length()));
    }
    return result;
  }

  private interface RowMaker {
    RowData row(long id, int part);
  }

  private static final class FanOut {
    final long peakHeld;
    final boolean pressureSeen;
    final List<ParityHarness.Written> written = new ArrayList<>();

    FanOut(long peakHeld, boolean pressureSeen) {
      this.peakHeld = peakHeld;
      this.pressureSeen = pressureSeen;
    }
  }

  private static List<RowData> partitionRows(int partition, int files, int rows) {
    List<RowData> partitionRows = new ArrayList<>();
    for (int i = partition; i < rows; i += files) {
      partitionRows.add(row(i, partition));
    }
    return partitionRows;
  }

  private static RowData row(long id, int part) {
    String note =
        "note "
            + id
            + " "
            + Long.toHexString(id * 0x9E3779B97F4A7C15L)
            + " ".repeat((int) Math.floorMod(id, 40L));
    return GenericRowData.of(id, id % 97 == 0 ? null : part, StringData.fromString(note));
  }

  /** A row whose note repeats (200 values of about 50 bytes), as dictionary columns do. */
  private static RowData repeatingRow(long id, int part) {
    String note = String.format("note %3d %s", id % 200, "-".repeat(40));
    return GenericRowData.of(id, part, StringData.fromString(note));
  }

  /** A row with about 1 KB of hard-to-compress text, so files grow fast. */
  private static RowData wideRow(long id) {
    StringBuilder note = new StringBuilder(1100);
    long x = id * 0x9E3779B97F4A7C15L + 1;
    while (note.length() < 1000) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
      note.append(Long.toString(x, 36));
    }
    return GenericRowData.of(id, 0, StringData.fromString(note.toString()));
  }

  private static List<Long> rowGroupStarts(List<BlockMetaData> rowGroups) {
    List<Long> starts = new ArrayList<>();
    for (BlockMetaData rowGroup : rowGroups) {
      ColumnChunkMetaData first = rowGroup.getColumns().get(0);
      starts.add(first.getStartingPos());
    }
    return starts;
  }
}

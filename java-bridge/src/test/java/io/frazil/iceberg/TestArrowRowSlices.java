package io.frazil.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.frazil.arrow.RowDataArrowWriter;
import io.frazil.jni.NativeParquetWriter;
import io.frazil.testkit.ParityCases;
import io.frazil.testkit.RowDataGenerator;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.Files;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.relocated.com.google.common.collect.Maps;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The direct path of Arrow rows into {@link FrazilParquetAppender}: rows recorded in {@link
 * ArrowRowOrigin} as rows of an Arrow batch (what {@code ArrowBatchesToRows} does for the writer
 * chained behind it) are written as slices of their batch, and the file must be stock Iceberg's
 * file of the same rows: rows, Parquet schema and footer, every metric.
 */
public class TestArrowRowSlices {
  private static final int BATCH_ROWS = 1000;

  @TempDir private File temp;

  @AfterEach
  public void after() {
    ArrowRowOrigin.current().clear();
    assertThat(ArrowMemory.allocatedBytes()).as("Arrow bytes left allocated").isZero();
    assertThat(NativeParquetWriter.liveWriterCount()).as("native writers left open").isZero();
  }

  static Stream<Arguments> cases() {
    return TestParquetParity.cases();
  }

  @ParameterizedTest(name = "{0} nulls={2} rows={3} props={4} metrics={5}")
  @MethodSource("cases")
  public void slicedRowsMatchStock(
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

    long sliced = FrazilParquetAppender.slicedRows();
    File file = new File(temp, "sliced.parquet");
    FrazilParquetAppender appender = appender(file, schema, props, config);
    try (BufferAllocator allocator = ArrowMemory.newWriterAllocator("test batches")) {
      feed(schema, rows, allocator, List.of(appender), i -> 0, i -> true);
    }
    ParityHarness.Written frazil = written(file, appender);

    assertThat(FrazilParquetAppender.slicedRows() - sliced).isEqualTo(rowCount);
    ParityAssertions.assertSameRows(schema, stock, frazil, rowCount);
    ParityAssertions.assertSameFooter(stock, frazil, props);
    ParityAssertions.assertSameMetrics(stock.metrics, frazil.metrics);
  }

  /**
   * Every way a run ends: rows that must be copied between sliced ones, rows of one batch shared by
   * two files (as partitions share a batch), batch boundaries. Each file is stock's file of its
   * rows, in order.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("schemas")
  public void runsOfSlicedAndCopiedRowsKeepTheirOrder(String name, Schema schema)
      throws IOException {
    List<RowData> rows = new RowDataGenerator(name.hashCode() + 1, 0.2).rows(schema, 5000);
    Map<String, String> props = Map.of("write.parquet.compression-codec", "zstd");
    MetricsConfig config = MetricsConfig.getDefault();
    IntPredicate copied = i -> i % 7 == 3 || (i >= 2100 && i < 2600);
    IntPredicate second = i -> i % 11 == 5 || (i >= 3000 && i < 3500);

    long sliced = FrazilParquetAppender.slicedRows();
    File first = new File(temp, "first.parquet");
    File other = new File(temp, "second.parquet");
    FrazilParquetAppender firstAppender = appender(first, schema, props, config);
    FrazilParquetAppender secondAppender = appender(other, schema, props, config);
    try (BufferAllocator allocator = ArrowMemory.newWriterAllocator("test batches")) {
      feed(
          schema,
          rows,
          allocator,
          List.of(firstAppender, secondAppender),
          i -> second.test(i) ? 1 : 0,
          i -> !copied.test(i));
    }
    ParityHarness.Written firstFile = written(first, firstAppender);
    ParityHarness.Written secondFile = written(other, secondAppender);

    int expectedSliced = 0;
    List<RowData> firstRows = new ArrayList<>();
    List<RowData> secondRows = new ArrayList<>();
    for (int i = 0; i < rows.size(); i++) {
      (second.test(i) ? secondRows : firstRows).add(rows.get(i));
      expectedSliced += copied.test(i) ? 0 : 1;
    }
    assertThat(FrazilParquetAppender.slicedRows() - sliced).isEqualTo(expectedSliced);
    assertMatchesStock(schema, firstRows, firstFile, props, config, "first");
    assertMatchesStock(schema, secondRows, secondFile, props, config, "second");
  }

  static Stream<Arguments> schemas() {
    return ParityCases.schemas().entrySet().stream()
        .map(e -> Arguments.of(e.getKey(), e.getValue()));
  }

  /** A batch of another root allocator cannot be sliced into the writer's: its rows are copied. */
  @Test
  public void rowsOfAnotherRootAllocatorAreCopied() throws IOException {
    Schema schema = io.frazil.testkit.ParitySchemas.PRIMITIVES;
    List<RowData> rows = new RowDataGenerator(5, 0.1).rows(schema, 2500);
    Map<String, String> props = Map.of("write.parquet.compression-codec", "zstd");
    MetricsConfig config = MetricsConfig.getDefault();
    long sliced = FrazilParquetAppender.slicedRows();
    File file = new File(temp, "copied.parquet");
    FrazilParquetAppender appender = appender(file, schema, props, config);
    try (BufferAllocator allocator = new RootAllocator()) {
      feed(schema, rows, allocator, List.of(appender), i -> 0, i -> true);
    }
    ParityHarness.Written frazil = written(file, appender);
    assertThat(FrazilParquetAppender.slicedRows()).isEqualTo(sliced);
    assertMatchesStock(schema, rows, frazil, props, config, "copied");
  }

  private void assertMatchesStock(
      Schema schema,
      List<RowData> rows,
      ParityHarness.Written frazil,
      Map<String, String> props,
      MetricsConfig config,
      String name)
      throws IOException {
    ParityHarness.Written stock =
        ParityHarness.writeStock(
            new File(temp, name + "-stock.parquet"), schema, rows, props, config);
    ParityAssertions.assertSameRows(schema, stock, frazil, rows.size());
    ParityAssertions.assertSameFooter(stock, frazil, props);
    ParityAssertions.assertSameMetrics(stock.metrics, frazil.metrics);
  }

  private static FrazilParquetAppender appender(
      File file, Schema schema, Map<String, String> props, MetricsConfig config) {
    return FrazilParquet.write(Files.localOutput(file))
        .schema(schema)
        .setAll(props)
        .metricsConfig(config)
        .overwrite()
        .buildRowData();
  }

  /**
   * Builds the rows into batches of {@link #BATCH_ROWS} and adds each row to the appender {@code
   * target} picks, recorded as its batch row when {@code recorded} says so, as the Arrow sink's
   * conversion step does; then releases the batch and closes it. Closes the appenders at the end.
   */
  private static void feed(
      Schema schema,
      List<RowData> rows,
      BufferAllocator allocator,
      List<FrazilParquetAppender> appenders,
      java.util.function.IntUnaryOperator target,
      IntPredicate recorded)
      throws IOException {
    ArrowRowOrigin origin = ArrowRowOrigin.current();
    for (int start = 0; start < rows.size(); start += BATCH_ROWS) {
      int end = Math.min(rows.size(), start + BATCH_ROWS);
      // A new batch each time: slices share its buffers while native code encodes them, so a
      // batch is freed after its release, never refilled (ArrowRows' contract).
      try (RowDataArrowWriter batch =
          new RowDataArrowWriter(schema, FlinkSchemaUtil.convert(schema), allocator)) {
        for (RowData row : rows.subList(start, end)) {
          batch.write(row);
        }
        batch.finishBatch();
        ArrowRows arrowRows = new ArrowRows(batch.root(), batch.root().getFieldVectors().size());
        for (int i = start; i < end; i++) {
          if (recorded.test(i)) {
            origin.set(rows.get(i), arrowRows, i - start);
          } else {
            origin.clear();
          }
          appenders.get(target.applyAsInt(i)).add(rows.get(i));
        }
        origin.clear();
        arrowRows.release();
      }
    }
    for (FrazilParquetAppender appender : appenders) {
      appender.close();
    }
  }

  private static ParityHarness.Written written(File file, FrazilParquetAppender appender) {
    return new ParityHarness.Written(
        file, appender.metrics(), appender.splitOffsets(), appender.length());
  }
}

package io.frazil.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.frazil.jni.NativeParquetWriter;
import io.frazil.testkit.ParityCases;
import io.frazil.testkit.ParitySchemas;
import io.frazil.testkit.RowDataGenerator;
import java.io.File;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.relocated.com.google.common.collect.ImmutableMap;
import org.apache.iceberg.relocated.com.google.common.collect.Maps;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The same rows written by stock Iceberg ({@code Parquet.write} with {@code FlinkParquetWriters})
 * and by Frazil must read back equal through Iceberg's generic reader, have equal Parquet schemas
 * and footer metadata, and have equal {@link Metrics} (bounds byte for byte), for every schema ×
 * metrics configuration × writer properties case.
 */
public class TestParquetParity {
  private static final Schema PRIMITIVES = ParitySchemas.PRIMITIVES;

  private static final Map<String, String> ZSTD =
      ImmutableMap.of("write.parquet.compression-codec", "zstd");

  @TempDir private File temp;

  @AfterEach
  public void after() {
    assertThat(ArrowMemory.allocatedBytes()).as("Arrow bytes left allocated").isZero();
    assertThat(NativeParquetWriter.liveWriterCount()).as("native writers left open").isZero();
  }

  /** The matrix the validation tool's file-level group runs too. */
  static Stream<Arguments> cases() {
    return ParityCases.cases().stream()
        .map(
            c ->
                Arguments.of(
                    c.schemaName(),
                    c.schema(),
                    c.nullRate(),
                    c.rows(),
                    c.props(),
                    c.metricsName(),
                    c.metrics()));
  }

  @ParameterizedTest(name = "{0} nulls={2} rows={3} props={4} metrics={5}")
  @MethodSource("cases")
  public void frazilMatchesStock(
      String name,
      Schema schema,
      double nullRate,
      int rowCount,
      Map<String, String> tableProps,
      String configName,
      MetricsConfig config)
      throws IOException {
    List<RowData> rows = new RowDataGenerator(name.hashCode(), nullRate).rows(schema, rowCount);
    // Tables created by Iceberg >= 1.4 persist zstd; without it stock would fall back to gzip.
    Map<String, String> props = Maps.newHashMap(tableProps);
    props.putIfAbsent("write.parquet.compression-codec", "zstd");
    ParityHarness.Written stock =
        ParityHarness.writeStock(new File(temp, "stock.parquet"), schema, rows, props, config);
    ParityHarness.Written frazil =
        ParityHarness.writeFrazil(new File(temp, "frazil.parquet"), schema, rows, props, config);

    ParityAssertions.assertSameRows(schema, stock, frazil, rowCount);
    ParityAssertions.assertSameFooter(stock, frazil, props);
    ParityAssertions.assertSameMetrics(stock.metrics, frazil.metrics);
    ParityAssertions.assertImportMetricsAgree(schema, frazil, config);
  }

  @ParameterizedTest(name = "sort order promotes {0}")
  @MethodSource("sortOrderCases")
  public void sortOrderColumnsArePromoted(String column) throws IOException {
    Schema schema = PRIMITIVES;
    SortOrder order = SortOrder.builderFor(schema).asc(column).build();
    MetricsConfig config =
        MetricsConfig.from(
            ImmutableMap.of("write.metadata.metrics.default", "counts"), schema, order);
    List<RowData> rows = new RowDataGenerator(7, 0.1).rows(schema, 2000);
    ParityHarness.Written stock =
        ParityHarness.writeStock(new File(temp, "s.parquet"), schema, rows, ZSTD, config);
    ParityHarness.Written frazil =
        ParityHarness.writeFrazil(new File(temp, "f.parquet"), schema, rows, ZSTD, config);
    ParityAssertions.assertSameMetrics(stock.metrics, frazil.metrics);
  }

  static Stream<String> sortOrderCases() {
    return Stream.of("s", "l", "dec19");
  }
}

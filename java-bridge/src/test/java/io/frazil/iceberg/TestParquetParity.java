package io.frazil.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.frazil.jni.NativeParquetWriter;
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
import org.apache.iceberg.relocated.com.google.common.collect.Lists;
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
  private static final Schema REQUIRED = ParitySchemas.REQUIRED;
  private static final Schema NESTED = ParitySchemas.NESTED;
  private static final Schema V3_TYPES = ParitySchemas.V3_TYPES;

  private static final Map<String, String> ZSTD =
      ImmutableMap.of("write.parquet.compression-codec", "zstd");

  @TempDir private File temp;

  @AfterEach
  public void after() {
    assertThat(ArrowMemory.allocatedBytes()).as("Arrow bytes left allocated").isZero();
    assertThat(NativeParquetWriter.liveWriterCount()).as("native writers left open").isZero();
  }

  static Stream<Arguments> cases() {
    List<Arguments> cases = Lists.newArrayList();
    Map<String, MetricsConfig> configs =
        ImmutableMap.<String, MetricsConfig>builder()
            .put("default", MetricsConfig.getDefault())
            .put("none", metrics("write.metadata.metrics.default", "none"))
            .put("counts", metrics("write.metadata.metrics.default", "counts"))
            .put("full", metrics("write.metadata.metrics.default", "full"))
            .put("truncate(4)", metrics("write.metadata.metrics.default", "truncate(4)"))
            .put(
                "per-column",
                MetricsConfig.fromProperties(
                    ImmutableMap.of(
                        "write.metadata.metrics.default", "counts",
                        "write.metadata.metrics.column.s", "full",
                        "write.metadata.metrics.column.bin", "truncate(2)",
                        "write.metadata.metrics.column.l", "none",
                        "write.metadata.metrics.column.st.b", "truncate(3)",
                        "write.metadata.metrics.column.points.x", "full")))
            .build();
    Map<String, Schema> schemas =
        ImmutableMap.of(
            "primitives", PRIMITIVES, "required", REQUIRED, "nested", NESTED, "v3", V3_TYPES);
    for (Map.Entry<String, Schema> schema : schemas.entrySet()) {
      for (Map.Entry<String, MetricsConfig> config : configs.entrySet()) {
        cases.add(
            Arguments.of(
                schema.getKey(),
                schema.getValue(),
                0.2,
                3000,
                ImmutableMap.of(),
                config.getKey(),
                config.getValue()));
      }
    }
    // Several row groups, all-null columns, data page v2, other levels and codecs, stats off.
    cases.add(
        Arguments.of(
            "primitives",
            PRIMITIVES,
            0.1,
            20000,
            ImmutableMap.of("write.parquet.row-group-size-bytes", "65536"),
            "default",
            MetricsConfig.getDefault()));
    cases.add(
        Arguments.of(
            "nested",
            NESTED,
            0.1,
            20000,
            ImmutableMap.of("write.parquet.row-group-size-bytes", "65536"),
            "full",
            metrics("write.metadata.metrics.default", "full")));
    cases.add(
        Arguments.of(
            "primitives",
            PRIMITIVES,
            1.0,
            500,
            ImmutableMap.of(),
            "full",
            metrics("write.metadata.metrics.default", "full")));
    cases.add(
        Arguments.of(
            "primitives",
            PRIMITIVES,
            0.3,
            3000,
            ImmutableMap.of(
                "write.parquet.page-version", "v2",
                "write.parquet.compression-level", "9",
                "write.parquet.stats-enabled.column.s", "false",
                "write.parquet.stats-enabled.column.f", "false"),
            "default",
            MetricsConfig.getDefault()));
    cases.add(
        Arguments.of(
            "nested",
            NESTED,
            0.3,
            3000,
            ImmutableMap.of("write.parquet.compression-codec", "gzip"),
            "default",
            MetricsConfig.getDefault()));
    cases.add(
        Arguments.of(
            "primitives",
            PRIMITIVES,
            0.3,
            3000,
            ImmutableMap.of("write.parquet.compression-codec", "snappy"),
            "default",
            MetricsConfig.getDefault()));
    // Per-column settings name the Iceberg column; Parquet knows "odd-name" as "odd_x2Dname"
    // (found by TestRandomizedParity: Frazil used to miss such columns).
    cases.add(
        Arguments.of(
            "primitives-odd-name-settings",
            PRIMITIVES,
            0.3,
            1000,
            ImmutableMap.of(
                "write.parquet.stats-enabled.column.odd-name", "false",
                "write.parquet.bloom-filter-enabled.column.odd-name", "true"),
            "full",
            metrics("write.metadata.metrics.default", "full")));
    return cases.stream();
  }

  private static MetricsConfig metrics(String key, String value) {
    return MetricsConfig.fromProperties(ImmutableMap.of(key, value));
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

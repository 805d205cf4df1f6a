package io.frazil.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.frazil.jni.NativeParquetWriter;
import io.frazil.testkit.ParitySchemas;
import io.frazil.testkit.RowDataGenerator;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.Files;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.iceberg.relocated.com.google.common.collect.ImmutableMap;
import org.apache.iceberg.relocated.com.google.common.collect.Lists;
import org.apache.iceberg.relocated.com.google.common.collect.Maps;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
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

    assertSameRows(schema, stock, frazil, rowCount);
    assertSameFooter(stock, frazil, props);
    assertSameMetrics(stock.metrics, frazil.metrics);
    assertImportMetricsAgree(schema, frazil, config);
  }

  private static void assertSameRows(
      Schema schema, ParityHarness.Written stock, ParityHarness.Written frazil, int rowCount)
      throws IOException {
    List<Record> expected = ParityHarness.read(stock.file, schema);
    List<Record> actual = ParityHarness.read(frazil.file, schema);
    assertThat(expected).hasSize(rowCount);
    assertThat(actual).hasSize(rowCount);
    for (int i = 0; i < rowCount; i += 1) {
      assertThat(actual.get(i)).as("row %s", i).isEqualTo(expected.get(i));
    }
  }

  private static void assertSameFooter(
      ParityHarness.Written stock, ParityHarness.Written frazil, Map<String, String> props)
      throws IOException {
    ParquetMetadata stockFooter = ParityHarness.footer(stock.file);
    ParquetMetadata frazilFooter = ParityHarness.footer(frazil.file);
    MessageType stockSchema = stockFooter.getFileMetaData().getSchema();
    MessageType frazilSchema = frazilFooter.getFileMetaData().getSchema();
    assertThat(frazilSchema.toString()).isEqualTo(stockSchema.toString());
    boolean hasFloats =
        stockSchema.getColumns().stream()
            .map(c -> c.getPrimitiveType().getPrimitiveTypeName())
            .anyMatch(
                t ->
                    t == PrimitiveType.PrimitiveTypeName.FLOAT
                        || t == PrimitiveType.PrimitiveTypeName.DOUBLE);
    assertSameType(stockSchema, frazilSchema, stockSchema.getName(), !hasFloats);
    assertThat(frazilFooter.getFileMetaData().getKeyValueMetaData())
        .isEqualTo(stockFooter.getFileMetaData().getKeyValueMetaData());
    assertThat(frazilFooter.getFileMetaData().getCreatedBy()).startsWith("frazil version ");

    String codec = props.get("write.parquet.compression-codec").toUpperCase(Locale.ROOT);
    Stream.of(stockFooter, frazilFooter)
        .flatMap(footer -> footer.getBlocks().stream())
        .flatMap(block -> block.getColumns().stream())
        .forEach(column -> assertThat(column.getCodec().name()).isEqualTo(codec));

    assertThat(frazil.length).isEqualTo(frazil.file.length());
    assertThat(frazil.splitOffsets).isEqualTo(ParquetUtil.getSplitOffsets(frazilFooter));
    assertThat(frazil.splitOffsets.get(0)).isEqualTo(4L);
    if (stockFooter.getBlocks().size() > 1) {
      assertThat(frazilFooter.getBlocks()).as("row groups").hasSizeGreaterThan(1);
    }
  }

  /**
   * Names, repetition, field ids, physical and logical types must match node by node. Column orders
   * must match too, except that arrow-rs 60 marks float/double leaves IEEE_754_TOTAL_ORDER where
   * parquet-java writes TYPE_DEFINED_ORDER (a documented, accepted difference).
   */
  private static void assertSameType(
      org.apache.parquet.schema.Type expected,
      org.apache.parquet.schema.Type actual,
      String path,
      boolean compareColumnOrders) {
    assertThat(actual.getName()).as("name of %s", path).isEqualTo(expected.getName());
    assertThat(actual.getRepetition())
        .as("repetition of %s", path)
        .isEqualTo(expected.getRepetition());
    assertThat(actual.getId()).as("field id of %s", path).isEqualTo(expected.getId());
    assertThat(actual.getLogicalTypeAnnotation())
        .as("logical type of %s", path)
        .isEqualTo(expected.getLogicalTypeAnnotation());
    assertThat(actual.isPrimitive()).as("kind of %s", path).isEqualTo(expected.isPrimitive());
    if (expected.isPrimitive()) {
      PrimitiveType want = expected.asPrimitiveType();
      PrimitiveType got = actual.asPrimitiveType();
      assertThat(got.getPrimitiveTypeName())
          .as("physical type of %s", path)
          .isEqualTo(want.getPrimitiveTypeName());
      assertThat(got.getTypeLength()).as("length of %s", path).isEqualTo(want.getTypeLength());
      if (compareColumnOrders) {
        assertThat(got.columnOrder()).as("column order of %s", path).isEqualTo(want.columnOrder());
      }
    } else {
      GroupType want = expected.asGroupType();
      GroupType got = actual.asGroupType();
      assertThat(got.getFieldCount()).as("children of %s", path).isEqualTo(want.getFieldCount());
      for (int i = 0; i < want.getFieldCount(); i += 1) {
        assertSameType(
            want.getType(i),
            got.getType(i),
            path + "." + want.getType(i).getName(),
            compareColumnOrders);
      }
    }
  }

  static void assertSameMetrics(Metrics expected, Metrics actual) {
    assertThat(actual.recordCount()).isEqualTo(expected.recordCount());
    assertThat(keys(actual.columnSizes())).isEqualTo(keys(expected.columnSizes()));
    assertThat(actual.valueCounts()).isEqualTo(expected.valueCounts());
    assertThat(actual.nullValueCounts()).isEqualTo(expected.nullValueCounts());
    assertThat(actual.nanValueCounts()).isEqualTo(expected.nanValueCounts());
    assertThat(hex(actual.lowerBounds())).isEqualTo(hex(expected.lowerBounds()));
    assertThat(hex(actual.upperBounds())).isEqualTo(hex(expected.upperBounds()));
  }

  /** Iceberg's import path (parquet-java footer → metrics) agrees on every non-float column. */
  private static void assertImportMetricsAgree(
      Schema schema, ParityHarness.Written frazil, MetricsConfig config) {
    Metrics imported = ParquetUtil.fileMetrics(Files.localInput(frazil.file), config);
    Set<Integer> floats =
        TypeUtil.indexById(schema.asStruct()).entrySet().stream()
            .filter(
                e ->
                    e.getValue().type().typeId() == Type.TypeID.FLOAT
                        || e.getValue().type().typeId() == Type.TypeID.DOUBLE)
            .map(Map.Entry::getKey)
            .collect(Collectors.toSet());
    assertThat(imported.recordCount()).isEqualTo(frazil.metrics.recordCount());
    assertThat(imported.columnSizes()).isEqualTo(frazil.metrics.columnSizes());
    assertThat(without(imported.valueCounts(), floats))
        .isEqualTo(without(frazil.metrics.valueCounts(), floats));
    assertThat(without(imported.nullValueCounts(), floats))
        .isEqualTo(without(frazil.metrics.nullValueCounts(), floats));
    assertThat(without(hex(imported.lowerBounds()), floats))
        .isEqualTo(without(hex(frazil.metrics.lowerBounds()), floats));
    assertThat(without(hex(imported.upperBounds()), floats))
        .isEqualTo(without(hex(frazil.metrics.upperBounds()), floats));
  }

  private static Set<Integer> keys(Map<Integer, ?> map) {
    return map == null ? Set.of() : map.keySet();
  }

  private static <V> Map<Integer, V> without(Map<Integer, V> map, Set<Integer> ids) {
    if (map == null) {
      return Map.of();
    }
    return map.entrySet().stream()
        .filter(e -> !ids.contains(e.getKey()))
        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
  }

  static Map<Integer, String> hex(Map<Integer, ByteBuffer> bounds) {
    if (bounds == null) {
      return Map.of();
    }
    return bounds.entrySet().stream()
        .collect(
            Collectors.toMap(
                Map.Entry::getKey,
                e -> {
                  ByteBuffer buffer = e.getValue().duplicate();
                  StringBuilder out = new StringBuilder();
                  while (buffer.hasRemaining()) {
                    out.append(String.format("%02x", buffer.get()));
                  }
                  return out.toString();
                }));
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
    assertSameMetrics(stock.metrics, frazil.metrics);
  }

  static Stream<String> sortOrderCases() {
    return Stream.of("s", "l", "dec19");
  }
}

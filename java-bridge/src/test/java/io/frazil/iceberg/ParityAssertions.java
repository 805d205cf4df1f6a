package io.frazil.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.Files;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;

/**
 * The stock-vs-Frazil comparison shared by {@link TestParquetParity} and {@link
 * TestRandomizedParity}: rows read back by Iceberg's reader, Parquet schema node by node, footer
 * key-value metadata, codec, length and split offsets, {@link Metrics} (bounds byte for byte), and
 * Iceberg's footer-import metrics of the Frazil file. The README's known, deliberate differences
 * (float/double column orders) are the only allowances.
 */
final class ParityAssertions {
  private ParityAssertions() {}

  static void assertSameRows(
      Schema schema, ParityHarness.Written stock, ParityHarness.Written frazil, int rowCount)
      throws IOException {
    List<Record> expected = ParityHarness.read(stock.file, schema);
    List<Record> actual = ParityHarness.read(frazil.file, schema);
    assertThat(expected).hasSize(rowCount);
    assertThat(actual).hasSize(rowCount);
    for (int i = 0; i < rowCount; i += 1) {
      if (!actual.get(i).equals(expected.get(i))) {
        // Records compare byte[] (fixed) by content only as direct fields; inside lists and maps
        // they compare by identity, so compare a deep copy with byte[] wrapped instead.
        assertThat(comparable(actual.get(i)))
            .as("row %s", i)
            .isEqualTo(comparable(expected.get(i)));
      }
    }
  }

  /** The same value with records as lists and byte[] as (content-compared) ByteBuffers. */
  private static Object comparable(Object value) {
    if (value instanceof byte[]) {
      return ByteBuffer.wrap((byte[]) value);
    } else if (value instanceof Record) {
      Record record = (Record) value;
      List<Object> fields = new ArrayList<>(record.size());
      for (int i = 0; i < record.size(); i += 1) {
        fields.add(comparable(record.get(i)));
      }
      return fields;
    } else if (value instanceof List) {
      List<Object> elements = new ArrayList<>();
      for (Object element : (List<?>) value) {
        elements.add(comparable(element));
      }
      return elements;
    } else if (value instanceof Map) {
      Map<Object, Object> entries = new LinkedHashMap<>();
      for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
        entries.put(comparable(entry.getKey()), comparable(entry.getValue()));
      }
      return entries;
    }
    return value;
  }

  static void assertSameFooter(
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
  static void assertSameType(
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
  static void assertImportMetricsAgree(
      Schema schema, ParityHarness.Written frazil, MetricsConfig config) {
    assertImportMetricsAgree(schema, frazil, config, true);
  }

  /**
   * As above; {@code compareBounds} false leaves bounds out, for files with float/double columns
   * where parquet-java may read later column orders of a Frazil file as UNDEFINED and then drops
   * those columns' min/max on import (README, known difference).
   */
  static void assertImportMetricsAgree(
      Schema schema, ParityHarness.Written frazil, MetricsConfig config, boolean compareBounds) {
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
    if (compareBounds) {
      assertThat(without(hex(imported.lowerBounds()), floats))
          .isEqualTo(without(hex(frazil.metrics.lowerBounds()), floats));
      assertThat(without(hex(imported.upperBounds()), floats))
          .isEqualTo(without(hex(frazil.metrics.upperBounds()), floats));
    }
  }

  /**
   * Iceberg's import path agrees on the Frazil file and the stock file (non-float columns). Used
   * instead of {@link #assertImportMetricsAgree} when a per-column metrics mode names a column
   * whose Parquet name is sanitized (e.g. {@code a b} → {@code a_x20b}): Iceberg 1.11's import path
   * looks modes up by the Parquet name and so differs from its own write path on stock files too.
   */
  static void assertImportMetricsMatchStockImport(
      Schema schema,
      ParityHarness.Written stock,
      ParityHarness.Written frazil,
      MetricsConfig config) {
    Metrics expected = ParquetUtil.fileMetrics(Files.localInput(stock.file), config);
    Metrics imported = ParquetUtil.fileMetrics(Files.localInput(frazil.file), config);
    Set<Integer> floats = floatIds(schema);
    assertThat(imported.recordCount()).isEqualTo(expected.recordCount());
    assertThat(keys(imported.columnSizes())).isEqualTo(keys(expected.columnSizes()));
    assertThat(without(imported.valueCounts(), floats))
        .isEqualTo(without(expected.valueCounts(), floats));
    assertThat(without(imported.nullValueCounts(), floats))
        .isEqualTo(without(expected.nullValueCounts(), floats));
    if (floats.isEmpty()) {
      // Known difference (README): in files with float/double columns parquet-java may read later
      // column orders of a Frazil file as UNDEFINED and then drops their min/max on import.
      assertThat(hex(imported.lowerBounds())).isEqualTo(hex(expected.lowerBounds()));
      assertThat(hex(imported.upperBounds())).isEqualTo(hex(expected.upperBounds()));
    }
  }

  private static Set<Integer> floatIds(Schema schema) {
    return TypeUtil.indexById(schema.asStruct()).entrySet().stream()
        .filter(
            e ->
                e.getValue().type().typeId() == Type.TypeID.FLOAT
                    || e.getValue().type().typeId() == Type.TypeID.DOUBLE)
        .map(Map.Entry::getKey)
        .collect(Collectors.toSet());
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
}

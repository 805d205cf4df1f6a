package io.frazil.validation;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;

/** Footer and metrics comparisons shared by the Flink-job and file-level cases. */
final class ParquetChecks {
  static final String FRAZIL_CREATED_BY = "frazil version ";
  static final String STOCK_CREATED_BY = "parquet-mr";
  static final String ICEBERG_SCHEMA_KEY = "iceberg.schema";

  private static final Configuration HADOOP = new Configuration();

  private ParquetChecks() {}

  /** The footer as parquet-java reads it (any failure to parse is the caller's failure). */
  static ParquetMetadata footer(String location) throws IOException {
    try (ParquetFileReader reader =
        ParquetFileReader.open(HadoopInputFile.fromPath(new Path(location), HADOOP))) {
      return reader.getFooter();
    }
  }

  /**
   * The witnesses every native data file must carry: Frazil's {@code created_by}, zstd on every
   * column chunk, root {@code table}, a field id on every node but the synthetic {@code list} /
   * {@code key_value} groups, the Parquet schema stock Iceberg derives from the table schema, and
   * exactly one key-value entry, {@code iceberg.schema}, describing the table schema.
   */
  static void nativeFooterWitnesses(
      Check check, ParquetMetadata footer, Schema schema, String file, String codec) {
    String createdBy = footer.getFileMetaData().getCreatedBy();
    check.expect(
        createdBy != null && createdBy.startsWith(FRAZIL_CREATED_BY),
        "%s: created_by is '%s', not 'frazil version …'",
        file,
        createdBy);
    MessageType parquetSchema = footer.getFileMetaData().getSchema();
    check.equal("table", parquetSchema.getName(), "%s: root name", file);
    for (BlockMetaData block : footer.getBlocks()) {
      for (ColumnChunkMetaData column : block.getColumns()) {
        check.count("column chunks", 1);
        check.equal(
            codec, column.getCodec().name(), "%s: codec of column %s", file, column.getPath());
      }
    }
    check.count("row groups", footer.getBlocks().size());
    fieldIds(check, parquetSchema, file, parquetSchema.getName());
    check.equal(
        ParquetSchemaUtil.convert(schema, "table").toString(),
        parquetSchema.toString(),
        "%s: Parquet schema (Iceberg's ParquetSchemaUtil.convert of the table schema)",
        file);
    Map<String, String> keyValues = footer.getFileMetaData().getKeyValueMetaData();
    check.equal(
        Set.of(ICEBERG_SCHEMA_KEY), keyValues.keySet(), "%s: key-value metadata keys", file);
    String json = keyValues.get(ICEBERG_SCHEMA_KEY);
    if (json != null) {
      check.equal(
          schema.asStruct(),
          SchemaParser.fromJson(json).asStruct(),
          "%s: schema in key-value metadata",
          file);
    }
  }

  private static void fieldIds(
      Check check, org.apache.parquet.schema.Type node, String file, String path) {
    if (node.isPrimitive()) {
      return;
    }
    GroupType group = node.asGroupType();
    LogicalTypeAnnotation annotation = group.getLogicalTypeAnnotation();
    for (org.apache.parquet.schema.Type child : group.getFields()) {
      String childPath = path + "." + child.getName();
      boolean synthetic =
          (annotation instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation
                  && child.getName().equals("list"))
              || (annotation instanceof LogicalTypeAnnotation.MapLogicalTypeAnnotation
                  && child.getName().equals("key_value"));
      if (synthetic) {
        check.count("synthetic groups", 1);
      } else {
        check.count("nodes with field id", 1);
        check.expect(child.getId() != null, "%s: node %s has no field id", file, childPath);
      }
      fieldIds(check, child, file, childPath);
    }
  }

  /**
   * Names, repetition, field ids, physical and logical types must match node by node. Column orders
   * must match too, except that arrow-rs 60 marks float/double leaves IEEE_754_TOTAL_ORDER where
   * parquet-java writes TYPE_DEFINED_ORDER (a documented, accepted difference).
   */
  static void sameType(
      Check check,
      org.apache.parquet.schema.Type expected,
      org.apache.parquet.schema.Type actual,
      String path,
      boolean compareColumnOrders) {
    check.count("schema nodes", 1);
    check.equal(expected.getName(), actual.getName(), "name of %s", path);
    check.equal(expected.getRepetition(), actual.getRepetition(), "repetition of %s", path);
    check.equal(expected.getId(), actual.getId(), "field id of %s", path);
    check.equal(
        expected.getLogicalTypeAnnotation(),
        actual.getLogicalTypeAnnotation(),
        "logical type of %s",
        path);
    if (!check.equal(expected.isPrimitive(), actual.isPrimitive(), "kind of %s", path)) {
      return;
    }
    if (expected.isPrimitive()) {
      PrimitiveType want = expected.asPrimitiveType();
      PrimitiveType got = actual.asPrimitiveType();
      check.equal(
          want.getPrimitiveTypeName(), got.getPrimitiveTypeName(), "physical type of %s", path);
      check.equal(want.getTypeLength(), got.getTypeLength(), "length of %s", path);
      if (compareColumnOrders) {
        check.equal(want.columnOrder(), got.columnOrder(), "column order of %s", path);
      }
    } else {
      GroupType want = expected.asGroupType();
      GroupType got = actual.asGroupType();
      if (check.equal(want.getFieldCount(), got.getFieldCount(), "children of %s", path)) {
        for (int i = 0; i < want.getFieldCount(); i += 1) {
          sameType(
              check,
              want.getType(i),
              got.getType(i),
              path + "." + want.getType(i).getName(),
              compareColumnOrders);
        }
      }
    }
  }

  static boolean hasFloatingPointColumns(MessageType schema) {
    return schema.getColumns().stream()
        .map(c -> c.getPrimitiveType().getPrimitiveTypeName())
        .anyMatch(
            t ->
                t == PrimitiveType.PrimitiveTypeName.FLOAT
                    || t == PrimitiveType.PrimitiveTypeName.DOUBLE);
  }

  /** Stock and Frazil metrics of the same rows: equal field by field (column sizes: keys). */
  static void sameMetrics(Check check, Metrics expected, Metrics actual, String what) {
    check.count("metrics compared", 1);
    check.equal(expected.recordCount(), actual.recordCount(), "%s: record count", what);
    check.equal(
        keys(expected.columnSizes()), keys(actual.columnSizes()), "%s: column size keys", what);
    check.equal(
        sorted(expected.valueCounts()), sorted(actual.valueCounts()), "%s: value counts", what);
    check.equal(
        sorted(expected.nullValueCounts()),
        sorted(actual.nullValueCounts()),
        "%s: null value counts",
        what);
    check.equal(
        sorted(expected.nanValueCounts()),
        sorted(actual.nanValueCounts()),
        "%s: NaN value counts",
        what);
    check.equal(hex(expected.lowerBounds()), hex(actual.lowerBounds()), "%s: lower bounds", what);
    check.equal(hex(expected.upperBounds()), hex(actual.upperBounds()), "%s: upper bounds", what);
  }

  /**
   * What a writer reported (manifest or appender) against what Iceberg's import path derives from
   * the footer ({@code ParquetUtil.fileMetrics}): equal, float/double columns left out of counts
   * and bounds (Iceberg takes those from the values, the footer cannot).
   */
  static void agreesWithFooter(
      Check check,
      long recordCount,
      Map<Integer, Long> columnSizes,
      Map<Integer, Long> valueCounts,
      Map<Integer, Long> nullValueCounts,
      Map<Integer, ByteBuffer> lowerBounds,
      Map<Integer, ByteBuffer> upperBounds,
      Metrics imported,
      Set<Integer> floats,
      String what) {
    check.count("files vs footer", 1);
    check.equal(imported.recordCount(), recordCount, "%s: record count", what);
    check.equal(keys(imported.columnSizes()), keys(columnSizes), "%s: column size keys", what);
    check.equal(sorted(imported.columnSizes()), sorted(columnSizes), "%s: column sizes", what);
    check.equal(
        without(imported.valueCounts(), floats),
        without(valueCounts, floats),
        "%s: value counts",
        what);
    check.equal(
        without(imported.nullValueCounts(), floats),
        without(nullValueCounts, floats),
        "%s: null value counts",
        what);
    check.equal(
        without(hex(imported.lowerBounds()), floats),
        without(hex(lowerBounds), floats),
        "%s: lower bounds",
        what);
    check.equal(
        without(hex(imported.upperBounds()), floats),
        without(hex(upperBounds), floats),
        "%s: upper bounds",
        what);
  }

  static Set<Integer> floatingPointIds(Schema schema) {
    return TypeUtil.indexById(schema.asStruct()).entrySet().stream()
        .filter(
            e ->
                e.getValue().type().typeId() == Type.TypeID.FLOAT
                    || e.getValue().type().typeId() == Type.TypeID.DOUBLE)
        .map(Map.Entry::getKey)
        .collect(Collectors.toSet());
  }

  static Set<Integer> keys(Map<Integer, ?> map) {
    return map == null ? Set.of() : new java.util.TreeSet<>(map.keySet());
  }

  static <V> Map<Integer, V> sorted(Map<Integer, V> map) {
    return map == null ? Map.of() : new TreeMap<>(map);
  }

  static <V> Map<Integer, V> without(Map<Integer, V> map, Set<Integer> ids) {
    Map<Integer, V> out = new TreeMap<>();
    if (map != null) {
      map.forEach(
          (k, v) -> {
            if (!ids.contains(k)) {
              out.put(k, v);
            }
          });
    }
    return out;
  }

  static Map<Integer, String> hex(Map<Integer, ByteBuffer> bounds) {
    Map<Integer, String> out = new TreeMap<>();
    if (bounds != null) {
      bounds.forEach(
          (k, v) -> {
            ByteBuffer buffer = v.duplicate();
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            out.put(k, HexFormat.of().formatHex(bytes));
          });
    }
    return out;
  }

  static List<Long> rowGroupStarts(ParquetMetadata footer) {
    return org.apache.iceberg.parquet.ParquetUtil.getSplitOffsets(footer);
  }
}

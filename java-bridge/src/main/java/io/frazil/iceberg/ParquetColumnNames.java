package io.frazil.iceberg;

import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.avro.AvroSchemaUtil;
import org.apache.iceberg.relocated.com.google.common.collect.Maps;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Per-column {@code write.parquet.*} settings name Iceberg columns ({@code s.a}, {@code
 * tags.element}, {@code -dash}); the Parquet schema names them after Avro's sanitizing rules
 * ({@code _x2Ddash}). Iceberg's writer resolves each setting through the column's field id; this
 * rewrites the keys the same way before native code, which matches Parquet names, reads them. A
 * setting for a column that is not in the schema is dropped, as Iceberg skips it.
 */
final class ParquetColumnNames {
  private static final String[] PER_COLUMN_PREFIXES = {
    "write.parquet.stats-enabled.column.",
    "write.parquet.bloom-filter-enabled.column.",
    "write.parquet.bloom-filter-fpp.column.",
    "write.parquet.bloom-filter-ndv.column."
  };

  private ParquetColumnNames() {}

  /** {@code properties} with every per-column key renamed to the column's Parquet name. */
  static Map<String, String> rename(Schema schema, Map<String, String> properties) {
    Map<Integer, String> parquetNames = null;
    Map<String, String> renamed = Maps.newHashMapWithExpectedSize(properties.size());
    for (Map.Entry<String, String> entry : properties.entrySet()) {
      String prefix = perColumnPrefix(entry.getKey());
      if (prefix == null) {
        renamed.put(entry.getKey(), entry.getValue());
        continue;
      }
      if (parquetNames == null) {
        parquetNames = Maps.newHashMap();
        index(schema.asStruct(), "", parquetNames);
      }
      Types.NestedField field = schema.findField(entry.getKey().substring(prefix.length()));
      String parquetName = field == null ? null : parquetNames.get(field.fieldId());
      if (parquetName != null) {
        renamed.put(prefix + parquetName, entry.getValue());
      }
    }
    return renamed;
  }

  private static String perColumnPrefix(String key) {
    for (String prefix : PER_COLUMN_PREFIXES) {
      if (key.startsWith(prefix)) {
        return prefix;
      }
    }
    return null;
  }

  /** Field id → dotted Parquet name without the synthetic list/map groups (native's form). */
  private static void index(Type type, String prefix, Map<Integer, String> names) {
    for (Types.NestedField field : type.asNestedType().fields()) {
      String part =
          type.isStructType() ? AvroSchemaUtil.makeCompatibleName(field.name()) : field.name();
      String name = prefix + part;
      names.put(field.fieldId(), name);
      if (field.type().isNestedType()) {
        index(field.type(), name + ".", names);
      }
    }
  }
}

package io.frazil.validation;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.types.Row;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;

/**
 * One row of the Flink-job cases, generated deterministically from (id, version), convertible to
 * Flink's internal {@link RowData} (DataStream sinks), to an external {@link Row} (SQL), and to a
 * canonical string that an Iceberg generic {@link Record} read back must reproduce.
 */
record JobRow(
    long id,
    String data,
    String category,
    Double price,
    Integer qty,
    BigDecimal amount,
    LocalDateTime ts,
    LocalDate eventDate,
    Boolean flag,
    List<String> tags,
    Map<String, Long> attrs) {

  /** The table schema: scalars of most kinds, a list and a map (field ids on nested nodes). */
  static final Schema SCHEMA =
      new Schema(
          List.of(
              required(1, "id", org.apache.iceberg.types.Types.LongType.get()),
              optional(2, "data", org.apache.iceberg.types.Types.StringType.get()),
              optional(3, "category", org.apache.iceberg.types.Types.StringType.get()),
              optional(4, "price", org.apache.iceberg.types.Types.DoubleType.get()),
              optional(5, "qty", org.apache.iceberg.types.Types.IntegerType.get()),
              optional(6, "amount", org.apache.iceberg.types.Types.DecimalType.of(12, 2)),
              optional(7, "ts", org.apache.iceberg.types.Types.TimestampType.withoutZone()),
              optional(8, "event_date", org.apache.iceberg.types.Types.DateType.get()),
              optional(9, "flag", org.apache.iceberg.types.Types.BooleanType.get()),
              optional(
                  10,
                  "tags",
                  org.apache.iceberg.types.Types.ListType.ofOptional(
                      12, org.apache.iceberg.types.Types.StringType.get())),
              optional(
                  11,
                  "attrs",
                  org.apache.iceberg.types.Types.MapType.ofOptional(
                      13,
                      14,
                      org.apache.iceberg.types.Types.StringType.get(),
                      org.apache.iceberg.types.Types.LongType.get()))),
          Set.of(1));

  static final String[] NAMES = {
    "id", "data", "category", "price", "qty", "amount", "ts", "event_date", "flag", "tags", "attrs"
  };

  /** External types for the SQL source; INSERT casts amount and ts to the table's types. */
  static final TypeInformation<Row> ROW_TYPE_INFO =
      Types.ROW_NAMED(
          NAMES,
          Types.LONG,
          Types.STRING,
          Types.STRING,
          Types.DOUBLE,
          Types.INT,
          Types.BIG_DEC,
          Types.LOCAL_DATE_TIME,
          Types.LOCAL_DATE,
          Types.BOOLEAN,
          Types.OBJECT_ARRAY(Types.STRING),
          Types.MAP(Types.STRING, Types.LONG));

  static final String SQL_SELECT =
      "SELECT id, data, category, price, qty, CAST(amount AS DECIMAL(12, 2)),"
          + " CAST(ts AS TIMESTAMP(6)), event_date, flag, tags, attrs FROM src";

  private static final LocalDateTime EPOCH = LocalDateTime.of(2024, 1, 1, 0, 0);

  static JobRow of(long id, String version) {
    long h = mix(id * 0x9E3779B97F4A7C15L + version.hashCode());
    List<String> tags = null;
    if (id % 9 != 0) {
      tags = new ArrayList<>();
      for (int j = 0; j < id % 4; j += 1) {
        tags.add(j == 2 ? null : "t" + ((id + j) % 50));
      }
    }
    Map<String, Long> attrs = null;
    if (id % 10 != 0) {
      attrs = new LinkedHashMap<>();
      for (int j = 0; j < id % 3; j += 1) {
        attrs.put("k" + j, j == 1 ? null : id * (j + 1) - 100);
      }
    }
    return new JobRow(
        id,
        version + "-" + id + (id % 17 == 0 ? "-ÿ日本" : ""),
        id % 37 == 0 ? null : "c" + (id % 5),
        id % 7 == 0 ? null : id % 101 == 0 ? Double.NaN : id * 1.5 - 1000,
        id % 11 == 0 ? null : (int) Math.floorMod(h, 1000L) - 500,
        id % 13 == 0
            ? null
            : BigDecimal.valueOf(Math.floorMod(h >>> 7, 10_000_000_000L) - 5_000_000_000L, 2),
        id % 19 == 0
            ? null
            : EPOCH.plusSeconds(id * 37).plusNanos(Math.floorMod(h >>> 3, 1_000_000L) * 1000L),
        id % 23 == 0 ? null : LocalDate.of(2024, 1, 1).plusDays(id % 400),
        id % 3 == 0 ? null : (h & 1) == 0,
        tags,
        attrs);
  }

  /** Rows {@code from .. from+count-1} of one version (versions make updates visible). */
  static List<JobRow> rows(long from, long count, String version) {
    List<JobRow> rows = new ArrayList<>();
    for (long id = from; id < from + count; id += 1) {
      rows.add(of(id, version));
    }
    return rows;
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  RowData toRowData() {
    GenericArrayData tagData = null;
    if (tags != null) {
      Object[] elements = new Object[tags.size()];
      for (int i = 0; i < elements.length; i += 1) {
        elements[i] = tags.get(i) == null ? null : StringData.fromString(tags.get(i));
      }
      tagData = new GenericArrayData(elements);
    }
    GenericMapData attrData = null;
    if (attrs != null) {
      Map<Object, Object> entries = new LinkedHashMap<>();
      attrs.forEach((k, v) -> entries.put(StringData.fromString(k), v));
      attrData = new GenericMapData(entries);
    }
    return GenericRowData.of(
        id,
        data == null ? null : StringData.fromString(data),
        category == null ? null : StringData.fromString(category),
        price,
        qty,
        amount == null ? null : DecimalData.fromBigDecimal(amount, 12, 2),
        ts == null ? null : TimestampData.fromLocalDateTime(ts),
        eventDate == null ? null : (int) eventDate.toEpochDay(),
        flag,
        tagData,
        attrData);
  }

  Row toRow() {
    return Row.of(
        id,
        data,
        category,
        price,
        qty,
        amount,
        ts,
        eventDate,
        flag,
        tags == null ? null : tags.toArray(new String[0]),
        attrs == null ? null : new HashMap<>(attrs));
  }

  String canonical() {
    return canonical(
        new Object[] {id, data, category, price, qty, amount, ts, eventDate, flag, tags, attrs});
  }

  /** The same canonical form from what Iceberg's generic reader returns. */
  static String canonical(Record record) {
    Object[] values = new Object[NAMES.length];
    for (int i = 0; i < NAMES.length; i += 1) {
      values[i] = record.getField(NAMES[i]);
    }
    return canonical(values);
  }

  private static String canonical(Object[] values) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < values.length; i += 1) {
      if (i > 0) {
        out.append('|');
      }
      out.append(value(values[i]));
    }
    return out.toString();
  }

  private static String value(Object value) {
    if (value == null) {
      return "null";
    } else if (value instanceof BigDecimal) {
      return ((BigDecimal) value).setScale(2).toPlainString();
    } else if (value instanceof List<?>) {
      List<String> out = new ArrayList<>();
      for (Object element : (List<?>) value) {
        out.add(value(element));
      }
      return out.toString();
    } else if (value instanceof Map<?, ?>) {
      Map<String, String> out = new TreeMap<>();
      ((Map<?, ?>) value).forEach((k, v) -> out.put(value(k), value(v)));
      return out.toString();
    }
    return value.toString();
  }
}

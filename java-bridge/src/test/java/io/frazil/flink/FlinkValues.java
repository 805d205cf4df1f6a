package io.frazil.flink;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Flink rows as plain Java values, read through Flink's own getters for each field's Flink type, so
 * rows of different {@code RowData} classes (Iceberg's {@code GenericRowData}, Frazil's columnar
 * views) compare field by field, nested values included.
 */
final class FlinkValues {
  private FlinkValues() {}

  static List<Object> row(RowData row, RowType type) {
    List<Object> values = new ArrayList<>(type.getFieldCount());
    values.add(row.getRowKind());
    for (int i = 0; i < type.getFieldCount(); i++) {
      LogicalType fieldType = type.getTypeAt(i);
      values.add(value(RowData.createFieldGetter(fieldType, i).getFieldOrNull(row), fieldType));
    }
    return values;
  }

  private static Object value(Object value, LogicalType type) {
    if (value == null) {
      return null;
    } else if (value instanceof StringData) {
      return "s:" + value;
    } else if (value instanceof byte[]) {
      return "b:" + Arrays.toString((byte[]) value);
    } else if (value instanceof DecimalData) {
      return "d:"
          + ((DecimalData) value).toBigDecimal().toPlainString()
          + "/"
          + ((DecimalData) value).precision();
    } else if (value instanceof TimestampData) {
      TimestampData ts = (TimestampData) value;
      return "t:" + ts.getMillisecond() + "+" + ts.getNanoOfMillisecond();
    } else if (value instanceof RowData) {
      return row((RowData) value, (RowType) type);
    } else if (value instanceof ArrayData) {
      return array((ArrayData) value, ((ArrayType) type).getElementType());
    } else if (value instanceof MapData) {
      MapData map = (MapData) value;
      MapType mapType = (MapType) type;
      List<Object> keys = array(map.keyArray(), mapType.getKeyType());
      List<Object> values = array(map.valueArray(), mapType.getValueType());
      Map<Object, Object> out = new LinkedHashMap<>();
      for (int i = 0; i < keys.size(); i++) {
        out.put(keys.get(i), values.get(i));
      }
      return out;
    }
    return value;
  }

  private static List<Object> array(ArrayData array, LogicalType elementType) {
    ArrayData.ElementGetter getter = ArrayData.createElementGetter(elementType);
    List<Object> out = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      out.add(value(getter.getElementOrNull(array, i), elementType));
    }
    return out;
  }
}

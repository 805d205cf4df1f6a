package io.frazil.flink.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.frazil.reflect.HiddenField;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.RowDataWrapper;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

public class TestCachedGetterRowDataWrapper {
  private static final Types.StructType POINT =
      Types.StructType.of(
          Types.NestedField.optional(101, "x", Types.IntegerType.get()),
          Types.NestedField.optional(102, "label", Types.StringType.get()));

  /** Every type an Iceberg partition source can have, plus a struct (a nested source's parent). */
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.optional(1, "b", Types.BooleanType.get()),
          Types.NestedField.optional(2, "i", Types.IntegerType.get()),
          Types.NestedField.optional(3, "l", Types.LongType.get()),
          Types.NestedField.optional(4, "f", Types.FloatType.get()),
          Types.NestedField.optional(5, "d", Types.DoubleType.get()),
          Types.NestedField.optional(6, "date", Types.DateType.get()),
          Types.NestedField.optional(7, "time", Types.TimeType.get()),
          Types.NestedField.optional(8, "ts", Types.TimestampType.withoutZone()),
          Types.NestedField.optional(9, "tstz", Types.TimestampType.withZone()),
          Types.NestedField.optional(10, "s", Types.StringType.get()),
          Types.NestedField.optional(11, "bin", Types.BinaryType.get()),
          Types.NestedField.optional(12, "fixed", Types.FixedType.ofLength(4)),
          Types.NestedField.optional(13, "dec", Types.DecimalType.of(10, 2)),
          Types.NestedField.optional(14, "wide", Types.DecimalType.of(38, 10)),
          Types.NestedField.optional(15, "uuid", Types.UUIDType.get()),
          Types.NestedField.optional(16, "point", POINT),
          Types.NestedField.optional(17, "ts_ns", Types.TimestampNanoType.withoutZone()),
          Types.NestedField.optional(18, "tstz_ns", Types.TimestampNanoType.withZone()));

  private static final RowType ROW_TYPE = FlinkSchemaUtil.convert(SCHEMA);

  private static RowData row(int n) {
    LocalDateTime ts = LocalDateTime.of(2026, 12, 3, 4, 5, 6, 789_123_000 + n * 1000);
    return GenericRowData.of(
        n % 2 == 0,
        n - 1,
        Long.MIN_VALUE + n,
        n == 1 ? Float.NaN : -0.0f,
        n == 1 ? Double.NEGATIVE_INFINITY : 1.5 * n,
        20_000 + n,
        3_600_000 + n,
        TimestampData.fromLocalDateTime(ts),
        TimestampData.fromLocalDateTime(ts.plusHours(n)),
        StringData.fromString("välue-" + n),
        ("bytes" + n).getBytes(StandardCharsets.UTF_8),
        new byte[] {1, 2, 3, (byte) n},
        DecimalData.fromBigDecimal(new BigDecimal("-1234.5" + n), 10, 2),
        DecimalData.fromBigDecimal(new BigDecimal("1234567890123456789.012345678" + n), 38, 10),
        new byte[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, (byte) n},
        GenericRowData.of(n * 7, StringData.fromString("p" + n)),
        TimestampData.fromLocalDateTime(ts.plusNanos(321)),
        TimestampData.fromLocalDateTime(ts.plusNanos(654).plusHours(1)));
  }

  private static RowData nulls() {
    return new GenericRowData(SCHEMA.columns().size());
  }

  /** What a partition key reads: each position as Object, a struct's positions within it. */
  private static List<Object> values(StructLike struct) {
    List<Object> values = new ArrayList<>();
    for (int pos = 0; pos < struct.size(); pos += 1) {
      Object value = struct.get(pos, Object.class);
      values.add(value instanceof StructLike ? values((StructLike) value) : value);
    }
    return values;
  }

  @Test
  public void readsTheValuesIcebergsWrapperReads() throws Exception {
    CachedGetterRowDataWrapper cached =
        CachedGetterRowDataWrapper.create(ROW_TYPE, SCHEMA.asStruct());
    RowDataWrapper iceberg = new RowDataWrapper(ROW_TYPE, SCHEMA.asStruct());
    List<RowData> rows = List.of(row(1), nulls(), row(2), row(3));
    for (RowData row : rows) {
      // The same wrapper instance across rows, as a fan-out writer uses it.
      List<Object> expected = values(iceberg.wrap(row));
      assertThat(values(cached.wrap(row))).isEqualTo(expected);
    }
    assertThat(values(cached.wrap(row(1))).get(3)).isEqualTo(Float.NaN);
    assertThat(values(cached.wrap(nulls()))).containsOnlyNulls();
  }

  @Test
  public void buildsGettersOnceWhereIcebergBuildsThemPerCall() throws Exception {
    CachedGetterRowDataWrapper cached =
        CachedGetterRowDataWrapper.create(ROW_TYPE, SCHEMA.asStruct());
    List<String> cachedNames = new ArrayList<>();
    for (int pos = 0; pos < ROW_TYPE.getFieldCount(); pos += 1) {
      if (cached.cachesGetter(pos)) {
        cachedNames.add(ROW_TYPE.getFieldNames().get(pos));
      }
    }
    // Iceberg 1.11 converts strings, binaries (fixed and uuid too), decimals, times, timestamps
    // and structs with getters of its own; the plain types are read as Flink holds them.
    assertThat(cachedNames).containsExactly("b", "i", "l", "f", "d", "date");
  }

  /**
   * An Iceberg whose wrapper keeps its getters elsewhere, or of another type, gets an exception
   * that {@code FrazilTaskWriterFactory} turns into one warning and Iceberg's own writer.
   */
  @Test
  public void aWrapperShapedOtherwiseIsRefusedWithAReflectiveException() {
    HiddenField renamed =
        HiddenField.of(RowDataWrapper.class.getName(), "fieldGetters", "[Ljava.lang.Object;");
    assertThatThrownBy(
            () -> CachedGetterRowDataWrapper.create(ROW_TYPE, SCHEMA.asStruct(), renamed))
        .isInstanceOf(NoSuchFieldException.class)
        .hasMessageContaining("fieldGetters")
        .hasMessageContaining("no such field");
    HiddenField retyped =
        HiddenField.of(RowDataWrapper.class.getName(), "getters", "[Ljava.lang.Object;");
    assertThatThrownBy(
            () -> CachedGetterRowDataWrapper.create(ROW_TYPE, SCHEMA.asStruct(), retyped))
        .isInstanceOf(NoSuchFieldException.class)
        .hasMessageContaining("expected type [Ljava.lang.Object;");
  }
}

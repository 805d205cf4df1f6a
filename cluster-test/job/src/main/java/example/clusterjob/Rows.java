package example.clusterjob;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.types.Row;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.util.FlinkCompatibilityUtil;
import org.apache.iceberg.types.Types.BooleanType;
import org.apache.iceberg.types.Types.DecimalType;
import org.apache.iceberg.types.Types.IntegerType;
import org.apache.iceberg.types.Types.LongType;
import org.apache.iceberg.types.Types.StringType;
import org.apache.iceberg.types.Types.TimestampType;

/**
 * The rows every job writes. Row {@code id} is a pure function of its id, so {@link TableCheck} can
 * recompute each row it reads back and compare every column.
 */
final class Rows {
  static final Schema SCHEMA =
      new Schema(
          required(1, "id", LongType.get()),
          optional(2, "category", IntegerType.get()),
          optional(3, "name", StringType.get()),
          optional(4, "amount", DecimalType.of(12, 2)),
          optional(5, "ts", TimestampType.withoutZone()),
          optional(6, "flag", BooleanType.get()));

  /** bucket(id, 4): each writer subtask writes up to four files per checkpoint. */
  static final PartitionSpec SPEC = PartitionSpec.builderFor(SCHEMA).bucket("id", 4).build();

  static final TypeInformation<RowData> ROW_DATA_TYPE =
      FlinkCompatibilityUtil.toTypeInfo(FlinkSchemaUtil.convert(SCHEMA));

  /** The same columns as Flink {@link Row}s, for the SQL job's source view. */
  static final TypeInformation<Row> ROW_TYPE =
      Types.ROW_NAMED(
          new String[] {"id", "category", "name", "amount", "ts", "flag"},
          Types.LONG,
          Types.INT,
          Types.STRING,
          Types.BIG_DEC,
          Types.LOCAL_DATE_TIME,
          Types.BOOLEAN);

  private static final LocalDateTime EPOCH = LocalDateTime.of(2026, 1, 1, 0, 0);

  private Rows() {}

  /** Column values of row {@code id} as Iceberg's generic reader returns them. */
  static List<Object> values(long id) {
    Integer category = id % 10 == 9 ? null : (int) (id % 97);
    String name = "name-" + Long.toHexString(id * 0x9E3779B97F4A7C15L) + "-" + id;
    BigDecimal amount = BigDecimal.valueOf((id * 37) % 100_000_000L, 2);
    LocalDateTime ts = EPOCH.plusSeconds(id).plusNanos((id % 1000) * 1000L);
    Boolean flag = id % 7 == 3 ? null : id % 3 == 0;
    return Arrays.asList(id, category, name, amount, ts, flag);
  }

  static RowData rowData(long id) {
    List<Object> v = values(id);
    GenericRowData row = new GenericRowData(6);
    row.setField(0, v.get(0));
    row.setField(1, v.get(1));
    row.setField(2, StringData.fromString((String) v.get(2)));
    row.setField(3, DecimalData.fromBigDecimal((BigDecimal) v.get(3), 12, 2));
    row.setField(4, TimestampData.fromLocalDateTime((LocalDateTime) v.get(4)));
    row.setField(5, v.get(5));
    return row;
  }

  static Row row(long id) {
    return Row.of(values(id).toArray());
  }
}

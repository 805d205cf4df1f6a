package io.frazil.flink;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.types.Types;

/**
 * The rows of the Arrow job tests: a deterministic function of their id, with strings, a decimal,
 * timestamps with and without zone, a date, a double and nulls in every optional column, and the
 * same row as Iceberg's generic reader returns it, for comparing whole rows.
 */
final class ArrowJobRows {
  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "label", Types.StringType.get()),
          Types.NestedField.optional(3, "amount", Types.DecimalType.of(18, 3)),
          Types.NestedField.optional(4, "event_time", Types.TimestampType.withoutZone()),
          Types.NestedField.optional(5, "created_at", Types.TimestampType.withZone()),
          Types.NestedField.optional(6, "day", Types.DateType.get()),
          Types.NestedField.optional(7, "score", Types.DoubleType.get()));

  static final RowType ROW_TYPE = FlinkSchemaUtil.convert(SCHEMA);

  private static final LocalDateTime EPOCH = LocalDateTime.of(2026, 1, 1, 0, 0);

  private ArrowJobRows() {}

  /** The values of row {@code id}, in the Java types Iceberg's generic reader returns. */
  static Object[] values(long id) {
    return new Object[] {
      id,
      id % 7 == 3 ? null : "label-" + id + (id % 5 == 0 ? "-ünïcode-€" : ""),
      id % 11 == 5 ? null : BigDecimal.valueOf(id * 1_237L - 500_000L, 3),
      id % 13 == 7 ? null : EPOCH.plusSeconds(id * 37).plusNanos((id % 1000) * 1000),
      id % 17 == 2 ? null : EPOCH.plusMinutes(id).atOffset(ZoneOffset.UTC),
      id % 19 == 4 ? null : LocalDate.of(2026, 1, 1).plusDays(id % 400),
      id % 23 == 9 ? null : id / 8.0
    };
  }

  static RowData row(long id) {
    Object[] values = values(id);
    GenericRowData row = new GenericRowData(values.length);
    row.setField(0, values[0]);
    row.setField(1, values[1] == null ? null : StringData.fromString((String) values[1]));
    row.setField(
        2, values[2] == null ? null : DecimalData.fromBigDecimal((BigDecimal) values[2], 18, 3));
    row.setField(
        3, values[3] == null ? null : TimestampData.fromLocalDateTime((LocalDateTime) values[3]));
    row.setField(
        4,
        values[4] == null
            ? null
            : TimestampData.fromInstant(((OffsetDateTime) values[4]).toInstant()));
    row.setField(5, values[5] == null ? null : (int) ((LocalDate) values[5]).toEpochDay());
    row.setField(6, values[6]);
    return row;
  }

  /** Rows {@code 0..count-1} as {@link #asText} writes them, sorted. */
  static List<String> expected(long count) {
    return LongStream.range(0, count)
        .mapToObj(id -> Arrays.toString(values(id)))
        .sorted()
        .collect(Collectors.toList());
  }

  /** The table's rows, every column, one string each, sorted. */
  static List<String> committed(Table table) throws java.io.IOException {
    List<String> rows = new ArrayList<>();
    for (Record record : FlinkJobs.read(table)) {
      rows.add(asText(record));
    }
    rows.sort(null);
    return rows;
  }

  /**
   * The table's columns of {@code record} (a reader applying position deletes appends {@code _pos}
   * to its records; it is left out).
   */
  static String asText(Record record) {
    Object[] values = new Object[SCHEMA.columns().size()];
    for (int i = 0; i < values.length; i++) {
      Object value = record.get(i);
      values[i] = value instanceof CharSequence ? value.toString() : value;
    }
    return Arrays.toString(values);
  }

  /**
   * Ids to rows at a pace the test sets: {@link #slowAfter} rows (counted over all subtasks and
   * attempts) at full speed, then one row per {@link #slowMillis}, so that a test can stop the job
   * in the middle while checkpoints still pass (the task sleeps between records, never blocks).
   */
  static final class PacedRows implements MapFunction<Long, RowData> {
    static final AtomicLong MAPPED = new AtomicLong();
    static volatile long slowAfter = Long.MAX_VALUE;
    static volatile long slowMillis = 0;
    static volatile long everyRowNanos = 0;

    static void reset() {
      MAPPED.set(0);
      slowAfter = Long.MAX_VALUE;
      slowMillis = 0;
      everyRowNanos = 0;
    }

    @Override
    public RowData map(Long id) throws InterruptedException {
      long mapped = MAPPED.incrementAndGet();
      if (mapped > slowAfter && slowMillis > 0) {
        Thread.sleep(slowMillis);
      } else if (everyRowNanos > 0) {
        java.util.concurrent.locks.LockSupport.parkNanos(everyRowNanos);
      }
      return row(id);
    }
  }
}

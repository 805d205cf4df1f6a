package io.frazil.partition;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.types.Types;

/**
 * Random rows for the split parity tests, over every type a partition transform applies to: each
 * column draws from a small pool of values (so partition tuples repeat) that holds nulls,
 * negatives, the epoch's neighbours and Iceberg's one-tick-below-a-second cases for time
 * transforms, multi-byte code points and characters URL escaping changes, and decimals of three
 * precisions.
 */
final class SplitTestRows {
  static final Schema SCHEMA =
      new Schema(
          required(1, "id", Types.LongType.get()),
          optional(2, "i", Types.IntegerType.get()),
          optional(3, "l", Types.LongType.get()),
          optional(4, "d", Types.DateType.get()),
          optional(5, "t", Types.TimeType.get()),
          optional(6, "ts", Types.TimestampType.withoutZone()),
          optional(7, "tstz", Types.TimestampType.withZone()),
          optional(8, "ts_ns", Types.TimestampNanoType.withoutZone()),
          optional(9, "tstz_ns", Types.TimestampNanoType.withZone()),
          optional(10, "dec9", Types.DecimalType.of(9, 2)),
          optional(11, "dec18", Types.DecimalType.of(18, 4)),
          optional(12, "dec38", Types.DecimalType.of(38, 10)),
          optional(13, "s", Types.StringType.get()),
          optional(14, "u", Types.UUIDType.get()),
          optional(15, "fx", Types.FixedType.ofLength(5)),
          optional(16, "bin", Types.BinaryType.get()),
          optional(
              17,
              "st",
              Types.StructType.of(
                  optional(18, "inner_l", Types.LongType.get()),
                  optional(19, "inner_s", Types.StringType.get()))),
          optional(20, "b", Types.BooleanType.get()),
          optional(21, "f", Types.FloatType.get()),
          optional(22, "dbl", Types.DoubleType.get()));

  static final RowType ROW_TYPE = FlinkSchemaUtil.convert(SCHEMA);

  private static final long MICROS_PER_HOUR = 3_600_000_000L;
  private static final long MICROS_PER_DAY = 24 * MICROS_PER_HOUR;

  /** Micros worth checking for every time transform, besides random ones. */
  private static final long[] EDGE_MICROS = {
    0,
    -1,
    1,
    -999_999,
    -1_000_000,
    -1_000_001,
    -MICROS_PER_HOUR,
    -MICROS_PER_HOUR - 1,
    -MICROS_PER_HOUR + 1_000_000 - 1, // one tick below a whole second a whole hour back
    -MICROS_PER_DAY + 1_000_000 - 1,
    -MICROS_PER_DAY,
    -MICROS_PER_DAY - 1,
    -31L * MICROS_PER_DAY + 999_999, // late in 1969-12-01... minus a tick
    -365L * MICROS_PER_DAY - 1,
    1_510_871_468_000_000L, // 2017-11-16T22:31:08
    -2_208_988_800_000_000L, // 1900-01-01
    -2_208_988_800_000_001L,
    951_782_400_000_000L, // 2000-02-29
    4_102_444_800_000_000L - 1, // 2099-12-31T23:59:59.999999
  };

  private static final String[] ALPHABET = {
    "a", "Z", "0", " ", "/", "=", "%", "&", "+", "?", "#", "é", "ñ", "€", "中", "𝄞", "😀", "~", "."
  };

  private final Random random;

  SplitTestRows(long seed) {
    this.random = new Random(seed);
  }

  List<RowData> rows(int count) {
    List<Object[]> pools = new ArrayList<>();
    for (int column = 1; column < SCHEMA.columns().size(); column++) {
      boolean time = SCHEMA.columns().get(column).name().startsWith("ts");
      pools.add(pool(column, time ? EDGE_MICROS.length + 12 : 12 + random.nextInt(30)));
    }
    List<RowData> rows = new ArrayList<>(count);
    for (int r = 0; r < count; r++) {
      GenericRowData row = new GenericRowData(SCHEMA.columns().size());
      row.setField(0, (long) r);
      for (int c = 1; c < SCHEMA.columns().size(); c++) {
        Object[] pool = pools.get(c - 1);
        row.setField(c, pool[random.nextInt(pool.length)]);
      }
      rows.add(row);
    }
    return rows;
  }

  /** Values of column {@code column}, a null among them. */
  private Object[] pool(int column, int size) {
    Object[] values = new Object[size];
    for (int i = 1; i < size; i++) {
      values[i] = value(column, i);
    }
    return values; // values[0] stays null
  }

  private Object value(int column, int i) {
    switch (SCHEMA.columns().get(column).name()) {
      case "i":
        return i % 3 == 0 ? random.nextInt() : random.nextInt(201) - 100;
      case "l":
        return i % 3 == 0 ? random.nextLong() : (long) random.nextInt(2001) - 1000;
      case "d":
        return i < 6 ? new int[] {0, -1, -31, -32, -365, -366}[i] : random.nextInt(80_000) - 40_000;
      case "t":
        return random.nextInt(86_400_000);
      case "ts":
      case "tstz":
        return micros(i);
      case "ts_ns":
      case "tstz_ns":
        return nanos(i);
      case "dec9":
        return decimal(9, 2);
      case "dec18":
        return decimal(18, 4);
      case "dec38":
        return decimal(38, 10);
      case "s":
        return StringData.fromString(string());
      case "u":
      case "fx":
        return bytes(SCHEMA.columns().get(column).name().equals("u") ? 16 : 5);
      case "bin":
        return bytes(random.nextInt(6));
      case "st":
        if (i % 5 == 0) {
          return null;
        }
        return GenericRowData.of(
            i % 4 == 0 ? null : (long) random.nextInt(7) - 3, StringData.fromString(string()));
      case "b":
        return i % 2 == 0;
      case "f":
        return i == 1 ? Float.NaN : i == 2 ? -0.0f : random.nextInt(1000) / 8.0f - 60;
      case "dbl":
        return i == 1 ? Double.NaN : i == 2 ? -0.0 : random.nextGaussian() * 1e6;
      default:
        throw new IllegalArgumentException("column " + column);
    }
  }

  private TimestampData micros(int i) {
    long micros =
        i <= EDGE_MICROS.length
            ? EDGE_MICROS[i - 1]
            : random.nextLong() % (200L * 365 * MICROS_PER_DAY);
    return TimestampData.fromEpochMillis(
        Math.floorDiv(micros, 1000), (int) Math.floorMod(micros, 1000) * 1000);
  }

  private TimestampData nanos(int i) {
    long nanos =
        i <= EDGE_MICROS.length
            ? EDGE_MICROS[i - 1] * 1000 + (i % 3 == 0 ? -1 : 0)
            : random.nextLong() % (200L * 365 * MICROS_PER_DAY * 1000);
    return TimestampData.fromEpochMillis(
        Math.floorDiv(nanos, 1_000_000), (int) Math.floorMod(nanos, 1_000_000));
  }

  private DecimalData decimal(int precision, int scale) {
    BigInteger unscaled = new BigInteger(random.nextInt(precision * 3) + 1, random);
    BigInteger bound = BigInteger.TEN.pow(precision);
    unscaled = unscaled.mod(bound);
    if (random.nextBoolean()) {
      unscaled = unscaled.negate();
    }
    return DecimalData.fromBigDecimal(new BigDecimal(unscaled, scale), precision, scale);
  }

  private String string() {
    StringBuilder text = new StringBuilder();
    int length = random.nextInt(7);
    for (int i = 0; i < length; i++) {
      text.append(ALPHABET[random.nextInt(ALPHABET.length)]);
    }
    return text.toString();
  }

  private byte[] bytes(int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }
}

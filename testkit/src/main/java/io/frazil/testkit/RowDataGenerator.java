package io.frazil.testkit;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.iceberg.Schema;
import org.apache.iceberg.relocated.com.google.common.collect.Lists;
import org.apache.iceberg.relocated.com.google.common.collect.Maps;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Fixed-seed Flink rows for any Iceberg schema, biased towards the values metrics get wrong: NaN
 * and signed zeros, decimal edge precisions, non-ASCII and long strings, empty strings and
 * binaries, nulls (including whole null structs) in optional fields.
 */
public final class RowDataGenerator {
  private static final String[] WORDS = {
    "",
    "a",
    "iceberg",
    "ÿüé",
    "日本語のテキスト",
    "𝄞 music",
    "zzzzzzzzzzzzzzzzzzzzzzzz",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "\u00ff\u00ff\u00ff\u00ff\u00ff\u00ff\u00ff\u00ff\u00ff"
        + "\u00ff\u00ff\u00ff\u00ff\u00ff\u00ff\u00ff\u00ff"
  };

  private final Random random;
  private final double nullRate;
  private final boolean extremes;

  public RowDataGenerator(long seed, double nullRate) {
    this(seed, nullRate, false);
  }

  /**
   * With {@code extremes}, values also include ±∞ and the float/double limits, long (~1-2 kB)
   * strings and binaries, and lists/maps of up to 20 entries (the default stream stays as it was,
   * so existing fixed-seed tests keep their rows).
   */
  public RowDataGenerator(long seed, double nullRate, boolean extremes) {
    this.random = new Random(seed);
    this.nullRate = nullRate;
    this.extremes = extremes;
  }

  public List<RowData> rows(Schema schema, int count) {
    List<RowData> rows = Lists.newArrayListWithCapacity(count);
    for (int i = 0; i < count; i += 1) {
      rows.add(struct(schema.asStruct()));
    }
    return rows;
  }

  private GenericRowData struct(Types.StructType struct) {
    List<Types.NestedField> fields = struct.fields();
    GenericRowData row = new GenericRowData(fields.size());
    for (int i = 0; i < fields.size(); i += 1) {
      row.setField(i, field(fields.get(i)));
    }
    return row;
  }

  private Object field(Types.NestedField field) {
    if (field.isOptional() && random.nextDouble() < nullRate) {
      return null;
    }
    return value(field.type());
  }

  private Object value(Type type) {
    switch (type.typeId()) {
      case BOOLEAN:
        return random.nextBoolean();
      case INTEGER:
        return pick(Integer.MIN_VALUE, Integer.MAX_VALUE, 0, -1, random.nextInt());
      case LONG:
        return pick(Long.MIN_VALUE, Long.MAX_VALUE, 0L, -1L, random.nextLong());
      case FLOAT:
        if (extremes && random.nextInt(4) == 0) {
          return pick(
              Float.POSITIVE_INFINITY,
              Float.MAX_VALUE,
              -Float.MAX_VALUE,
              Float.MIN_VALUE,
              -Float.MIN_VALUE,
              Float.NaN,
              -0.0f,
              Float.intBitsToFloat(random.nextInt()));
        }
        return pick(Float.NaN, -0.0f, 0.0f, Float.NEGATIVE_INFINITY, random.nextFloat() * 100 - 50);
      case DOUBLE:
        if (extremes && random.nextInt(4) == 0) {
          return pick(
              Double.POSITIVE_INFINITY,
              Double.NEGATIVE_INFINITY,
              -Double.MAX_VALUE,
              Double.MIN_VALUE,
              -Double.MIN_VALUE,
              Double.NaN,
              -0.0d,
              Double.longBitsToDouble(random.nextLong()));
        }
        return pick(Double.NaN, -0.0d, 0.0d, Double.MAX_VALUE, random.nextGaussian() * 1e6);
      case DATE:
        return random.nextInt(40000) - 10000;
      case TIME:
        return random.nextInt(86_400_000);
      case TIMESTAMP:
        return TimestampData.fromEpochMillis(
            random.nextLong() % 4_000_000_000_000L, random.nextInt(1_000_000));
      case TIMESTAMP_NANO:
        return TimestampData.fromEpochMillis(
            random.nextLong() % 4_000_000_000_000L, random.nextInt(1_000_000));
      case STRING:
        if (extremes && random.nextInt(50) == 0) {
          return StringData.fromString(longString());
        }
        return StringData.fromString(
            random.nextInt(3) == 0
                ? WORDS[random.nextInt(WORDS.length)]
                : WORDS[random.nextInt(WORDS.length)] + random.nextInt(1000));
      case UUID:
        return uuidBytes(new UUID(random.nextLong(), random.nextLong()));
      case FIXED:
        return bytes(((Types.FixedType) type).length());
      case BINARY:
        if (extremes && random.nextInt(50) == 0) {
          return bytes(1_000 + random.nextInt(500));
        }
        return bytes(random.nextInt(24));
      case DECIMAL:
        return decimal((Types.DecimalType) type);
      case STRUCT:
        return struct(type.asStructType());
      case LIST:
        {
          Types.ListType list = type.asListType();
          Object[] elements = new Object[collectionSize()];
          for (int i = 0; i < elements.length; i += 1) {
            elements[i] = field(list.fields().get(0));
          }
          return new GenericArrayData(elements);
        }
      case MAP:
        {
          Types.MapType map = type.asMapType();
          Map<Object, Object> entries = Maps.newLinkedHashMap();
          int size = collectionSize();
          for (int i = 0; i < size; i += 1) {
            entries.put(value(map.keyType()), field(map.fields().get(1)));
          }
          return new GenericMapData(entries);
        }
      default:
        throw new UnsupportedOperationException("No generator for " + type);
    }
  }

  private int collectionSize() {
    if (extremes && random.nextInt(10) == 0) {
      return random.nextInt(21);
    }
    return random.nextInt(4);
  }

  /**
   * About 600 characters (at most ~1.8 kB of UTF-8): a run of one word (long equal prefixes for
   * bounds) or mixed words. Not 10 kB: when a chunk's min + max exceed parquet-java's 4,096-byte
   * statistics limit stock drops the chunk statistics and its Metrics lose that column's value and
   * null counts, while Frazil keeps them (a parity mismatch found by TestRandomizedParity).
   */
  private String longString() {
    StringBuilder out = new StringBuilder();
    boolean run = random.nextBoolean();
    String unit = WORDS[1 + random.nextInt(WORDS.length - 1)];
    while (out.length() < 600) {
      out.append(run ? unit : WORDS[random.nextInt(WORDS.length)]);
    }
    return out.toString();
  }

  private DecimalData decimal(Types.DecimalType type) {
    int precision = type.precision();
    BigInteger limit = BigInteger.TEN.pow(precision).subtract(BigInteger.ONE);
    BigInteger unscaled;
    switch (random.nextInt(5)) {
      case 0:
        unscaled = limit;
        break;
      case 1:
        unscaled = limit.negate();
        break;
      case 2:
        unscaled = BigInteger.ZERO;
        break;
      default:
        unscaled = new BigInteger(precision * 3, random).mod(limit);
        if (random.nextBoolean()) {
          unscaled = unscaled.negate();
        }
    }
    return DecimalData.fromBigDecimal(
        new BigDecimal(unscaled, type.scale()), precision, type.scale());
  }

  @SafeVarargs
  private final <T> T pick(T... choices) {
    // The last choice is the "random" one: make it the common case.
    int index = random.nextInt(choices.length * 2);
    return choices[Math.min(index, choices.length - 1)];
  }

  private byte[] bytes(int length) {
    byte[] bytes = new byte[length];
    if (random.nextInt(4) == 0) {
      java.util.Arrays.fill(bytes, (byte) 0xFF);
    } else {
      random.nextBytes(bytes);
    }
    return bytes;
  }

  private static byte[] uuidBytes(UUID uuid) {
    ByteBuffer buffer = ByteBuffer.allocate(16);
    buffer.putLong(uuid.getMostSignificantBits());
    buffer.putLong(uuid.getLeastSignificantBits());
    return buffer.array();
  }
}

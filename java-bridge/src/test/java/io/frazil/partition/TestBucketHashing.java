package io.frazil.partition;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.Random;
import java.util.UUID;
import java.util.function.Function;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.relocated.com.google.common.hash.HashFunction;
import org.apache.iceberg.relocated.com.google.common.hash.Hashing;
import org.apache.iceberg.transforms.Transforms;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;
import org.junit.jupiter.api.Test;

/**
 * Murmur3 and the per-type hash inputs against the Iceberg spec's bucket test vectors (Appendix B),
 * through the raw hash functions and through Flink rows read by {@link BucketTupleMemo}, and
 * against Iceberg's own bucket transform and Guava's murmur3_32_fixed on random values.
 */
public class TestBucketHashing {
  private static final HashFunction GUAVA = Hashing.murmur3_32_fixed();

  private static final int INT_34 = 2017239379;
  private static final int DECIMAL_14_20 = -500754589;
  private static final int DATE_2017_11_16 = -653330422;
  private static final int TIME_22_31_08 = -662762989;
  private static final int TS_22_31_08 = -2047944441;
  private static final int TS_22_31_08_000001 = -1207196810;
  private static final int STRING_ICEBERG = 1210000089;
  private static final int UUID_VECTOR = 1488055340;
  private static final int BYTES_0123 = -188683207;

  private static final LocalDateTime TS = LocalDateTime.of(2017, 11, 16, 22, 31, 8);
  private static final UUID UUID_VALUE = UUID.fromString("f79c3e09-677c-4bbd-a479-3f349cb785e7");

  // ---------------------------------------------------------------------------------------------
  // The spec's vectors, raw hash functions

  @Test
  public void theHashFunctionsGiveTheSpecTestVectors() {
    assertThat(Murmur3.hashLong(34)).isEqualTo(INT_34);
    assertThat(Murmur3.hashLong(34L)).isEqualTo(INT_34);
    assertThat(Murmur3.hashUnscaledLong(1420)).isEqualTo(DECIMAL_14_20);
    byte[] unscaled = new BigDecimal("14.20").unscaledValue().toByteArray();
    assertThat(Murmur3.hashBytes(unscaled)).isEqualTo(DECIMAL_14_20);
    long days = LocalDate.of(2017, 11, 16).toEpochDay();
    assertThat(Murmur3.hashLong(days)).isEqualTo(DATE_2017_11_16);
    long timeMicros = LocalTime.of(22, 31, 8).toNanoOfDay() / 1000;
    assertThat(Murmur3.hashLong(timeMicros)).isEqualTo(TIME_22_31_08);
    long tsMicros = DateTimeUtil.microsFromTimestamp(TS);
    assertThat(Murmur3.hashLong(tsMicros)).isEqualTo(TS_22_31_08);
    assertThat(Murmur3.hashLong(tsMicros + 1)).isEqualTo(TS_22_31_08_000001);
    assertThat(Murmur3.hashUtf8("iceberg")).isEqualTo(STRING_ICEBERG);
    byte[] iceberg = "iceberg".getBytes(StandardCharsets.UTF_8);
    assertThat(Murmur3.hashBytes(iceberg)).isEqualTo(STRING_ICEBERG);
    assertThat(Murmur3.hashBytes(uuidBytes(UUID_VALUE))).isEqualTo(UUID_VECTOR);
    assertThat(Murmur3.hashBytes(new byte[] {0, 1, 2, 3})).isEqualTo(BYTES_0123);
    MemorySegment heap = MemorySegmentFactory.wrap(new byte[] {9, 0, 1, 2, 3, 9});
    assertThat(Murmur3.hashSegment(heap, 1, 4)).isEqualTo(BYTES_0123);
    MemorySegment offHeap = MemorySegmentFactory.allocateUnpooledOffHeapMemory(6);
    offHeap.put(0, new byte[] {9, 0, 1, 2, 3, 9});
    assertThat(Murmur3.hashSegment(offHeap, 1, 4)).isEqualTo(BYTES_0123);
  }

  // ---------------------------------------------------------------------------------------------
  // The spec's vectors, through Flink rows (GenericRowData and BinaryRowData)

  @Test
  public void rowsOfEveryFlinkTypeHashToTheSpecTestVectors() {
    assertRowHash(Types.IntegerType.get(), new IntType(), 34, INT_34);
    assertRowHash(Types.IntegerType.get(), new TinyIntType(), (byte) 34, INT_34);
    assertRowHash(Types.IntegerType.get(), new SmallIntType(), (short) 34, INT_34);
    assertRowHash(Types.LongType.get(), new BigIntType(), 34L, INT_34);

    DecimalData compact = DecimalData.fromBigDecimal(new BigDecimal("14.20"), 9, 2);
    assertThat(compact.isCompact()).isTrue();
    assertRowHash(Types.DecimalType.of(9, 2), new DecimalType(9, 2), compact, DECIMAL_14_20);
    DecimalData wide = DecimalData.fromBigDecimal(new BigDecimal("14.20"), 38, 2);
    assertThat(wide.isCompact()).isFalse();
    assertRowHash(Types.DecimalType.of(38, 2), new DecimalType(38, 2), wide, DECIMAL_14_20);

    int days = (int) LocalDate.of(2017, 11, 16).toEpochDay();
    assertRowHash(Types.DateType.get(), new DateType(), days, DATE_2017_11_16);
    int timeMillis = LocalTime.of(22, 31, 8).toSecondOfDay() * 1000;
    assertRowHash(Types.TimeType.get(), new TimeType(), timeMillis, TIME_22_31_08);

    TimestampData whole = TimestampData.fromLocalDateTime(TS);
    TimestampData micro = TimestampData.fromLocalDateTime(TS.plusNanos(1_000));
    TimestampData microAndNano = TimestampData.fromLocalDateTime(TS.plusNanos(1_001));
    TimestampData wholeTz = TimestampData.fromInstant(TS.toInstant(ZoneOffset.UTC));
    TimestampData microTz =
        TimestampData.fromInstant(TS.plusNanos(1_000).toInstant(ZoneOffset.UTC));
    TimestampData microAndNanoTz =
        TimestampData.fromInstant(TS.plusNanos(1_001).toInstant(ZoneOffset.UTC));

    Type ts = Types.TimestampType.withoutZone();
    Type tstz = Types.TimestampType.withZone();
    Type tsNs = Types.TimestampNanoType.withoutZone();
    Type tstzNs = Types.TimestampNanoType.withZone();
    LogicalType flinkTs6 = new TimestampType(6);
    LogicalType flinkTs9 = new TimestampType(9);
    LogicalType flinkLtz6 = new LocalZonedTimestampType(6);
    LogicalType flinkLtz9 = new LocalZonedTimestampType(9);
    assertRowHash(ts, flinkTs6, whole, TS_22_31_08);
    assertRowHash(ts, flinkTs6, micro, TS_22_31_08_000001);
    assertRowHash(tstz, flinkLtz6, wholeTz, TS_22_31_08);
    assertRowHash(tstz, flinkLtz6, microTz, TS_22_31_08_000001);
    assertRowHash(tsNs, flinkTs9, whole, TS_22_31_08);
    assertRowHash(tsNs, flinkTs9, micro, TS_22_31_08_000001);
    assertRowHash(tsNs, flinkTs9, microAndNano, TS_22_31_08_000001); // floored to micros
    assertRowHash(tstzNs, flinkLtz9, wholeTz, TS_22_31_08);
    assertRowHash(tstzNs, flinkLtz9, microTz, TS_22_31_08_000001);
    assertRowHash(tstzNs, flinkLtz9, microAndNanoTz, TS_22_31_08_000001);

    VarCharType string = VarCharType.STRING_TYPE;
    assertRowHash(Types.StringType.get(), string, StringData.fromString("iceberg"), STRING_ICEBERG);
    assertRowHash(
        Types.StringType.get(),
        string,
        StringData.fromBytes("iceberg".getBytes(StandardCharsets.UTF_8)),
        STRING_ICEBERG);

    assertRowHash(Types.UUIDType.get(), new BinaryType(16), uuidBytes(UUID_VALUE), UUID_VECTOR);
    assertRowHash(
        Types.FixedType.ofLength(4), new BinaryType(4), new byte[] {0, 1, 2, 3}, BYTES_0123);
    assertRowHash(
        Types.BinaryType.get(),
        new VarBinaryType(VarBinaryType.MAX_LENGTH),
        new byte[] {0, 1, 2, 3},
        BYTES_0123);
  }

  /** One column of {@code icebergType}, read from a Flink row of {@code flinkType}. */
  private static void assertRowHash(
      Type icebergType, LogicalType flinkType, Object value, int expectedHash) {
    Schema schema = new Schema(Types.NestedField.optional(1, "c", icebergType));
    PartitionSpec spec = PartitionSpec.builderFor(schema).bucket("c", 16).build();
    RowType rowType = RowType.of(flinkType);
    BucketTupleMemo memo = BucketTupleMemo.create(schema, spec, rowType);
    RowData generic = GenericRowData.of(value);
    RowData binary = new RowDataSerializer(rowType).toBinaryRow(generic).copy();
    assertThat(memo.sourceHash(0, generic))
        .as("%s from %s (GenericRowData)", icebergType, flinkType)
        .isEqualTo(expectedHash);
    assertThat(memo.sourceHash(0, binary))
        .as("%s from %s (BinaryRowData)", icebergType, flinkType)
        .isEqualTo(expectedHash);
    int expectedBucket = (expectedHash & Integer.MAX_VALUE) % 16;
    assertThat(memo.key(memo.ordinal(generic)).get(0, Integer.class)).isEqualTo(expectedBucket);
    assertThat(memo.key(memo.ordinal(binary)).get(0, Integer.class)).isEqualTo(expectedBucket);
    assertThat(memo.key(memo.ordinal(GenericRowData.of((Object) null))).get(0, Integer.class))
        .isNull();
  }

  // ---------------------------------------------------------------------------------------------
  // Random values against Iceberg's bucket transform and Guava's murmur3_32_fixed

  @Test
  public void randomValuesBucketLikeIcebergsTransforms() {
    Random random = new Random(20251129L);
    int[] bucketCounts = {1, 2, 3, 7, 16, 31, 1000, 16384, Integer.MAX_VALUE};
    for (int n = 0; n < 20_000; n++) {
      int numBuckets = bucketCounts[random.nextInt(bucketCounts.length)];
      int i = random.nextInt(4) == 0 ? random.nextInt(100) - 50 : random.nextInt();
      long l = random.nextInt(4) == 0 ? random.nextInt(100) - 50 : random.nextLong();
      assertThat(Murmur3.bucket(Murmur3.hashLong(i), numBuckets))
          .isEqualTo(icebergBucket(Types.IntegerType.get(), numBuckets, i))
          .isEqualTo(icebergBucket(Types.DateType.get(), numBuckets, i));
      assertThat(Murmur3.bucket(Murmur3.hashLong(l), numBuckets))
          .isEqualTo(icebergBucket(Types.LongType.get(), numBuckets, l))
          .isEqualTo(icebergBucket(Types.TimeType.get(), numBuckets, l))
          .isEqualTo(icebergBucket(Types.TimestampType.withoutZone(), numBuckets, l))
          .isEqualTo(icebergBucket(Types.TimestampType.withZone(), numBuckets, l));
      long nanos = random.nextLong();
      assertThat(Murmur3.bucket(Murmur3.hashLong(Math.floorDiv(nanos, 1000L)), numBuckets))
          .isEqualTo(icebergBucket(Types.TimestampNanoType.withoutZone(), numBuckets, nanos))
          .isEqualTo(icebergBucket(Types.TimestampNanoType.withZone(), numBuckets, nanos));

      long unscaled = randomUnscaled(random);
      int scale = random.nextInt(19);
      BigDecimal decimal = BigDecimal.valueOf(unscaled, scale);
      assertThat(Murmur3.bucket(Murmur3.hashUnscaledLong(unscaled), numBuckets))
          .as("decimal %s", decimal)
          .isEqualTo(icebergBucket(Types.DecimalType.of(38, scale), numBuckets, decimal));
      BigDecimal big = new BigDecimal(new BigInteger(1 + random.nextInt(126), random), scale);
      if (random.nextBoolean()) {
        big = big.negate();
      }
      byte[] bigBytes = big.unscaledValue().toByteArray();
      assertThat(Murmur3.bucket(Murmur3.hashBytes(bigBytes), numBuckets))
          .isEqualTo(icebergBucket(Types.DecimalType.of(38, scale), numBuckets, big));

      String string = randomString(random);
      assertThat(Murmur3.bucket(Murmur3.hashUtf8(string), numBuckets))
          .as("string %s", string)
          .isEqualTo(icebergBucket(Types.StringType.get(), numBuckets, string));

      UUID uuid = new UUID(random.nextLong(), random.nextLong());
      assertThat(Murmur3.bucket(Murmur3.hashBytes(uuidBytes(uuid)), numBuckets))
          .isEqualTo(icebergBucket(Types.UUIDType.get(), numBuckets, uuid));

      byte[] bytes = new byte[random.nextInt(40)];
      random.nextBytes(bytes);
      assertThat(Murmur3.bucket(Murmur3.hashBytes(bytes), numBuckets))
          .isEqualTo(icebergBucket(Types.BinaryType.get(), numBuckets, ByteBuffer.wrap(bytes)))
          .isEqualTo(
              icebergBucket(
                  Types.FixedType.ofLength(Math.max(1, bytes.length)),
                  numBuckets,
                  ByteBuffer.wrap(bytes)));
    }
  }

  @Test
  public void anUnscaledLongHashesLikeItsMinimalBigEndianBytes() {
    long[] values = {
      0,
      1,
      -1,
      127,
      128,
      -128,
      -129,
      255,
      256,
      32767,
      32768,
      -32768,
      -32769,
      1L << 23,
      1L << 31,
      -(1L << 31),
      (1L << 31) - 1,
      1L << 55,
      -(1L << 55),
      Long.MAX_VALUE,
      Long.MIN_VALUE,
      999_999_999_999_999_999L,
      -999_999_999_999_999_999L
    };
    for (long value : values) {
      byte[] expected = BigInteger.valueOf(value).toByteArray();
      assertThat(Murmur3.hashUnscaledLong(value))
          .as("unscaled %d", value)
          .isEqualTo(Murmur3.hashBytes(expected))
          .isEqualTo(GUAVA.hashBytes(expected).asInt());
    }
  }

  @Test
  public void bytesAndMemorySegmentsHashLikeGuava() {
    Random random = new Random(7L);
    for (int n = 0; n < 5_000; n++) {
      byte[] bytes = new byte[random.nextInt(70)];
      random.nextBytes(bytes);
      int offset = bytes.length == 0 ? 0 : random.nextInt(bytes.length);
      int length = bytes.length == 0 ? 0 : random.nextInt(bytes.length - offset + 1);
      int expected = GUAVA.hashBytes(bytes, offset, length).asInt();
      assertThat(Murmur3.hashBytes(bytes, offset, length)).isEqualTo(expected);

      MemorySegment heap = MemorySegmentFactory.wrap(bytes);
      assertThat(Murmur3.hashSegment(heap, offset, length)).isEqualTo(expected);
      if (bytes.length > 0) {
        MemorySegment offHeap = MemorySegmentFactory.allocateUnpooledOffHeapMemory(bytes.length);
        offHeap.put(0, bytes);
        assertThat(Murmur3.hashSegment(offHeap, offset, length)).isEqualTo(expected);
        offHeap.free();

        // The same bytes spread over several equally sized segments.
        int segmentSize = 1 + random.nextInt(9);
        MemorySegment[] segments =
            new MemorySegment[(bytes.length + segmentSize - 1) / segmentSize];
        for (int s = 0; s < segments.length; s++) {
          byte[] page = new byte[segmentSize];
          System.arraycopy(
              bytes,
              s * segmentSize,
              page,
              0,
              Math.min(segmentSize, bytes.length - s * segmentSize));
          segments[s] = MemorySegmentFactory.wrap(page);
        }
        assertThat(Murmur3.hashSegments(segments, offset, length)).isEqualTo(expected);
      }
    }
  }

  @Test
  public void stringsHashAsTheirUtf8BytesLikeGuava() {
    Random random = new Random(11L);
    for (int n = 0; n < 20_000; n++) {
      String string = randomString(random);
      int expected = GUAVA.hashString(string, StandardCharsets.UTF_8).asInt();
      assertThat(Murmur3.hashUtf8(string)).as("%s", string).isEqualTo(expected);
      assertThat(Murmur3.hashBytes(string.getBytes(StandardCharsets.UTF_8))).isEqualTo(expected);
    }
    // Unpaired surrogates: replaced by '?' as String.getBytes(UTF_8) does.
    for (String odd :
        new String[] {"\ud800", "a\udc00b", "\ud83d", "x\ud83dy", "\udc00\ud800", "\ud83d\ude00"}) {
      assertThat(Murmur3.hashUtf8(odd))
          .isEqualTo(GUAVA.hashString(odd, StandardCharsets.UTF_8).asInt())
          .isEqualTo(Murmur3.hashBytes(odd.getBytes(StandardCharsets.UTF_8)));
    }
  }

  @Test
  public void utf8WellFormednessAgreesWithTheJdkDecoder() {
    Random random = new Random(13L);
    int wellFormed = 0;
    for (int n = 0; n < 50_000; n++) {
      byte[] bytes;
      if (random.nextBoolean()) {
        bytes = randomString(random).getBytes(StandardCharsets.UTF_8);
        if (bytes.length > 0 && random.nextInt(3) == 0) {
          bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256); // maybe corrupt it
        }
      } else {
        bytes = new byte[random.nextInt(6)];
        for (int i = 0; i < bytes.length; i++) {
          bytes[i] = (byte) (0x80 + random.nextInt(0x80)); // high bytes only: many edge cases
        }
        if (bytes.length > 0 && random.nextBoolean()) {
          bytes[0] = (byte) (0xc0 + random.nextInt(0x40));
        }
      }
      boolean jdk = jdkWellFormed(bytes);
      wellFormed += jdk ? 1 : 0;
      assertThat(Utf8.isWellFormed(bytes, 0, bytes.length))
          .as("%s", HexFormat.of().formatHex(bytes))
          .isEqualTo(jdk);
      if (bytes.length > 0) {
        MemorySegment offHeap = MemorySegmentFactory.allocateUnpooledOffHeapMemory(bytes.length);
        offHeap.put(0, bytes);
        assertThat(Utf8.isWellFormed(offHeap, 0, bytes.length)).isEqualTo(jdk);
        offHeap.free();
      }
    }
    assertThat(wellFormed).isGreaterThan(10_000);
  }

  // ---------------------------------------------------------------------------------------------

  private static boolean jdkWellFormed(byte[] bytes) {
    try {
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static int icebergBucket(Type type, int numBuckets, Object value) {
    Function bound = Transforms.bucket(numBuckets).bind(type);
    return (Integer) bound.apply(value);
  }

  private static long randomUnscaled(Random random) {
    switch (random.nextInt(4)) {
      case 0:
        return random.nextInt(2001) - 1000;
      case 1:
        return random.nextLong();
      case 2:
        return random.nextLong() >> random.nextInt(64);
      default:
        return random.nextBoolean() ? Long.MAX_VALUE : Long.MIN_VALUE + random.nextInt(3);
    }
  }

  /** ASCII, 2-, 3- and 4-byte characters, empty strings and (rarely) unpaired surrogates. */
  static String randomString(Random random) {
    int length = random.nextInt(10) == 0 ? 0 : random.nextInt(24);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < length; i++) {
      switch (random.nextInt(8)) {
        case 0:
          sb.append((char) (0x80 + random.nextInt(0x780))); // 2 bytes
          break;
        case 1:
          sb.append((char) (0x800 + random.nextInt(0xd000 - 0x800))); // 3 bytes
          break;
        case 2:
          sb.appendCodePoint(0x10000 + random.nextInt(0x100000)); // 4 bytes
          break;
        case 3:
          if (random.nextInt(20) == 0) {
            sb.append((char) (0xd800 + random.nextInt(0x800))); // unpaired surrogate
          } else {
            sb.append((char) (0xe000 + random.nextInt(0x2000)));
          }
          break;
        default:
          sb.append((char) (0x20 + random.nextInt(0x5f)));
      }
    }
    return sb.toString();
  }

  static byte[] uuidBytes(UUID uuid) {
    return ByteBuffer.allocate(16)
        .putLong(uuid.getMostSignificantBits())
        .putLong(uuid.getLeastSignificantBits())
        .array();
  }
}

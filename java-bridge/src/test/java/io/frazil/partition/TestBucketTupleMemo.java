package io.frazil.partition;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.RowDataWrapper;
import org.apache.iceberg.flink.sink.PartitionKeySelector;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * {@link BucketTupleMemo} and {@link FrazilPartitionKeySelector} against stock Iceberg: for random
 * rows over every bucketable type, the memoized key equals what {@code
 * PartitionKey.partition(RowDataWrapper.wrap(row))} yields and the selector returns what {@code
 * PartitionKeySelector} returns (the pattern of Iceberg's {@code TestRowDataPartitionKey}, with
 * bucket specs).
 */
public class TestBucketTupleMemo {
  private static final int ROWS = 20_000;
  private static final long SEED = 4242L;

  /** Every bucketable type, a nested struct, a required column, and unbucketable types. */
  private static final Schema SCHEMA =
      new Schema(
          optional(1, "i", Types.IntegerType.get()),
          optional(2, "l", Types.LongType.get()),
          optional(3, "d", Types.DateType.get()),
          optional(4, "t", Types.TimeType.get()),
          optional(5, "ts", Types.TimestampType.withoutZone()),
          optional(6, "tstz", Types.TimestampType.withZone()),
          optional(7, "ts_ns", Types.TimestampNanoType.withoutZone()),
          optional(8, "tstz_ns", Types.TimestampNanoType.withZone()),
          optional(9, "dec9", Types.DecimalType.of(9, 2)),
          optional(10, "dec18", Types.DecimalType.of(18, 4)),
          optional(11, "dec38", Types.DecimalType.of(38, 10)),
          optional(12, "s", Types.StringType.get()),
          optional(13, "u", Types.UUIDType.get()),
          optional(14, "fx", Types.FixedType.ofLength(16)),
          optional(15, "bin", Types.BinaryType.get()),
          optional(
              16,
              "st",
              Types.StructType.of(
                  optional(17, "inner_l", Types.LongType.get()),
                  optional(18, "inner_s", Types.StringType.get()),
                  optional(
                      19,
                      "deep",
                      Types.StructType.of(optional(20, "deep_i", Types.IntegerType.get()))))),
          required(21, "req_l", Types.LongType.get()),
          optional(22, "b", Types.BooleanType.get()),
          optional(23, "f", Types.FloatType.get()),
          optional(24, "dbl", Types.DoubleType.get()));

  private static final RowType ROW_TYPE = FlinkSchemaUtil.convert(SCHEMA);

  private static final String[] BUCKETABLE = {
    "i",
    "l",
    "d",
    "t",
    "ts",
    "tstz",
    "ts_ns",
    "tstz_ns",
    "dec9",
    "dec18",
    "dec38",
    "s",
    "u",
    "fx",
    "bin",
    "st.inner_l",
    "st.inner_s",
    "st.deep.deep_i",
    "req_l"
  };

  // ---------------------------------------------------------------------------------------------
  // Equivalence with stock Iceberg

  @Test
  public void theTestRowTypeIsWhatFlinkSinkUses() {
    assertThat(ROW_TYPE.getTypeAt(6).asSummaryString()).isEqualTo("TIMESTAMP(9)");
    assertThat(ROW_TYPE.getTypeAt(7).asSummaryString()).isEqualTo("TIMESTAMP_LTZ(9)");
    assertThat(ROW_TYPE.getTypeAt(12).asSummaryString()).isEqualTo("BINARY(16)");
  }

  @Test
  public void everyBucketableTypeAloneBucketsLikeStock() {
    for (String column : BUCKETABLE) {
      PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).bucket(column, 13).build();
      assertEquivalent(SCHEMA, ROW_TYPE, spec, rows(SEED + column.hashCode(), ROWS));
    }
  }

  @Test
  public void aSingleLongBucketHasOneSlotPerBucketAndANullSlot() {
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).bucket("l", 4).build();
    BucketTupleMemo memo = assertEquivalent(SCHEMA, ROW_TYPE, spec, rows(SEED, ROWS));
    assertThat(memo.size()).isEqualTo(5);
    assertThat(memo.spec()).isSameAs(spec);
    assertThat(memo.path(4)).isEqualTo("l_bucket=null");
    for (int b = 0; b < 4; b++) {
      assertThat(memo.key(b).get(0, Integer.class)).isEqualTo(b);
      assertThat(memo.path(b)).isEqualTo("l_bucket=" + b);
    }
  }

  @Test
  public void aThreeFieldSpecNumbersItsTuplesInMixedRadix() {
    PartitionSpec spec =
        PartitionSpec.builderFor(SCHEMA).bucket("s", 3).bucket("dec9", 7).bucket("d", 5).build();
    BucketTupleMemo memo = assertEquivalent(SCHEMA, ROW_TYPE, spec, rows(SEED + 1, ROWS));
    assertThat(memo.size()).isEqualTo(4 * 8 * 6);
    // Mixed radix, first field most significant, null = slot N.
    int ordinal = (1 * 8 + 7) * 6 + 2;
    PartitionKey key = memo.key(ordinal);
    assertThat(key.get(0, Integer.class)).isEqualTo(1);
    assertThat(key.get(1, Integer.class)).isNull();
    assertThat(key.get(2, Integer.class)).isEqualTo(2);
    assertThat(memo.path(ordinal)).isEqualTo("s_bucket=1/dec9_bucket=null/d_bucket=2");
  }

  @Test
  public void exactly1024TuplesAreEligible() {
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).bucket("i", 31).bucket("s", 31).build();
    assertThat(BucketTupleMemo.isEligible(spec)).isTrue();
    BucketTupleMemo memo = assertEquivalent(SCHEMA, ROW_TYPE, spec, rows(SEED + 2, ROWS));
    assertThat(memo.size()).isEqualTo(BucketTupleMemo.MAX_TUPLES);
  }

  @Test
  public void allTimestampsAndDecimalsTogetherBucketLikeStock() {
    PartitionSpec spec =
        PartitionSpec.builderFor(SCHEMA)
            .bucket("ts", 2)
            .bucket("tstz", 2)
            .bucket("ts_ns", 2)
            .bucket("tstz_ns", 2)
            .bucket("dec18", 2)
            .bucket("dec38", 2)
            .build();
    BucketTupleMemo memo = assertEquivalent(SCHEMA, ROW_TYPE, spec, rows(SEED + 3, ROWS));
    assertThat(memo.size()).isEqualTo(729);
  }

  @Test
  public void binaryTypesAndTimeTogetherBucketLikeStock() {
    PartitionSpec spec =
        PartitionSpec.builderFor(SCHEMA)
            .bucket("u", 3)
            .bucket("fx", 3)
            .bucket("bin", 3)
            .bucket("t", 3)
            .bucket("dec38", 3)
            .build();
    assertEquivalent(SCHEMA, ROW_TYPE, spec, rows(SEED + 4, ROWS));
  }

  @Test
  public void sourcesNestedInStructsBucketLikeStock() {
    PartitionSpec spec =
        PartitionSpec.builderFor(SCHEMA)
            .bucket("st.inner_l", 8)
            .bucket("st.inner_s", 5)
            .bucket("st.deep.deep_i", 3)
            .build();
    BucketTupleMemo memo = assertEquivalent(SCHEMA, ROW_TYPE, spec, rows(SEED + 5, ROWS));
    assertThat(memo.size()).isEqualTo(9 * 6 * 4);
  }

  @Test
  public void aRequiredSourceColumnBucketsLikeStock() {
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).bucket("req_l", 10).build();
    assertEquivalent(SCHEMA, ROW_TYPE, spec, rows(SEED + 6, ROWS));
  }

  @Test
  public void partitionFieldNamesAreEscapedInPathsLikeStock() {
    PartitionSpec spec =
        PartitionSpec.builderFor(SCHEMA)
            .bucket("s", 5, "s bucket/é=%")
            .bucket("l", 6, "l&b+1")
            .build();
    BucketTupleMemo memo = assertEquivalent(SCHEMA, ROW_TYPE, spec, rows(SEED + 7, ROWS));
    assertThat(memo.path(0)).isEqualTo("s+bucket%2F%C3%A9%3D%25=0/l%26b%2B1=0");
  }

  @Test
  public void tinyIntAndSmallIntColumnsBucketLikeStock() {
    // As FlinkSink's toFlinkRowType: Iceberg int columns written from TINYINT / SMALLINT.
    Schema schema =
        new Schema(
            optional(1, "ti", Types.IntegerType.get()),
            optional(2, "si", Types.IntegerType.get()),
            required(3, "id", Types.LongType.get()));
    RowType rowType =
        RowType.of(
            new LogicalType[] {new TinyIntType(), new SmallIntType(), new BigIntType(false)},
            new String[] {"ti", "si", "id"});
    Random random = new Random(SEED + 8);
    List<RowData> rows = new ArrayList<>();
    for (int n = 0; n < ROWS; n++) {
      GenericRowData row =
          GenericRowData.of(
              random.nextInt(10) == 0 ? null : (byte) random.nextInt(256),
              random.nextInt(10) == 0 ? null : (short) random.nextInt(65536),
              random.nextLong());
      rows.add(n % 4 == 3 ? binary(rowType, row) : row);
    }
    PartitionSpec spec = PartitionSpec.builderFor(schema).bucket("ti", 16).bucket("si", 16).build();
    BucketTupleMemo memo = assertEquivalent(schema, rowType, spec, rows);
    assertThat(memo.size()).isEqualTo(289);
  }

  /**
   * Iceberg's accessors null-check optional parents, and required parents only when they wrap a
   * three-position accessor; elsewhere a null required parent throws NullPointerException. The memo
   * reproduces both.
   */
  @Test
  public void nullParentStructsGiveNullOrThrowLikeIcebergAccessors() {
    Schema schema =
        new Schema(
            required(
                1,
                "a",
                Types.StructType.of(
                    required(
                        2,
                        "b",
                        Types.StructType.of(
                            required(
                                3,
                                "c",
                                Types.StructType.of(optional(4, "x", Types.LongType.get()))))))),
            optional(
                5,
                "o",
                Types.StructType.of(
                    required(
                        6, "p", Types.StructType.of(optional(7, "y", Types.LongType.get()))))));
    RowType rowType = FlinkSchemaUtil.convert(schema);
    PartitionSpec spec =
        PartitionSpec.builderFor(schema).bucket("a.b.c.x", 4).bucket("o.p.y", 4).build();
    BucketTupleMemo memo = BucketTupleMemo.create(schema, spec, rowType);

    RowData okO = GenericRowData.of(GenericRowData.of(GenericRowData.of(7L)));
    RowData okA = GenericRowData.of(GenericRowData.of(GenericRowData.of(GenericRowData.of(5L))));
    List<RowData> rows =
        List.of(
            GenericRowData.of(okA.getRow(0, 1), okO.getRow(0, 1)),
            GenericRowData.of(null, okO.getRow(0, 1)), // a null: wrapped accessor, null value
            GenericRowData.of(GenericRowData.of((Object) null), okO.getRow(0, 1)), // b null: NPE
            GenericRowData.of(GenericRowData.of(GenericRowData.of((Object) null)), null), // c: NPE
            GenericRowData.of(okA.getRow(0, 1), null), // o null: optional, null value
            GenericRowData.of(okA.getRow(0, 1), GenericRowData.of((Object) null)), // p null: NPE
            GenericRowData.of(null, null));
    PartitionKey stock = new PartitionKey(spec, schema);
    RowDataWrapper wrapper = new RowDataWrapper(rowType, schema.asStruct());
    FrazilPartitionKeySelector selector = new FrazilPartitionKeySelector(spec, schema, rowType);
    PartitionKeySelector stockSelector = new PartitionKeySelector(spec, schema, rowType);
    int thrown = 0;
    int nullValues = 0;
    for (RowData row : rows) {
      RuntimeException stockError = null;
      try {
        stock.partition(wrapper.wrap(row));
      } catch (RuntimeException e) {
        stockError = e;
      }
      if (stockError != null) {
        assertThat(stockError).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> memo.ordinal(row)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> selector.getKey(row)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> stockSelector.getKey(row))
            .isInstanceOf(NullPointerException.class);
        thrown++;
      } else {
        PartitionKey key = memo.key(memo.ordinal(row));
        assertThat(key).isEqualTo(stock);
        assertThat(key.hashCode()).isEqualTo(stock.hashCode());
        assertThat(selector.getKey(row)).isEqualTo(stockSelector.getKey(row));
        nullValues += key.get(0, Integer.class) == null ? 1 : 0;
        nullValues += key.get(1, Integer.class) == null ? 1 : 0;
      }
    }
    assertThat(thrown).isEqualTo(3);
    assertThat(nullValues).isEqualTo(4);
  }

  /**
   * The fast paths must not hide a wrong bucket behind agreement with themselves: rows as
   * BinaryRowData (strings in memory segments, compact and non-compact timestamps and decimals,
   * nested rows) and strings in every representation are part of {@link #rows}. This checks that
   * the generator really produced them.
   */
  @Test
  public void theFixtureCoversEveryRowAndStringRepresentation() {
    List<RowData> rows = rows(SEED, 2_000);
    long binaryRows = rows.stream().filter(r -> !(r instanceof GenericRowData)).count();
    assertThat(binaryRows).isGreaterThan(300);
    long invalidUtf8 =
        rows.stream()
            .filter(r -> r instanceof GenericRowData && !r.isNullAt(11))
            .map(r -> r.getString(11).toBytes())
            .filter(bytes -> !Utf8.isWellFormed(bytes, 0, bytes.length))
            .count();
    assertThat(invalidUtf8).isGreaterThan(5);
  }

  // ---------------------------------------------------------------------------------------------
  // Eligibility

  @Test
  public void theTupleSpaceLimitDecidesEligibility() {
    PartitionSpec tooMany =
        PartitionSpec.builderFor(SCHEMA).bucket("i", 32).bucket("s", 31).build();
    assertThat(BucketTupleMemo.isEligible(tooMany)).isFalse(); // 33 x 32 = 1056
    assertThatThrownBy(() -> BucketTupleMemo.create(SCHEMA, tooMany, ROW_TYPE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1024");
    assertSelectorsAgree(SCHEMA, ROW_TYPE, tooMany, rows(SEED + 9, 5_000), false);

    PartitionSpec huge =
        PartitionSpec.builderFor(SCHEMA)
            .bucket("i", Integer.MAX_VALUE)
            .bucket("l", Integer.MAX_VALUE)
            .bucket("s", Integer.MAX_VALUE)
            .bucket("d", Integer.MAX_VALUE)
            .build();
    assertThat(BucketTupleMemo.isEligible(huge)).isFalse(); // no overflow into a small product
    PartitionSpec big = PartitionSpec.builderFor(SCHEMA).bucket("i", 16384).build();
    assertThat(BucketTupleMemo.isEligible(big)).isFalse();
    PartitionSpec edge = PartitionSpec.builderFor(SCHEMA).bucket("i", 1023).build();
    assertThat(BucketTupleMemo.isEligible(edge)).isTrue();
    PartitionSpec one = PartitionSpec.builderFor(SCHEMA).bucket("i", 1).build();
    assertThat(BucketTupleMemo.isEligible(one)).isTrue();
    assertEquivalent(SCHEMA, ROW_TYPE, one, rows(SEED + 10, 2_000));
  }

  @Test
  public void otherTransformsAreNotEligible() {
    List<PartitionSpec> specs =
        List.of(
            PartitionSpec.unpartitioned(),
            PartitionSpec.builderFor(SCHEMA).identity("l").build(),
            PartitionSpec.builderFor(SCHEMA).truncate("s", 4).build(),
            PartitionSpec.builderFor(SCHEMA).day("ts").build(),
            PartitionSpec.builderFor(SCHEMA).hour("tstz").build(),
            PartitionSpec.builderFor(SCHEMA).year("d").build(),
            PartitionSpec.builderFor(SCHEMA).alwaysNull("l").build(),
            PartitionSpec.builderFor(SCHEMA).bucket("l", 4).identity("i").build(),
            PartitionSpec.builderFor(SCHEMA).bucket("l", 4).alwaysNull("i").build());
    for (PartitionSpec spec : specs) {
      assertThat(BucketTupleMemo.isEligible(spec)).as("%s", spec).isFalse();
      assertThatThrownBy(() -> BucketTupleMemo.create(SCHEMA, spec, ROW_TYPE))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("not memoizable");
      assertSelectorsAgree(SCHEMA, ROW_TYPE, spec, rows(SEED + spec.hashCode(), 3_000), false);
    }
    assertThat(BucketTupleMemo.isEligible(null)).isFalse();
  }

  @Test
  public void unbucketableSourcesAreRejectedByName() {
    // A spec built against long columns, applied to a schema where those ids are boolean, float,
    // double (Iceberg's builder itself refuses bucket[N] on those types).
    Schema longs =
        new Schema(
            optional(22, "b", Types.LongType.get()),
            optional(23, "f", Types.LongType.get()),
            optional(24, "dbl", Types.LongType.get()));
    for (String column : new String[] {"b", "f", "dbl"}) {
      PartitionSpec spec = PartitionSpec.builderFor(longs).bucket(column, 4).build();
      assertThat(BucketTupleMemo.isEligible(spec)).isTrue();
      assertThatThrownBy(() -> BucketTupleMemo.create(SCHEMA, spec, ROW_TYPE))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'" + column + "'")
          .hasMessageContaining("Cannot bucket by type");
      // Stock fails to build its key for these; so does the selector (through stock).
      assertThatThrownBy(() -> new PartitionKeySelector(spec, SCHEMA, ROW_TYPE))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> new FrazilPartitionKeySelector(spec, SCHEMA, ROW_TYPE))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  public void aMismatchedFlinkTypeIsRejected() {
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).bucket("l", 4).build();
    LogicalType[] types = ROW_TYPE.getChildren().toArray(new LogicalType[0]);
    types[1] = new VarCharType(10);
    RowType wrong = RowType.of(types, ROW_TYPE.getFieldNames().toArray(new String[0]));
    assertThatThrownBy(() -> BucketTupleMemo.create(SCHEMA, spec, wrong))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'l'");
    RowType narrow = FlinkSchemaUtil.convert(new Schema(optional(2, "l", Types.LongType.get())));
    assertThatThrownBy(() -> BucketTupleMemo.create(SCHEMA, spec, narrow))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // ---------------------------------------------------------------------------------------------
  // Serialization, allocation, cache

  @Test
  public void theSelectorSurvivesJavaSerialization() throws Exception {
    PartitionSpec eligible =
        PartitionSpec.builderFor(SCHEMA).bucket("s", 7).bucket("st.inner_l", 9).build();
    PartitionSpec ineligible =
        PartitionSpec.builderFor(SCHEMA).bucket("s", 7).identity("i").build();
    for (PartitionSpec spec : List.of(eligible, ineligible)) {
      FrazilPartitionKeySelector original = new FrazilPartitionKeySelector(spec, SCHEMA, ROW_TYPE);
      List<RowData> rows = rows(SEED + 11, 2_000);
      original.getKey(rows.get(0)); // used before shipping, as after a restore
      FrazilPartitionKeySelector copy = roundTrip(original);
      assertThat(copy.isMemoized()).isEqualTo(spec == eligible);
      PartitionKeySelector stock = roundTrip(new PartitionKeySelector(spec, SCHEMA, ROW_TYPE));
      for (RowData row : rows) {
        assertThat(copy.getKey(row)).isEqualTo(stock.getKey(row));
      }
      FrazilPartitionKeySelector fresh =
          roundTrip(new FrazilPartitionKeySelector(spec, SCHEMA, ROW_TYPE));
      for (RowData row : rows) {
        assertThat(fresh.getKey(row)).isEqualTo(original.getKey(row));
      }
    }
  }

  @Test
  public void ordinalDoesNotAllocateOnGenericRows() {
    // Every compact representation: strings as Java Strings and as well-formed UTF-8 bytes.
    PartitionSpec spec =
        PartitionSpec.builderFor(SCHEMA)
            .bucket("l", 3)
            .bucket("s", 3)
            .bucket("ts", 3)
            .bucket("dec18", 3)
            .bucket("u", 3)
            .build();
    BucketTupleMemo memo = BucketTupleMemo.create(SCHEMA, spec, ROW_TYPE);
    // Decide on one copy of the rows (toString() caches a decoded String in the string object),
    // measure on a fresh, identical copy, so byte-backed strings are hashed from their segments.
    List<RowData> probe = rows(SEED + 12, 4_000);
    List<RowData> fresh = rows(SEED + 12, 4_000);
    List<RowData> list = new ArrayList<>();
    int byteBacked = 0;
    for (int n = 0; n < probe.size(); n++) {
      RowData row = probe.get(n);
      if (!(row instanceof GenericRowData)) {
        continue; // BinaryRowData getters create wrappers (Flink's, not the memo's)
      }
      StringData string = row.isNullAt(11) ? null : row.getString(11);
      byte[] utf8 = string == null ? null : string.toString().getBytes(StandardCharsets.UTF_8);
      if (string == null || Arrays.equals(utf8, string.toBytes())) {
        // Malformed UTF-8 takes stock's (allocating) route by design.
        RowData measured = fresh.get(n);
        list.add(measured);
        if (!measured.isNullAt(11)
            && ((BinaryStringData) measured.getString(11)).getJavaObject() == null) {
          byteBacked++;
        }
      }
    }
    assertThat(byteBacked).isGreaterThan(500);
    RowData[] rows = list.toArray(new RowData[0]);
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long sink = 0;
    for (int warm = 0; warm < 20; warm++) {
      for (RowData row : rows) {
        sink += memo.ordinal(row);
      }
    }
    long before = threads.getCurrentThreadAllocatedBytes();
    for (int rep = 0; rep < 50; rep++) {
      for (int n = 0; n < rows.length; n++) {
        sink += memo.ordinal(rows[n]);
      }
    }
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    assertThat(sink).isPositive();
    assertThat(allocated)
        .as("bytes allocated by %,d ordinal() calls", 50L * rows.length)
        .isLessThan(4096);
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * Every row: the memoized key equals stock's (both ways, hashCode, toPath), the selector returns
   * stock's string; afterwards all prebuilt keys are unchanged.
   */
  private static BucketTupleMemo assertEquivalent(
      Schema schema, RowType rowType, PartitionSpec spec, List<RowData> rows) {
    assertThat(BucketTupleMemo.isEligible(spec)).as("%s", spec).isTrue();
    BucketTupleMemo memo = BucketTupleMemo.create(schema, spec, rowType);
    int size = memo.size();
    List<PartitionKey> before = new ArrayList<>();
    List<String> beforePaths = new ArrayList<>();
    List<PartitionKey> instances = new ArrayList<>();
    for (int o = 0; o < size; o++) {
      before.add(memo.key(o).copy());
      beforePaths.add(memo.key(o).toPath());
      instances.add(memo.key(o));
      assertThat(memo.path(o)).isEqualTo(beforePaths.get(o));
    }

    PartitionKey stock = new PartitionKey(spec, schema);
    RowDataWrapper wrapper = new RowDataWrapper(rowType, schema.asStruct());
    FrazilPartitionKeySelector selector = new FrazilPartitionKeySelector(spec, schema, rowType);
    assertThat(selector.isMemoized()).isTrue();
    PartitionKeySelector stockSelector = new PartitionKeySelector(spec, schema, rowType);
    BitSet seen = new BitSet(size);
    int index = 0;
    for (RowData row : rows) {
      int ordinal = memo.ordinal(row); // first, while strings are as generated
      if (ordinal < 0 || ordinal >= size) {
        fail("row %d of %s: ordinal %d out of [0, %d)", index, spec, ordinal, size);
      }
      seen.set(ordinal);
      PartitionKey key = memo.key(ordinal);
      stock.partition(wrapper.wrap(row));
      String path = memo.path(ordinal);
      if (!key.equals(stock)
          || !stock.equals(key)
          || key.hashCode() != stock.hashCode()
          || !path.equals(stock.toPath())) {
        fail(
            "row %d of %s: memo %s (%s), stock %s (%s); row %s",
            index, spec, key, path, stock, stock.toPath(), row);
      }
      String frazilKey = selector.getKey(row);
      String stockKey = stockSelector.getKey(row);
      if (!frazilKey.equals(stockKey)) {
        fail("row %d of %s: selector %s, stock selector %s", index, spec, frazilKey, stockKey);
      }
      index++;
    }
    for (int o = 0; o < size; o++) {
      assertThat(memo.key(o)).isSameAs(instances.get(o));
      assertThat(memo.key(o)).isEqualTo(before.get(o));
      assertThat(memo.key(o).hashCode()).isEqualTo(before.get(o).hashCode());
      assertThat(memo.key(o).toPath()).isEqualTo(beforePaths.get(o));
      assertThat(memo.path(o)).isEqualTo(beforePaths.get(o));
    }
    // Random data reaches a good share of the tuples (not one bucket for everything).
    assertThat(seen.cardinality())
        .as("tuples seen of %d for %s", size, spec)
        .isGreaterThanOrEqualTo(Math.min(size, Math.max(2, size / 2)));
    return memo;
  }

  private static void assertSelectorsAgree(
      Schema schema, RowType rowType, PartitionSpec spec, List<RowData> rows, boolean memoized) {
    FrazilPartitionKeySelector selector = new FrazilPartitionKeySelector(spec, schema, rowType);
    assertThat(selector.isMemoized()).isEqualTo(memoized);
    PartitionKeySelector stock = new PartitionKeySelector(spec, schema, rowType);
    for (RowData row : rows) {
      String key = selector.getKey(row);
      String expected = stock.getKey(row);
      if (!key.equals(expected)) {
        fail("%s: selector %s, stock %s", spec, key, expected);
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> T roundTrip(T object) throws IOException, ClassNotFoundException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(object);
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return (T) in.readObject();
    }
  }

  private static RowData binary(RowType rowType, RowData row) {
    return new RowDataSerializer(rowType).toBinaryRow(row).copy();
  }

  // ---------------------------------------------------------------------------------------------
  // Random rows of SCHEMA: ~10% nulls in optional columns, every fourth row as BinaryRowData.

  static List<RowData> rows(long seed, int count) {
    Random random = new Random(seed);
    RowDataSerializer serializer = new RowDataSerializer(ROW_TYPE);
    List<RowData> rows = new ArrayList<>(count);
    for (int n = 0; n < count; n++) {
      GenericRowData row = new GenericRowData(ROW_TYPE.getFieldCount());
      row.setField(0, nullable(random, randomInt(random)));
      row.setField(1, nullable(random, randomLong(random)));
      row.setField(2, nullable(random, random.nextInt(60_001) - 30_000));
      row.setField(3, nullable(random, random.nextInt(86_400_000)));
      row.setField(4, nullable(random, randomTimestamp(random)));
      row.setField(5, nullable(random, randomTimestamp(random)));
      row.setField(6, nullable(random, randomTimestamp(random)));
      row.setField(7, nullable(random, randomTimestamp(random)));
      row.setField(8, nullable(random, DecimalData.fromUnscaledLong(unscaled(random, 9), 9, 2)));
      row.setField(9, nullable(random, DecimalData.fromUnscaledLong(unscaled(random, 18), 18, 4)));
      row.setField(10, nullable(random, decimal38(random)));
      row.setField(11, nullable(random, randomStringData(random)));
      row.setField(12, nullable(random, randomBytes(random, 16)));
      row.setField(13, nullable(random, randomBytes(random, 16)));
      row.setField(14, nullable(random, randomBytes(random, random.nextInt(21))));
      GenericRowData deep =
          random.nextInt(10) == 0 ? null : GenericRowData.of(nullable(random, randomInt(random)));
      row.setField(
          15,
          random.nextInt(10) == 0
              ? null
              : GenericRowData.of(
                  nullable(random, randomLong(random)),
                  nullable(random, randomStringData(random)),
                  deep));
      row.setField(16, randomLong(random));
      row.setField(17, nullable(random, random.nextBoolean()));
      row.setField(18, nullable(random, random.nextFloat()));
      row.setField(19, nullable(random, random.nextDouble()));
      rows.add(n % 4 == 3 ? serializer.toBinaryRow(row).copy() : row);
    }
    return rows;
  }

  private static <T> T nullable(Random random, T value) {
    return random.nextInt(10) == 0 ? null : value;
  }

  private static int randomInt(Random random) {
    return random.nextInt(3) == 0 ? random.nextInt(200) - 100 : random.nextInt();
  }

  private static long randomLong(Random random) {
    return random.nextInt(3) == 0 ? random.nextInt(2000) - 1000 : random.nextLong();
  }

  /** 1811 to 2128, nanos of milli either whole micros or arbitrary (negative instants too). */
  private static TimestampData randomTimestamp(Random random) {
    long millis = (long) ((random.nextDouble() * 2 - 1) * 5e12);
    if (random.nextInt(8) == 0) {
      millis = random.nextInt(2001) - 1000; // around the epoch
    }
    int nanoOfMilli =
        random.nextBoolean() ? random.nextInt(1000) * 1000 : random.nextInt(1_000_000);
    return TimestampData.fromEpochMillis(millis, nanoOfMilli);
  }

  private static long unscaled(Random random, int precision) {
    long bound = BigInteger.TEN.pow(precision).longValueExact() - 1;
    switch (random.nextInt(5)) {
      case 0:
        return 0;
      case 1:
        return random.nextInt(2001) - 1000;
      case 2:
        return random.nextBoolean() ? bound : -bound;
      default:
        return (long) ((random.nextDouble() * 2 - 1) * bound);
    }
  }

  private static DecimalData decimal38(Random random) {
    BigInteger unscaled;
    switch (random.nextInt(4)) {
      case 0:
        unscaled = BigInteger.valueOf(random.nextInt(2001) - 1000);
        break;
      case 1:
        unscaled = BigInteger.ZERO;
        break;
      default:
        unscaled = new BigInteger(1 + random.nextInt(125), random);
        if (random.nextBoolean()) {
          unscaled = unscaled.negate();
        }
    }
    return DecimalData.fromBigDecimal(new BigDecimal(unscaled, 10), 38, 10);
  }

  /** Java-String-backed, UTF-8-byte-backed, and (rarely) malformed UTF-8 bytes. */
  private static StringData randomStringData(Random random) {
    int kind = random.nextInt(50);
    if (kind == 0) {
      byte[] bytes = randomBytes(random, 1 + random.nextInt(8));
      bytes[random.nextInt(bytes.length)] = (byte) (0x80 + random.nextInt(0x80));
      return StringData.fromBytes(bytes);
    }
    String string = TestBucketHashing.randomString(random);
    if (kind % 2 == 0) {
      return StringData.fromString(string);
    }
    return StringData.fromBytes(string.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] randomBytes(Random random, int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }
}

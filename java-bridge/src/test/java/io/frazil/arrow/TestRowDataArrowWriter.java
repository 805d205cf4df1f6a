package io.frazil.arrow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

public class TestRowDataArrowWriter {
  /** The two RowData shapes a sink sees: built by user code, or produced by Flink's runtime. */
  enum RowFormat {
    GENERIC,
    BINARY;

    Function<GenericRowData, RowData> converter(RowType type) {
      if (this == GENERIC) {
        return row -> row;
      }

      // toBinaryRow reuses its output row, which also checks that the writer copies values.
      RowDataSerializer serializer = new RowDataSerializer(type);
      return serializer::toBinaryRow;
    }
  }

  private static final String NON_ASCII = "Grüße aus Köln, 世界! ünïcödé ✓ 🎉 ñ";

  private BufferAllocator allocator;

  @BeforeEach
  public void before() {
    this.allocator = new RootAllocator();
  }

  @AfterEach
  public void after() {
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
  }

  @ParameterizedTest
  @EnumSource(RowFormat.class)
  public void everyPrimitiveTypeIsCopiedIntoItsArrowVector(RowFormat format) {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.IntegerType.get()),
            Types.NestedField.optional(2, "b", Types.BooleanType.get()),
            Types.NestedField.optional(3, "l", Types.LongType.get()),
            Types.NestedField.optional(4, "f", Types.FloatType.get()),
            Types.NestedField.optional(5, "d", Types.DoubleType.get()),
            Types.NestedField.optional(6, "date", Types.DateType.get()),
            Types.NestedField.optional(7, "time", Types.TimeType.get()),
            Types.NestedField.optional(8, "ts", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(9, "tstz", Types.TimestampType.withZone()),
            Types.NestedField.optional(10, "ts_ns", Types.TimestampNanoType.withoutZone()),
            Types.NestedField.optional(11, "tstz_ns", Types.TimestampNanoType.withZone()),
            Types.NestedField.optional(12, "s", Types.StringType.get()),
            Types.NestedField.optional(13, "u", Types.UUIDType.get()),
            Types.NestedField.optional(14, "fx", Types.FixedType.ofLength(3)),
            Types.NestedField.optional(15, "bin", Types.BinaryType.get()));
    RowType flinkType = FlinkSchemaUtil.convert(schema);
    Function<GenericRowData, RowData> converter = format.converter(flinkType);
    UUID uuid = UUID.fromString("f79c3e09-677c-4bbd-a479-3f349cb785e7");

    try (RowDataArrowWriter writer = new RowDataArrowWriter(schema, flinkType, allocator)) {
      writer.write(
          converter.apply(
              GenericRowData.of(
                  1,
                  true,
                  Long.MIN_VALUE,
                  Float.NaN,
                  -0.0d,
                  -1,
                  45_296_789,
                  TimestampData.fromEpochMillis(1_700_000_000_123L, 456_789),
                  TimestampData.fromEpochMillis(-1L, 999_999),
                  TimestampData.fromEpochMillis(1_234L, 567_891),
                  TimestampData.fromEpochMillis(-5L, 1),
                  StringData.fromString(NON_ASCII),
                  uuidBytes(uuid),
                  new byte[] {1, 2, 3},
                  new byte[] {0, -1, 127, -128})));
      writer.write(
          converter.apply(
              GenericRowData.of(
                  2,
                  false,
                  Long.MAX_VALUE,
                  -0.0f,
                  Double.NaN,
                  19_000,
                  0,
                  TimestampData.fromEpochMillis(0L),
                  TimestampData.fromEpochMillis(-86_400_000L),
                  TimestampData.fromEpochMillis(-1L, 1),
                  TimestampData.fromEpochMillis(1L, 999_999),
                  StringData.fromString(""),
                  new byte[16],
                  new byte[3],
                  new byte[0])));
      GenericRowData nulls = new GenericRowData(15);
      nulls.setField(0, 3);
      writer.write(converter.apply(nulls));
      writer.finishBatch();

      VectorSchemaRoot root = writer.root();
      assertThat(writer.rowCount()).isEqualTo(3);
      assertThat(root.getRowCount()).isEqualTo(3);
      assertThat(root.getSchema()).isEqualTo(IcebergArrowSchema.convert(schema));

      IntVector id = (IntVector) root.getVector("id");
      assertThat(List.of(id.get(0), id.get(1), id.get(2))).containsExactly(1, 2, 3);

      BitVector bool = (BitVector) root.getVector("b");
      assertThat(bool.get(0)).isEqualTo(1);
      assertThat(bool.get(1)).isEqualTo(0);

      BigIntVector longs = (BigIntVector) root.getVector("l");
      assertThat(longs.get(0)).isEqualTo(Long.MIN_VALUE);
      assertThat(longs.get(1)).isEqualTo(Long.MAX_VALUE);

      Float4Vector floats = (Float4Vector) root.getVector("f");
      assertThat(Float.floatToRawIntBits(floats.get(0)))
          .isEqualTo(Float.floatToRawIntBits(Float.NaN));
      assertThat(Float.floatToRawIntBits(floats.get(1))).isEqualTo(Float.floatToRawIntBits(-0.0f));

      Float8Vector doubles = (Float8Vector) root.getVector("d");
      assertThat(Double.doubleToRawLongBits(doubles.get(0)))
          .isEqualTo(Double.doubleToRawLongBits(-0.0d));
      assertThat(Double.doubleToRawLongBits(doubles.get(1)))
          .isEqualTo(Double.doubleToRawLongBits(Double.NaN));

      DateDayVector dates = (DateDayVector) root.getVector("date");
      assertThat(dates.get(0)).isEqualTo(-1);
      assertThat(dates.get(1)).isEqualTo(19_000);

      TimeMicroVector times = (TimeMicroVector) root.getVector("time");
      assertThat(times.get(0)).isEqualTo(45_296_789_000L);
      assertThat(times.get(1)).isZero();

      TimeStampVector ts = (TimeStampVector) root.getVector("ts");
      assertThat(ts.get(0)).isEqualTo(1_700_000_000_123_456L);
      assertThat(ts.get(1)).isZero();

      TimeStampVector tstz = (TimeStampVector) root.getVector("tstz");
      assertThat(tstz.get(0)).isEqualTo(-1L);
      assertThat(tstz.get(1)).isEqualTo(-86_400_000_000L);

      TimeStampVector tsNanos = (TimeStampVector) root.getVector("ts_ns");
      assertThat(tsNanos.get(0)).isEqualTo(1_234_567_891L);
      assertThat(tsNanos.get(1)).isEqualTo(-999_999L);

      TimeStampVector tstzNanos = (TimeStampVector) root.getVector("tstz_ns");
      assertThat(tstzNanos.get(0)).isEqualTo(-4_999_999L);
      assertThat(tstzNanos.get(1)).isEqualTo(1_999_999L);

      VarCharVector strings = (VarCharVector) root.getVector("s");
      assertThat(NON_ASCII.codePointCount(0, NON_ASCII.length())).isGreaterThan(16);
      assertThat(string(strings, 0)).isEqualTo(NON_ASCII);
      assertThat(strings.isNull(1)).isFalse();
      assertThat(string(strings, 1)).isEmpty();

      FixedSizeBinaryVector uuids = (FixedSizeBinaryVector) root.getVector("u");
      assertThat(uuids.get(0)).isEqualTo(uuidBytes(uuid));
      assertThat(uuids.get(1)).isEqualTo(new byte[16]);

      FixedSizeBinaryVector fixed = (FixedSizeBinaryVector) root.getVector("fx");
      assertThat(fixed.get(0)).isEqualTo(new byte[] {1, 2, 3});
      assertThat(fixed.get(1)).isEqualTo(new byte[3]);

      VarBinaryVector binary = (VarBinaryVector) root.getVector("bin");
      assertThat(binary.get(0)).isEqualTo(new byte[] {0, -1, 127, -128});
      assertThat(binary.isNull(1)).isFalse();
      assertThat(binary.get(1)).isEmpty();

      for (FieldVector vector : root.getFieldVectors()) {
        assertThat(vector.getValueCount()).isEqualTo(3);
        assertThat(vector.isNull(0)).as(vector.getName()).isFalse();
        assertThat(vector.isNull(2)).as(vector.getName()).isEqualTo(vector != id);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(RowFormat.class)
  public void decimalsOfEveryPrecisionKeepTheirUnscaledValue(RowFormat format) {
    int[][] types = {{1, 0}, {9, 2}, {10, 3}, {18, 4}, {19, 5}, {38, 10}};
    BigDecimal[][] values = {
      {
        new BigDecimal("-9"),
        new BigDecimal("-9999999.99"),
        new BigDecimal("-1234567.891"),
        new BigDecimal("-99999999999999.9999"),
        new BigDecimal("-12345678901234.56789"),
        new BigDecimal("-9999999999999999999999999999.9999999999")
      },
      {
        new BigDecimal("7"),
        new BigDecimal("0.05"),
        new BigDecimal("-0.001"),
        new BigDecimal("99999999999999.9999"),
        new BigDecimal("99999999999999.99999"),
        new BigDecimal("-0.0000000001")
      }
    };
    Types.NestedField[] fields = new Types.NestedField[types.length];
    for (int i = 0; i < types.length; i++) {
      fields[i] =
          Types.NestedField.optional(
              i + 1, "d" + types[i][0], Types.DecimalType.of(types[i][0], types[i][1]));
    }

    Schema schema = new Schema(fields);
    RowType flinkType = FlinkSchemaUtil.convert(schema);
    Function<GenericRowData, RowData> converter = format.converter(flinkType);

    try (RowDataArrowWriter writer = new RowDataArrowWriter(schema, flinkType, allocator)) {
      for (BigDecimal[] row : values) {
        GenericRowData data = new GenericRowData(types.length);
        for (int i = 0; i < types.length; i++) {
          data.setField(i, DecimalData.fromBigDecimal(row[i], types[i][0], types[i][1]));
        }

        writer.write(converter.apply(data));
      }

      writer.write(converter.apply(new GenericRowData(types.length)));
      writer.finishBatch();

      for (int i = 0; i < types.length; i++) {
        DecimalVector vector = (DecimalVector) writer.root().getVector(i);
        assertThat(vector.getPrecision()).isEqualTo(types[i][0]);
        assertThat(vector.getScale()).isEqualTo(types[i][1]);
        assertThat(vector.getObject(0)).isEqualTo(values[0][i]);
        assertThat(vector.getObject(1)).isEqualTo(values[1][i]);
        assertThat(vector.isNull(2)).isTrue();
      }
    }
  }

  @Test
  public void everyStringDataRepresentationIsCopiedAsTheSameUtf8Bytes() throws Exception {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.IntegerType.get()),
            Types.NestedField.optional(2, "s", Types.StringType.get()));
    byte[] utf8 = NON_ASCII.getBytes(StandardCharsets.UTF_8);

    byte[] padded = new byte[utf8.length + 10];
    System.arraycopy(utf8, 0, padded, 5, utf8.length);

    MemorySegment offHeap = MemorySegmentFactory.allocateUnpooledOffHeapMemory(utf8.length + 3);
    offHeap.put(3, utf8);

    // Two equally sized heap segments with the string straddling the boundary.
    int segmentSize = utf8.length / 2 + 4;
    MemorySegment first = MemorySegmentFactory.wrap(new byte[segmentSize]);
    MemorySegment second = MemorySegmentFactory.wrap(new byte[segmentSize]);
    int split = segmentSize - 2;
    first.put(2, utf8, 0, split);
    second.put(0, utf8, split, utf8.length - split);

    List<StringData> inputs =
        Arrays.asList(
            StringData.fromString(NON_ASCII),
            StringData.fromBytes(utf8),
            BinaryStringData.fromBytes(padded, 5, utf8.length),
            BinaryStringData.fromAddress(new MemorySegment[] {offHeap}, 3, utf8.length),
            BinaryStringData.fromAddress(new MemorySegment[] {first, second}, 2, utf8.length),
            StringData.fromString(""),
            null);

    RowType flinkType = FlinkSchemaUtil.convert(schema);
    try (RowDataArrowWriter writer = new RowDataArrowWriter(schema, flinkType, allocator)) {
      for (int i = 0; i < inputs.size(); i++) {
        writer.write(GenericRowData.of(i, inputs.get(i)));
      }

      writer.finishBatch();

      VarCharVector strings = (VarCharVector) writer.root().getVector("s");
      for (int i = 0; i < 5; i++) {
        assertThat(string(strings, i)).as("input %s", i).isEqualTo(NON_ASCII);
      }

      assertThat(strings.isNull(5)).isFalse();
      assertThat(string(strings, 5)).isEmpty();
      assertThat(strings.isNull(6)).isTrue();
    }
  }

  @ParameterizedTest
  @EnumSource(RowFormat.class)
  public void narrowerFlinkTypesAreWidenedToTheIcebergType(RowFormat format) {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "i_tiny", Types.IntegerType.get()),
            Types.NestedField.required(2, "i_small", Types.IntegerType.get()),
            Types.NestedField.required(3, "l_tiny", Types.LongType.get()),
            Types.NestedField.required(4, "l_small", Types.LongType.get()),
            Types.NestedField.required(5, "l_int", Types.LongType.get()),
            Types.NestedField.required(6, "d_float", Types.DoubleType.get()),
            Types.NestedField.optional(
                7, "small_list", Types.ListType.ofOptional(8, Types.IntegerType.get())));
    RowType flinkType =
        RowType.of(
            new TinyIntType(false),
            new SmallIntType(false),
            new TinyIntType(false),
            new SmallIntType(false),
            new IntType(false),
            new FloatType(false),
            new ArrayType(new SmallIntType()));
    Function<GenericRowData, RowData> converter = format.converter(flinkType);

    try (RowDataArrowWriter writer = new RowDataArrowWriter(schema, flinkType, allocator)) {
      writer.write(
          converter.apply(
              GenericRowData.of(
                  Byte.MIN_VALUE,
                  Short.MIN_VALUE,
                  Byte.MAX_VALUE,
                  Short.MAX_VALUE,
                  Integer.MIN_VALUE,
                  1.5f,
                  new GenericArrayData(new Object[] {(short) -7, null, Short.MAX_VALUE}))));
      writer.write(
          converter.apply(
              GenericRowData.of(
                  (byte) -1,
                  (short) 300,
                  (byte) 0,
                  (short) -1,
                  Integer.MAX_VALUE,
                  -0.0f,
                  new GenericArrayData(new short[] {1, 2}))));
      writer.finishBatch();

      VectorSchemaRoot root = writer.root();
      assertThat(((IntVector) root.getVector("i_tiny")).get(0)).isEqualTo(Byte.MIN_VALUE);
      assertThat(((IntVector) root.getVector("i_tiny")).get(1)).isEqualTo(-1);
      assertThat(((IntVector) root.getVector("i_small")).get(0)).isEqualTo(Short.MIN_VALUE);
      assertThat(((IntVector) root.getVector("i_small")).get(1)).isEqualTo(300);
      assertThat(((BigIntVector) root.getVector("l_tiny")).get(0)).isEqualTo(Byte.MAX_VALUE);
      assertThat(((BigIntVector) root.getVector("l_small")).get(0)).isEqualTo(Short.MAX_VALUE);
      assertThat(((BigIntVector) root.getVector("l_small")).get(1)).isEqualTo(-1L);
      assertThat(((BigIntVector) root.getVector("l_int")).get(0)).isEqualTo(Integer.MIN_VALUE);
      assertThat(((BigIntVector) root.getVector("l_int")).get(1)).isEqualTo(Integer.MAX_VALUE);
      assertThat(((Float8Vector) root.getVector("d_float")).get(0)).isEqualTo(1.5d);
      assertThat(Double.doubleToRawLongBits(((Float8Vector) root.getVector("d_float")).get(1)))
          .isEqualTo(Double.doubleToRawLongBits(-0.0d));

      ListVector list = (ListVector) root.getVector("small_list");
      IntVector elements = (IntVector) list.getDataVector();
      assertThat(elementRange(list, 0)).containsExactly(0, 3);
      assertThat(elements.get(0)).isEqualTo(-7);
      assertThat(elements.isNull(1)).isTrue();
      assertThat(elements.get(2)).isEqualTo(Short.MAX_VALUE);
      assertThat(elementRange(list, 1)).containsExactly(3, 5);
      assertThat(elements.get(3)).isEqualTo(1);
      assertThat(elements.get(4)).isEqualTo(2);
    }
  }

  @ParameterizedTest
  @EnumSource(RowFormat.class)
  public void nestedStructsAndTheirNullsAreWritten(RowFormat format) {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.IntegerType.get()),
            Types.NestedField.optional(
                2,
                "s",
                Types.StructType.of(
                    Types.NestedField.required(3, "a", Types.IntegerType.get()),
                    Types.NestedField.optional(4, "b", Types.StringType.get()),
                    Types.NestedField.optional(
                        5,
                        "inner",
                        Types.StructType.of(
                            Types.NestedField.optional(6, "c", Types.LongType.get()))),
                    Types.NestedField.optional(
                        7, "tags", Types.ListType.ofOptional(8, Types.StringType.get())))));
    RowType flinkType = FlinkSchemaUtil.convert(schema);
    Function<GenericRowData, RowData> converter = format.converter(flinkType);

    try (RowDataArrowWriter writer = new RowDataArrowWriter(schema, flinkType, allocator)) {
      writer.write(
          converter.apply(
              GenericRowData.of(
                  1,
                  GenericRowData.of(
                      10, str("x"), GenericRowData.of(100L), array(str("t1"), str("t2"))))));
      writer.write(converter.apply(GenericRowData.of(2, null)));
      writer.write(converter.apply(GenericRowData.of(3, GenericRowData.of(30, null, null, null))));
      writer.write(
          converter.apply(
              GenericRowData.of(
                  4, GenericRowData.of(40, str("y"), GenericRowData.of((Object) null), array()))));
      writer.finishBatch();

      StructVector struct = (StructVector) writer.root().getVector("s");
      IntVector a = struct.getChild("a", IntVector.class);
      VarCharVector b = struct.getChild("b", VarCharVector.class);
      StructVector inner = struct.getChild("inner", StructVector.class);
      BigIntVector c = inner.getChild("c", BigIntVector.class);
      ListVector tags = struct.getChild("tags", ListVector.class);
      VarCharVector tagValues = (VarCharVector) tags.getDataVector();

      for (FieldVector vector : List.of(struct, a, b, inner, c, tags)) {
        assertThat(vector.getValueCount()).as(vector.getName()).isEqualTo(4);
        // A null struct nulls every descendant at the same index, required ones included.
        assertThat(vector.isNull(1)).as(vector.getName()).isTrue();
      }

      assertThat(struct.isNull(0)).isFalse();
      assertThat(a.get(0)).isEqualTo(10);
      assertThat(string(b, 0)).isEqualTo("x");
      assertThat(inner.isNull(0)).isFalse();
      assertThat(c.get(0)).isEqualTo(100L);
      assertThat(elementRange(tags, 0)).containsExactly(0, 2);
      assertThat(string(tagValues, 0)).isEqualTo("t1");
      assertThat(string(tagValues, 1)).isEqualTo("t2");

      assertThat(elementRange(tags, 1)).containsExactly(2, 2);

      assertThat(struct.isNull(2)).isFalse();
      assertThat(a.get(2)).isEqualTo(30);
      assertThat(b.isNull(2)).isTrue();
      assertThat(inner.isNull(2)).isTrue();
      assertThat(c.isNull(2)).isTrue();
      assertThat(tags.isNull(2)).isTrue();

      assertThat(struct.isNull(3)).isFalse();
      assertThat(a.get(3)).isEqualTo(40);
      assertThat(string(b, 3)).isEqualTo("y");
      assertThat(inner.isNull(3)).isFalse();
      assertThat(c.isNull(3)).isTrue();
      assertThat(tags.isNull(3)).isFalse();
      assertThat(elementRange(tags, 3)).containsExactly(2, 2);
      assertThat(tagValues.getValueCount()).isEqualTo(2);
    }
  }

  @ParameterizedTest
  @EnumSource(RowFormat.class)
  public void listsOfValuesStringsAndStructsAreWritten(RowFormat format) {
    Schema schema =
        new Schema(
            Types.NestedField.optional(
                1, "ints", Types.ListType.ofOptional(2, Types.IntegerType.get())),
            Types.NestedField.optional(
                3, "strs", Types.ListType.ofRequired(4, Types.StringType.get())),
            Types.NestedField.optional(
                5,
                "structs",
                Types.ListType.ofOptional(
                    6,
                    Types.StructType.of(
                        Types.NestedField.required(7, "x", Types.IntegerType.get()),
                        Types.NestedField.optional(8, "y", Types.StringType.get())))));
    RowType flinkType = FlinkSchemaUtil.convert(schema);
    Function<GenericRowData, RowData> converter = format.converter(flinkType);

    try (RowDataArrowWriter writer = new RowDataArrowWriter(schema, flinkType, allocator)) {
      writer.write(
          converter.apply(
              GenericRowData.of(
                  array(1, null, 3),
                  array(str("a"), str(NON_ASCII)),
                  array(GenericRowData.of(1, str("p")), null, GenericRowData.of(2, null)))));
      writer.write(converter.apply(GenericRowData.of(null, array(), null)));
      writer.write(converter.apply(GenericRowData.of(array(), null, array())));
      writer.finishBatch();

      ListVector ints = (ListVector) writer.root().getVector("ints");
      IntVector intValues = (IntVector) ints.getDataVector();
      assertThat(elementRange(ints, 0)).containsExactly(0, 3);
      assertThat(intValues.get(0)).isEqualTo(1);
      assertThat(intValues.isNull(1)).isTrue();
      assertThat(intValues.get(2)).isEqualTo(3);
      assertThat(ints.isNull(1)).isTrue();
      assertThat(ints.isNull(2)).isFalse();
      assertThat(elementRange(ints, 2)).containsExactly(3, 3);
      assertThat(intValues.getValueCount()).isEqualTo(3);

      ListVector strs = (ListVector) writer.root().getVector("strs");
      VarCharVector strValues = (VarCharVector) strs.getDataVector();
      assertThat(elementRange(strs, 0)).containsExactly(0, 2);
      assertThat(string(strValues, 0)).isEqualTo("a");
      assertThat(string(strValues, 1)).isEqualTo(NON_ASCII);
      assertThat(strs.isNull(1)).isFalse();
      assertThat(elementRange(strs, 1)).containsExactly(2, 2);
      assertThat(strs.isNull(2)).isTrue();

      ListVector structs = (ListVector) writer.root().getVector("structs");
      StructVector structValues = (StructVector) structs.getDataVector();
      IntVector x = structValues.getChild("x", IntVector.class);
      VarCharVector y = structValues.getChild("y", VarCharVector.class);
      assertThat(elementRange(structs, 0)).containsExactly(0, 3);
      assertThat(structValues.isNull(0)).isFalse();
      assertThat(x.get(0)).isEqualTo(1);
      assertThat(string(y, 0)).isEqualTo("p");
      assertThat(structValues.isNull(1)).isTrue();
      assertThat(x.isNull(1)).isTrue();
      assertThat(y.isNull(1)).isTrue();
      assertThat(structValues.isNull(2)).isFalse();
      assertThat(x.get(2)).isEqualTo(2);
      assertThat(y.isNull(2)).isTrue();
      assertThat(structs.isNull(1)).isTrue();
      assertThat(elementRange(structs, 2)).containsExactly(3, 3);
      assertThat(structValues.getValueCount()).isEqualTo(3);
    }
  }

  @ParameterizedTest
  @EnumSource(RowFormat.class)
  public void mapsAreWrittenAsKeyValueEntries(RowFormat format) {
    Schema schema =
        new Schema(
            Types.NestedField.optional(
                1,
                "m",
                Types.MapType.ofOptional(2, 3, Types.StringType.get(), Types.IntegerType.get())),
            Types.NestedField.optional(
                4,
                "rm",
                Types.MapType.ofRequired(5, 6, Types.IntegerType.get(), Types.StringType.get())));
    RowType flinkType = FlinkSchemaUtil.convert(schema);
    Function<GenericRowData, RowData> converter = format.converter(flinkType);

    try (RowDataArrowWriter writer = new RowDataArrowWriter(schema, flinkType, allocator)) {
      writer.write(
          converter.apply(
              GenericRowData.of(
                  map(str("a"), 1, str("b"), null, str(NON_ASCII), 3), map(1, str("one")))));
      writer.write(converter.apply(GenericRowData.of(null, map())));
      writer.write(converter.apply(GenericRowData.of(map(), null)));
      writer.finishBatch();

      MapVector m = (MapVector) writer.root().getVector("m");
      StructVector entries = (StructVector) m.getDataVector();
      VarCharVector keys = entries.getChild("key", VarCharVector.class);
      IntVector values = entries.getChild("value", IntVector.class);
      assertThat(m.getValueCount()).isEqualTo(3);
      assertThat(elementRange(m, 0)).containsExactly(0, 3);
      assertThat(entries.getValueCount()).isEqualTo(3);
      for (int i = 0; i < 3; i++) {
        assertThat(entries.isNull(i)).isFalse();
      }

      assertThat(string(keys, 0)).isEqualTo("a");
      assertThat(values.get(0)).isEqualTo(1);
      assertThat(string(keys, 1)).isEqualTo("b");
      assertThat(values.isNull(1)).isTrue();
      assertThat(string(keys, 2)).isEqualTo(NON_ASCII);
      assertThat(values.get(2)).isEqualTo(3);
      assertThat(m.isNull(1)).isTrue();
      assertThat(m.isNull(2)).isFalse();
      assertThat(elementRange(m, 2)).containsExactly(3, 3);

      MapVector rm = (MapVector) writer.root().getVector("rm");
      StructVector requiredEntries = (StructVector) rm.getDataVector();
      assertThat(elementRange(rm, 0)).containsExactly(0, 1);
      assertThat(requiredEntries.getChild("key", IntVector.class).get(0)).isEqualTo(1);
      assertThat(string(requiredEntries.getChild("value", VarCharVector.class), 0))
          .isEqualTo("one");
      assertThat(rm.isNull(1)).isFalse();
      assertThat(elementRange(rm, 1)).containsExactly(1, 1);
      assertThat(rm.isNull(2)).isTrue();
    }
  }

  @Test
  public void aNullInARequiredTopLevelFieldIsRejected() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.IntegerType.get()),
            Types.NestedField.optional(2, "s", Types.StringType.get()));

    assertRequiredNull(
        schema,
        GenericRowData.of(1, str("a")),
        GenericRowData.of(null, str("b")),
        "Null value in required field 'id' at row 1 of the current batch");
  }

  @Test
  public void aNullInARequiredStructFieldIsRejected() {
    Schema schema =
        new Schema(
            Types.NestedField.optional(
                1,
                "a",
                Types.StructType.of(Types.NestedField.required(2, "b", Types.LongType.get()))));

    assertRequiredNull(
        schema,
        GenericRowData.of(GenericRowData.of(1L)),
        GenericRowData.of(GenericRowData.of((Object) null)),
        "Null value in required field 'a.b' at row 1 of the current batch");
  }

  @Test
  public void aNullInARequiredListElementIsRejected() {
    Schema schema =
        new Schema(
            Types.NestedField.optional(
                1, "l", Types.ListType.ofRequired(2, Types.IntegerType.get())));

    assertRequiredNull(
        schema,
        GenericRowData.of(array(1, 2)),
        GenericRowData.of(array(1, null)),
        "Null value in required field 'l.element' at row 1 of the current batch");
  }

  @Test
  public void aNullMapKeyIsRejected() {
    Schema schema =
        new Schema(
            Types.NestedField.optional(
                1,
                "m",
                Types.MapType.ofOptional(2, 3, Types.StringType.get(), Types.IntegerType.get())));

    assertRequiredNull(
        schema,
        GenericRowData.of(map(str("k"), 1)),
        GenericRowData.of(map(null, 1)),
        "Null value in required field 'm.key' at row 1 of the current batch");
  }

  @Test
  public void aNullInARequiredMapValueIsRejected() {
    Schema schema =
        new Schema(
            Types.NestedField.optional(
                1,
                "m",
                Types.MapType.ofRequired(2, 3, Types.StringType.get(), Types.IntegerType.get())));

    assertRequiredNull(
        schema,
        GenericRowData.of(map(str("k"), 1)),
        GenericRowData.of(map(str("k"), null)),
        "Null value in required field 'm.value' at row 1 of the current batch");
  }

  @Test
  public void aReusedRowObjectIsCopiedNotReferenced() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.IntegerType.get()),
            Types.NestedField.optional(2, "s", Types.StringType.get()),
            Types.NestedField.optional(3, "bin", Types.BinaryType.get()),
            Types.NestedField.optional(4, "l", Types.ListType.ofOptional(5, Types.LongType.get())));
    RowType flinkType = FlinkSchemaUtil.convert(schema);
    GenericRowData row = new GenericRowData(4);
    byte[] bytes = {1, 2, 3};

    try (RowDataArrowWriter writer = new RowDataArrowWriter(schema, flinkType, allocator)) {
      row.setField(0, 1);
      row.setField(1, str("first"));
      row.setField(2, bytes);
      row.setField(3, new GenericArrayData(new long[] {10L, 11L}));
      writer.write(row);

      row.setField(0, 2);
      row.setField(1, str("second"));
      bytes[0] = 9;
      row.setField(3, null);
      writer.write(row);
      writer.finishBatch();

      VectorSchemaRoot root = writer.root();
      IntVector id = (IntVector) root.getVector("id");
      VarCharVector strings = (VarCharVector) root.getVector("s");
      VarBinaryVector binary = (VarBinaryVector) root.getVector("bin");
      ListVector list = (ListVector) root.getVector("l");
      assertThat(id.get(0)).isEqualTo(1);
      assertThat(id.get(1)).isEqualTo(2);
      assertThat(string(strings, 0)).isEqualTo("first");
      assertThat(string(strings, 1)).isEqualTo("second");
      assertThat(binary.get(0)).isEqualTo(new byte[] {1, 2, 3});
      assertThat(binary.get(1)).isEqualTo(new byte[] {9, 2, 3});
      assertThat(elementRange(list, 0)).containsExactly(0, 2);
      assertThat(((BigIntVector) list.getDataVector()).get(1)).isEqualTo(11L);
      assertThat(list.isNull(1)).isTrue();
    }
  }

  @Test
  public void resetKeepsBuffersAndStartsANewBatch() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.IntegerType.get()),
            Types.NestedField.optional(2, "s", Types.StringType.get()),
            Types.NestedField.optional(3, "l", Types.ListType.ofOptional(4, Types.LongType.get())),
            Types.NestedField.optional(
                5,
                "st",
                Types.StructType.of(Types.NestedField.optional(6, "x", Types.IntegerType.get()))));
    RowType flinkType = FlinkSchemaUtil.convert(schema);

    try (RowDataArrowWriter writer = new RowDataArrowWriter(schema, flinkType, allocator)) {
      writer.write(GenericRowData.of(1, str("one"), array(1L, 2L, 3L), GenericRowData.of(100)));
      writer.write(GenericRowData.of(2, null, null, null));
      writer.write(GenericRowData.of(3, str("three"), array(4L), GenericRowData.of(300)));
      writer.finishBatch();
      assertThat(writer.root().getRowCount()).isEqualTo(3);
      assertThat(string((VarCharVector) writer.root().getVector("s"), 2)).isEqualTo("three");

      long allocated = allocator.getAllocatedMemory();
      // What the budget's spare check reads: the buffers' capacity, children included (Arrow
      // allocates a fixed-width vector's validity and values as one buffer, rounded up).
      long held = writer.allocatedBytes();
      assertThat(held).isPositive().isLessThanOrEqualTo(allocated).isGreaterThan(allocated / 2);
      writer.reset();
      assertThat(allocator.getAllocatedMemory()).isEqualTo(allocated);
      assertThat(writer.allocatedBytes())
          .as("a reset batch still holds its buffers")
          .isEqualTo(held);
      assertThat(writer.rowCount()).isZero();
      assertThat(writer.root().getRowCount()).isZero();
      assertThat(writer.bufferedBytes()).isZero();

      writer.write(GenericRowData.of(10, null, array(), null));
      writer.write(GenericRowData.of(20, str("twenty"), array(5L, null), GenericRowData.of(200)));
      writer.finishBatch();

      VectorSchemaRoot root = writer.root();
      assertThat(writer.rowCount()).isEqualTo(2);
      assertThat(root.getRowCount()).isEqualTo(2);
      for (FieldVector vector : root.getFieldVectors()) {
        assertThat(vector.getValueCount()).as(vector.getName()).isEqualTo(2);
      }

      IntVector id = (IntVector) root.getVector("id");
      assertThat(id.get(0)).isEqualTo(10);
      assertThat(id.get(1)).isEqualTo(20);
      VarCharVector strings = (VarCharVector) root.getVector("s");
      assertThat(strings.isNull(0)).isTrue();
      assertThat(string(strings, 1)).isEqualTo("twenty");
      ListVector list = (ListVector) root.getVector("l");
      BigIntVector longs = (BigIntVector) list.getDataVector();
      assertThat(list.isNull(0)).isFalse();
      assertThat(elementRange(list, 0)).containsExactly(0, 0);
      assertThat(elementRange(list, 1)).containsExactly(0, 2);
      assertThat(longs.getValueCount()).isEqualTo(2);
      assertThat(longs.get(0)).isEqualTo(5L);
      assertThat(longs.isNull(1)).isTrue();
      StructVector struct = (StructVector) root.getVector("st");
      assertThat(struct.isNull(0)).isTrue();
      assertThat(struct.getChild("x", IntVector.class).isNull(0)).isTrue();
      assertThat(struct.getChild("x", IntVector.class).get(1)).isEqualTo(200);
    }
  }

  /**
   * The writers append straight into the vectors' buffers: across several batches, each larger than
   * the buffers first allocated, with nulls before, between and after values, every value must read
   * back through Arrow's own getters.
   */
  @Test
  public void directWritesGrowBuffersAcrossBatches() {
    Schema schema =
        new Schema(
            Types.NestedField.optional(1, "s", Types.StringType.get()),
            Types.NestedField.optional(2, "b", Types.BinaryType.get()),
            Types.NestedField.optional(3, "l", Types.LongType.get()),
            Types.NestedField.optional(4, "i", Types.IntegerType.get()),
            Types.NestedField.optional(5, "d", Types.DoubleType.get()),
            Types.NestedField.optional(6, "f", Types.FloatType.get()),
            Types.NestedField.optional(7, "small", Types.DecimalType.of(9, 2)),
            Types.NestedField.optional(8, "wide", Types.DecimalType.of(38, 4)));
    RowType flinkType = FlinkSchemaUtil.convert(schema);
    java.util.Random random = new java.util.Random(3);
    try (RowDataArrowWriter writer = new RowDataArrowWriter(schema, flinkType, allocator)) {
      for (int batch = 0; batch < 3; batch += 1) {
        int rows = 9000 + batch * 7000;
        Object[][] expected = new Object[rows][];
        for (int row = 0; row < rows; row += 1) {
          // Runs of nulls at the start, in the middle and at the end of the batch.
          boolean isNull = row < 3 || (row % 97 < 5) || row >= rows - 4 || random.nextInt(7) == 0;
          String text = isNull ? null : "v" + row + "-".repeat(random.nextInt(300));
          BigDecimal wide =
              random.nextBoolean()
                  ? BigDecimal.valueOf(random.nextLong(), 4)
                  : new BigDecimal(new java.math.BigInteger(120, random), 4);
          expected[row] =
              isNull
                  ? new Object[8]
                  : new Object[] {
                    text,
                    text.getBytes(StandardCharsets.UTF_8),
                    random.nextLong(),
                    random.nextInt(),
                    random.nextDouble(),
                    random.nextFloat(),
                    BigDecimal.valueOf(random.nextInt(2_000_000_000) - 1_000_000_000L, 2),
                    random.nextBoolean() ? wide : wide.negate()
                  };
          Object[] values = expected[row];
          writer.write(
              GenericRowData.of(
                  isNull ? null : str((String) values[0]),
                  values[1],
                  values[2],
                  values[3],
                  values[4],
                  values[5],
                  isNull ? null : DecimalData.fromBigDecimal((BigDecimal) values[6], 9, 2),
                  isNull ? null : DecimalData.fromBigDecimal((BigDecimal) values[7], 38, 4)));
        }
        writer.finishBatch();
        VectorSchemaRoot root = writer.root();
        for (int column = 0; column < 8; column += 1) {
          FieldVector vector = root.getFieldVectors().get(column);
          assertThat(vector.getValueCount()).isEqualTo(rows);
          for (int row = 0; row < rows; row += 1) {
            Object want = expected[row][column];
            Object got = vector.getObject(row);
            if (want == null) {
              assertThat(vector.isNull(row)).as("%s row %d", vector.getName(), row).isTrue();
            } else if (want instanceof String) {
              assertThat(got.toString()).as("%s row %d", vector.getName(), row).isEqualTo(want);
            } else {
              assertThat(got).as("%s row %d", vector.getName(), row).isEqualTo(want);
            }
          }
        }
        writer.reset();
      }
    }
  }

  /**
   * A batch that starts small and grows holds its strings in at most twice their bytes (Arrow's
   * power-of-two buffers): every open partition file holds such a batch. Growing the data buffer
   * with the row count as well (Arrow's {@code reAlloc()}) left it at 2.5 times its data.
   */
  @Test
  public void stringBuffersGrowWithTheirDataNotWithTheRowCount() {
    Schema schema = new Schema(Types.NestedField.optional(1, "s", Types.StringType.get()));
    RowType flinkType = FlinkSchemaUtil.convert(schema);
    try (RowDataArrowWriter writer = new RowDataArrowWriter(schema, flinkType, allocator, 256)) {
      long dataBytes = 0;
      for (int row = 0; row < 2560; row += 1) {
        String text = "value-" + row + "-" + "x".repeat(60 + row % 40);
        dataBytes += text.length();
        writer.write(GenericRowData.of(str(text)));
      }
      writer.finishBatch();
      VarCharVector vector = (VarCharVector) writer.root().getVector("s");
      assertThat(vector.getObject(2559).toString()).startsWith("value-2559-");
      assertThat(vector.getDataBuffer().capacity())
          .as("data buffer capacity for %s bytes of strings", dataBytes)
          .isGreaterThanOrEqualTo(dataBytes)
          .isLessThan(2 * dataBytes);
    }
  }

  @Test
  public void unknownColumnsAreSkipped() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.IntegerType.get()),
            Types.NestedField.optional(2, "u", Types.UnknownType.get()),
            Types.NestedField.optional(
                3,
                "s",
                Types.StructType.of(
                    Types.NestedField.optional(4, "gone", Types.UnknownType.get()),
                    Types.NestedField.optional(5, "y", Types.IntegerType.get()))),
            Types.NestedField.optional(6, "name", Types.StringType.get()));
    RowType flinkType = FlinkSchemaUtil.convert(schema);
    assertThat(flinkType.getFieldCount()).isEqualTo(4);

    try (RowDataArrowWriter writer = new RowDataArrowWriter(schema, flinkType, allocator)) {
      writer.write(GenericRowData.of(1, null, GenericRowData.of(null, 5), str("n")));
      writer.write(GenericRowData.of(2, null, null, null));
      writer.finishBatch();

      VectorSchemaRoot root = writer.root();
      assertThat(root.getSchema().getFields())
          .extracting(org.apache.arrow.vector.types.pojo.Field::getName)
          .containsExactly("id", "s", "name");
      StructVector struct = (StructVector) root.getVector("s");
      assertThat(struct.getChildrenFromFields()).hasSize(1);
      assertThat(((IntVector) root.getVector("id")).get(1)).isEqualTo(2);
      assertThat(struct.getChild("y", IntVector.class).get(0)).isEqualTo(5);
      assertThat(struct.isNull(1)).isTrue();
      assertThat(string((VarCharVector) root.getVector("name"), 0)).isEqualTo("n");
      assertThat(root.getVector("name").isNull(1)).isTrue();
    }
  }

  @Test
  public void bufferedBytesGrowsWithEveryValueAndNeverDrops() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "s", Types.StringType.get()),
            Types.NestedField.optional(
                3, "l", Types.ListType.ofOptional(4, Types.StringType.get())),
            Types.NestedField.optional(
                5,
                "m",
                Types.MapType.ofOptional(6, 7, Types.StringType.get(), Types.StringType.get())));
    RowType flinkType = FlinkSchemaUtil.convert(schema);
    String big = "x".repeat(1000);

    try (RowDataArrowWriter writer = new RowDataArrowWriter(schema, flinkType, allocator)) {
      assertThat(writer.bufferedBytes()).isZero();

      writer.write(GenericRowData.of(1L, null, null, null));
      long oneRow = writer.bufferedBytes();
      assertThat(oneRow).isPositive();

      writer.write(GenericRowData.of(2L, str(big), null, null));
      long withString = writer.bufferedBytes();
      assertThat(withString).isGreaterThanOrEqualTo(oneRow + 1000);

      // A trailing null leaves the string offsets unfilled: the estimate must not drop.
      writer.write(GenericRowData.of(3L, null, null, null));
      long trailingNull = writer.bufferedBytes();
      assertThat(trailingNull).isGreaterThan(withString);

      writer.write(GenericRowData.of(4L, null, array(str(big), null), null));
      long withList = writer.bufferedBytes();
      assertThat(withList).isGreaterThanOrEqualTo(trailingNull + 1000);

      writer.write(GenericRowData.of(5L, null, null, map(str("k"), str(big))));
      long withMap = writer.bufferedBytes();
      assertThat(withMap).isGreaterThanOrEqualTo(withList + 1000);

      // Sealing the batch fills the holes but does not change what the batch holds.
      writer.finishBatch();
      assertThat(writer.bufferedBytes()).isEqualTo(withMap);

      writer.reset();
      assertThat(writer.bufferedBytes()).isZero();
    }
  }

  @Test
  public void theRootSchemaIsTheConvertedSchema() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "a-b", Types.IntegerType.get()),
            Types.NestedField.optional(2, "l", Types.ListType.ofOptional(3, Types.UUIDType.get())),
            Types.NestedField.optional(
                4,
                "m",
                Types.MapType.ofOptional(
                    5,
                    6,
                    Types.StringType.get(),
                    Types.StructType.of(
                        Types.NestedField.optional(7, "x", Types.DecimalType.of(20, 2))))));
    RowType flinkType = FlinkSchemaUtil.convert(schema);

    try (RowDataArrowWriter writer = new RowDataArrowWriter(schema, flinkType, allocator)) {
      assertThat(writer.root().getSchema()).isEqualTo(IcebergArrowSchema.convert(schema));
    }
  }

  @Test
  public void aFixedValueOfTheWrongLengthIsRejected() {
    Schema schema =
        new Schema(
            Types.NestedField.optional(1, "fx", Types.FixedType.ofLength(3)),
            Types.NestedField.optional(2, "u", Types.UUIDType.get()));
    RowType flinkType = FlinkSchemaUtil.convert(schema);

    try (RowDataArrowWriter writer = new RowDataArrowWriter(schema, flinkType, allocator)) {
      assertThatThrownBy(() -> writer.write(GenericRowData.of(new byte[2], null)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "Cannot write 2 bytes to field 'fx' of fixed length 3 at row 0 of the current batch");
    }

    try (RowDataArrowWriter writer = new RowDataArrowWriter(schema, flinkType, allocator)) {
      writer.write(GenericRowData.of(new byte[3], new byte[16]));
      assertThatThrownBy(() -> writer.write(GenericRowData.of(null, new byte[15])))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("field 'u' of fixed length 16")
          .hasMessageContaining("at row 1");
    }
  }

  @Test
  public void aDecimalOfAnotherScaleIsRejected() {
    Schema schema = new Schema(Types.NestedField.optional(1, "d", Types.DecimalType.of(10, 2)));
    RowType flinkType = FlinkSchemaUtil.convert(schema);

    try (RowDataArrowWriter writer = new RowDataArrowWriter(schema, flinkType, allocator)) {
      DecimalData wrongScale = DecimalData.fromBigDecimal(new BigDecimal("1.234"), 10, 3);
      assertThatThrownBy(() -> writer.write(GenericRowData.of(wrongScale)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("field 'd'");
    }
  }

  @Test
  public void anIncompatibleFlinkTypeIsRejected() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "s", Types.StringType.get()));

    assertThatThrownBy(
            () ->
                new RowDataArrowWriter(schema, RowType.of(new IntType(), new IntType()), allocator))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("field 's'");
    assertThatThrownBy(
            () -> new RowDataArrowWriter(schema, RowType.of(new VarCharType()), allocator))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1 fields")
        .hasMessageContaining("2 columns");
  }

  private void assertRequiredNull(
      Schema schema, GenericRowData good, GenericRowData bad, String expectedMessage) {
    RowType flinkType = FlinkSchemaUtil.convert(schema);
    try (RowDataArrowWriter writer = new RowDataArrowWriter(schema, flinkType, allocator)) {
      writer.write(good);
      assertThatThrownBy(() -> writer.write(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(expectedMessage);
      assertThat(writer.rowCount()).isEqualTo(1);
    }
  }

  private static StringData str(String value) {
    return StringData.fromString(value);
  }

  private static GenericArrayData array(Object... values) {
    return new GenericArrayData(values);
  }

  private static GenericMapData map(Object... keysAndValues) {
    Map<Object, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      map.put(keysAndValues[i], keysAndValues[i + 1]);
    }

    return new GenericMapData(map);
  }

  private static String string(VarCharVector vector, int index) {
    return new String(vector.get(index), StandardCharsets.UTF_8);
  }

  private static List<Integer> elementRange(ListVector vector, int index) {
    return List.of(vector.getElementStartIndex(index), vector.getElementEndIndex(index));
  }

  private static byte[] uuidBytes(UUID uuid) {
    return ByteBuffer.allocate(16)
        .putLong(uuid.getMostSignificantBits())
        .putLong(uuid.getLeastSignificantBits())
        .array();
  }
}

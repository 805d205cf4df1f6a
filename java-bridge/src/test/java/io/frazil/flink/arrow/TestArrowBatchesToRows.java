package io.frazil.flink.arrow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.frazil.arrow.RowDataArrowWriter;
import io.frazil.exchange.ArrowBatch;
import io.frazil.iceberg.ArrowMemory;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.conversion.DataStructureConverter;
import org.apache.flink.table.data.conversion.DataStructureConverters;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ArrowBatchesToRows} on batches built as {@link RowsToArrowBatches} builds them: every type
 * the writer takes, nested ones included, comes back as the row that went in, with its kind; the
 * batch is closed whatever happens.
 */
public class TestArrowBatchesToRows {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "flag", Types.BooleanType.get()),
          Types.NestedField.optional(3, "small", Types.IntegerType.get()),
          Types.NestedField.optional(4, "ratio", Types.FloatType.get()),
          Types.NestedField.optional(5, "amount", Types.DecimalType.of(38, 10)),
          Types.NestedField.optional(6, "day", Types.DateType.get()),
          Types.NestedField.optional(7, "at", Types.TimeType.get()),
          Types.NestedField.optional(8, "ts_nano", Types.TimestampNanoType.withZone()),
          Types.NestedField.optional(9, "name", Types.StringType.get()),
          Types.NestedField.optional(10, "code", Types.FixedType.ofLength(3)),
          Types.NestedField.optional(11, "blob", Types.BinaryType.get()),
          Types.NestedField.optional(12, "key", Types.UUIDType.get()),
          Types.NestedField.optional(
              13,
              "point",
              Types.StructType.of(
                  Types.NestedField.required(14, "x", Types.IntegerType.get()),
                  Types.NestedField.optional(15, "label", Types.StringType.get()))),
          Types.NestedField.optional(
              16, "tags", Types.ListType.ofOptional(17, Types.LongType.get())),
          Types.NestedField.optional(
              18,
              "attrs",
              Types.MapType.ofOptional(19, 20, Types.StringType.get(), Types.IntegerType.get())));

  private static final RowType ROW_TYPE = FlinkSchemaUtil.convert(SCHEMA);

  @AfterEach
  public void nothingLeft() {
    assertThat(ArrowMemory.exchangeAllocator().getAllocatedMemory()).isZero();
  }

  @Test
  public void everyTypeAndRowKindComesBackAsItWentIn() {
    ArrowRowLayout layout = ArrowRowLayout.withRowKind(SCHEMA);
    List<RowData> in = rowsOfEveryKind();
    ArrowBatch batch = batch(layout, in);

    List<RowData> out = convert(layout, batch);

    assertThat(batch.isReleased()).as("closed by the conversion").isTrue();
    assertThat(out).hasSize(in.size());
    DataStructureConverter<Object, Object> external =
        DataStructureConverters.getConverter(TypeConversions.fromLogicalToDataType(ROW_TYPE));
    external.open(getClass().getClassLoader());
    for (int i = 0; i < in.size(); i++) {
      assertThat(out.get(i).getRowKind()).isEqualTo(in.get(i).getRowKind());
      Row actual = (Row) external.toExternal(out.get(i));
      Row expected = (Row) external.toExternal(in.get(i));
      for (int field = 0; field < expected.getArity(); field++) {
        assertThat(actual.getField(field))
            .as("row %s, %s", i, ROW_TYPE.getFieldNames().get(field))
            .isEqualTo(expected.getField(field));
      }
    }
  }

  /**
   * The sink's conversion ({@link FrazilArrowSink}) copies a column to the heap only when it is
   * read: read while emitted, as Iceberg's writer reads, every value is the one that went in; a row
   * kept and read after its batch was released fails by name instead of reading freed memory.
   */
  @Test
  public void sinkRowsReadWhileEmittedComeBackAsTheyWentInAndFailByNameAfterRelease() {
    ArrowRowLayout layout = ArrowRowLayout.withRowKind(SCHEMA);
    List<RowData> in = rowsOfEveryKind();
    DataStructureConverter<Object, Object> external =
        DataStructureConverters.getConverter(TypeConversions.fromLogicalToDataType(ROW_TYPE));
    external.open(getClass().getClassLoader());
    List<Row> seen = new ArrayList<>();
    List<RowKind> kinds = new ArrayList<>();
    ArrowBatch batch = batch(layout, in);
    new ArrowBatchesToRows(layout, "t", true)
        .flatMap(
            batch,
            new ListCollector<>(new ArrayList<>()) {
              @Override
              public void collect(RowData row) {
                kinds.add(row.getRowKind());
                seen.add((Row) external.toExternal(row));
              }
            });

    assertThat(batch.isReleased()).as("closed by the conversion").isTrue();
    assertThat(seen).hasSize(in.size());
    for (int i = 0; i < in.size(); i++) {
      assertThat(kinds.get(i)).isEqualTo(in.get(i).getRowKind());
      Row expected = (Row) external.toExternal(in.get(i));
      for (int field = 0; field < expected.getArity(); field++) {
        assertThat(seen.get(i).getField(field))
            .as("row %s, %s", i, ROW_TYPE.getFieldNames().get(field))
            .isEqualTo(expected.getField(field));
      }
    }

    ArrowBatch unread = batch(layout, in);
    List<RowData> kept = new ArrayList<>();
    new ArrowBatchesToRows(layout, "t", true).flatMap(unread, new ListCollector<>(kept));
    assertThat(unread.isReleased()).isTrue();
    assertThatThrownBy(() -> kept.get(0).getLong(0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Column 'id' of a row was read after its ArrowBatch was released");
  }

  @Test
  public void anEmptyBatchGivesNoRowsAndIsClosed() {
    ArrowRowLayout layout = ArrowRowLayout.appendOnly(SCHEMA);
    ArrowBatch batch = batch(layout, List.of());

    assertThat(convert(layout, batch)).isEmpty();
    assertThat(batch.isReleased()).isTrue();
  }

  @Test
  public void aBatchOfTheOtherLayoutIsRefusedByNameAndClosed() {
    ArrowBatch withKinds = batch(ArrowRowLayout.withRowKind(SCHEMA), List.of(row(1)));

    assertThatThrownBy(() -> convert(ArrowRowLayout.appendOnly(SCHEMA), withKinds))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unexpected column '_frazil_row_kind' at position 15");
    assertThat(withKinds.isReleased()).isTrue();
  }

  /** 50 rows, some all null, cycling through the four row kinds. */
  private static List<RowData> rowsOfEveryKind() {
    List<RowData> rows = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      RowData row = i % 9 == 4 ? nulls(i) : row(i);
      row.setRowKind(RowKind.values()[i % 4]);
      rows.add(row);
    }
    return rows;
  }

  private static List<RowData> convert(ArrowRowLayout layout, ArrowBatch batch) {
    List<RowData> out = new ArrayList<>();
    new ArrowBatchesToRows(layout, "t").flatMap(batch, new ListCollector<>(out));
    return out;
  }

  /** The batch {@link RowsToArrowBatches} would emit for {@code rows}. */
  private static ArrowBatch batch(ArrowRowLayout layout, List<RowData> rows) {
    RowDataArrowWriter writer =
        new RowDataArrowWriter(SCHEMA, ROW_TYPE, ArrowMemory.exchangeAllocator(), 16);
    org.apache.arrow.vector.TinyIntVector kinds =
        new org.apache.arrow.vector.TinyIntVector(
            ArrowRowLayout.rowKindField(), ArrowMemory.exchangeAllocator());
    kinds.allocateNew(16);
    for (RowData row : rows) {
      kinds.setSafe(writer.rowCount(), row.getRowKind().toByteValue());
      writer.write(row);
    }
    writer.finishBatch();
    if (!layout.hasRowKind()) {
      kinds.close();
      return ArrowBatch.of(writer.root());
    }
    kinds.setValueCount(rows.size());
    List<org.apache.arrow.vector.FieldVector> vectors =
        new ArrayList<>(writer.root().getFieldVectors());
    vectors.add(kinds);
    return ArrowBatch.of(
        new org.apache.arrow.vector.VectorSchemaRoot(layout.arrowSchema(), vectors, rows.size()));
  }

  private static RowData row(int i) {
    return GenericRowData.of(
        (long) i,
        i % 2 == 0,
        i * 7,
        i / 3.0f,
        DecimalData.fromBigDecimal(
            new BigDecimal("12345678901234567890.0123456789").add(BigDecimal.valueOf(i)), 38, 10),
        19_000 + i,
        (i * 3_601_001) % 86_400_000,
        TimestampData.fromLocalDateTime(LocalDateTime.of(2026, 12, 5, 10, 0).plusNanos(i * 1_001L)),
        StringData.fromString("name-" + i + (i % 3 == 0 ? "-é€" : "")),
        new byte[] {(byte) i, 2, 3},
        ("blob-" + i).getBytes(StandardCharsets.UTF_8),
        new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, (byte) i},
        GenericRowData.of(i, i % 2 == 0 ? null : StringData.fromString("p" + i)),
        new GenericArrayData(new Object[] {(long) i, null, (long) -i}),
        new GenericMapData(
            Map.of(StringData.fromString("a" + i), i, StringData.fromString("b"), -i)));
  }

  private static RowData nulls(int i) {
    GenericRowData row = new GenericRowData(ROW_TYPE.getFieldCount());
    row.setField(0, (long) i);
    return row;
  }
}

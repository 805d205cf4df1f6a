package io.frazil.arrow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.iceberg.Schema;
import org.apache.iceberg.avro.AvroSchemaUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

public class TestIcebergArrowSchema {

  @Test
  public void primitiveTypesMapToTheirArrowTypesWithFieldIds() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "b", Types.BooleanType.get()),
            Types.NestedField.optional(2, "i", Types.IntegerType.get()),
            Types.NestedField.required(3, "l", Types.LongType.get()),
            Types.NestedField.optional(4, "f", Types.FloatType.get()),
            Types.NestedField.optional(5, "d", Types.DoubleType.get()),
            Types.NestedField.optional(6, "dec", Types.DecimalType.of(38, 10)),
            Types.NestedField.optional(7, "date", Types.DateType.get()),
            Types.NestedField.optional(8, "time", Types.TimeType.get()),
            Types.NestedField.optional(9, "ts", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(10, "tstz", Types.TimestampType.withZone()),
            Types.NestedField.optional(11, "ts_ns", Types.TimestampNanoType.withoutZone()),
            Types.NestedField.optional(12, "tstz_ns", Types.TimestampNanoType.withZone()),
            Types.NestedField.optional(13, "s", Types.StringType.get()),
            Types.NestedField.optional(14, "u", Types.UUIDType.get()),
            Types.NestedField.optional(15, "fx", Types.FixedType.ofLength(7)),
            Types.NestedField.optional(16, "bin", Types.BinaryType.get()));

    List<Field> fields = IcebergArrowSchema.convert(schema).getFields();

    assertThat(fields)
        .extracting(Field::getType)
        .containsExactly(
            ArrowType.Bool.INSTANCE,
            new ArrowType.Int(32, true),
            new ArrowType.Int(64, true),
            new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE),
            new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE),
            new ArrowType.Decimal(38, 10, 128),
            new ArrowType.Date(DateUnit.DAY),
            new ArrowType.Time(TimeUnit.MICROSECOND, 64),
            new ArrowType.Timestamp(TimeUnit.MICROSECOND, null),
            new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"),
            new ArrowType.Timestamp(TimeUnit.NANOSECOND, null),
            new ArrowType.Timestamp(TimeUnit.NANOSECOND, "UTC"),
            ArrowType.Utf8.INSTANCE,
            new ArrowType.FixedSizeBinary(16),
            new ArrowType.FixedSizeBinary(7),
            ArrowType.Binary.INSTANCE);
    for (Types.NestedField column : schema.columns()) {
      Field field = fields.get(column.fieldId() - 1);
      assertThat(field.getName()).isEqualTo(column.name());
      assertThat(field.isNullable()).isEqualTo(column.isOptional());
      assertThat(field.getChildren()).isEmpty();
      if (column.type().typeId() == Type.TypeID.UUID) {
        assertThat(field.getMetadata())
            .isEqualTo(Map.of("PARQUET:field_id", "14", "iceberg:type", "uuid"));
      } else {
        assertThat(field.getMetadata())
            .isEqualTo(Map.of("PARQUET:field_id", String.valueOf(column.fieldId())));
      }
    }
  }

  @Test
  public void namesAreSanitisedLikeIcebergParquet() {
    Schema schema =
        new Schema(
            Types.NestedField.optional(1, "a-b", Types.IntegerType.get()),
            Types.NestedField.optional(2, "1st", Types.IntegerType.get()),
            Types.NestedField.optional(3, "ok_name", Types.IntegerType.get()),
            Types.NestedField.optional(
                4,
                "st.ruct",
                Types.StructType.of(Types.NestedField.optional(5, "x y", Types.StringType.get()))));

    List<Field> fields = IcebergArrowSchema.convert(schema).getFields();

    assertThat(fields)
        .extracting(Field::getName)
        .containsExactly(
            "a_x2Db",
            AvroSchemaUtil.makeCompatibleName("1st"),
            "ok_name",
            AvroSchemaUtil.makeCompatibleName("st.ruct"));
    assertThat(fields.get(1).getName()).isEqualTo("_1st");
    assertThat(fields.get(3).getChildren().get(0).getName())
        .isEqualTo(AvroSchemaUtil.makeCompatibleName("x y"))
        .isEqualTo("x_x20y");
  }

  @Test
  public void structsKeepTheirChildrenNullabilityAndFieldIds() {
    Schema schema =
        new Schema(
            Types.NestedField.required(
                1,
                "s",
                Types.StructType.of(
                    Types.NestedField.required(2, "a", Types.IntegerType.get()),
                    Types.NestedField.optional(
                        3,
                        "inner",
                        Types.StructType.of(
                            Types.NestedField.optional(4, "c", Types.LongType.get()))))));

    Field struct = IcebergArrowSchema.convert(schema).getFields().get(0);

    assertField(struct, "s", ArrowType.Struct.INSTANCE, false, 1);
    assertThat(struct.getChildren()).hasSize(2);
    assertField(struct.getChildren().get(0), "a", new ArrowType.Int(32, true), false, 2);
    Field inner = struct.getChildren().get(1);
    assertField(inner, "inner", ArrowType.Struct.INSTANCE, true, 3);
    assertThat(inner.getChildren()).hasSize(1);
    assertField(inner.getChildren().get(0), "c", new ArrowType.Int(64, true), true, 4);
  }

  @Test
  public void listsHaveAnElementChildWithItsFieldId() {
    Schema schema =
        new Schema(
            Types.NestedField.optional(
                1, "opt", Types.ListType.ofOptional(2, Types.StringType.get())),
            Types.NestedField.required(
                3, "req", Types.ListType.ofRequired(4, Types.UUIDType.get())));

    List<Field> fields = IcebergArrowSchema.convert(schema).getFields();

    assertField(fields.get(0), "opt", ArrowType.List.INSTANCE, true, 1);
    assertThat(fields.get(0).getChildren()).hasSize(1);
    assertField(fields.get(0).getChildren().get(0), "element", ArrowType.Utf8.INSTANCE, true, 2);
    assertField(fields.get(1), "req", ArrowType.List.INSTANCE, false, 3);
    Field uuidElement = fields.get(1).getChildren().get(0);
    assertThat(uuidElement.getName()).isEqualTo("element");
    assertThat(uuidElement.isNullable()).isFalse();
    assertThat(uuidElement.getType()).isEqualTo(new ArrowType.FixedSizeBinary(16));
    assertThat(uuidElement.getMetadata())
        .isEqualTo(Map.of("PARQUET:field_id", "4", "iceberg:type", "uuid"));
  }

  @Test
  public void mapsHaveKeyValueEntriesWithoutAFieldId() {
    Schema schema =
        new Schema(
            Types.NestedField.optional(
                1,
                "m",
                Types.MapType.ofOptional(2, 3, Types.StringType.get(), Types.IntegerType.get())),
            Types.NestedField.required(
                4,
                "rm",
                Types.MapType.ofRequired(
                    5,
                    6,
                    Types.IntegerType.get(),
                    Types.ListType.ofOptional(7, Types.LongType.get()))));

    List<Field> fields = IcebergArrowSchema.convert(schema).getFields();

    Field map = fields.get(0);
    assertField(map, "m", new ArrowType.Map(false), true, 1);
    assertThat(map.getChildren()).hasSize(1);
    Field entries = map.getChildren().get(0);
    assertThat(entries.getName()).isEqualTo("key_value");
    assertThat(entries.getType()).isEqualTo(ArrowType.Struct.INSTANCE);
    assertThat(entries.isNullable()).isFalse();
    assertThat(entries.getMetadata()).isEmpty();
    assertThat(entries.getChildren()).hasSize(2);
    assertField(entries.getChildren().get(0), "key", ArrowType.Utf8.INSTANCE, false, 2);
    assertField(entries.getChildren().get(1), "value", new ArrowType.Int(32, true), true, 3);

    Field requiredMap = fields.get(1);
    assertField(requiredMap, "rm", new ArrowType.Map(false), false, 4);
    Field requiredEntries = requiredMap.getChildren().get(0);
    assertThat(requiredEntries.getMetadata()).isEmpty();
    assertField(requiredEntries.getChildren().get(0), "key", new ArrowType.Int(32, true), false, 5);
    Field listValue = requiredEntries.getChildren().get(1);
    assertField(listValue, "value", ArrowType.List.INSTANCE, false, 6);
    assertField(listValue.getChildren().get(0), "element", new ArrowType.Int(64, true), true, 7);
  }

  @Test
  public void unknownFieldsAreOmitted() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "gone", Types.UnknownType.get()),
            Types.NestedField.optional(
                3,
                "s",
                Types.StructType.of(
                    Types.NestedField.optional(4, "also_gone", Types.UnknownType.get()),
                    Types.NestedField.optional(5, "kept", Types.StringType.get()))));

    List<Field> fields = IcebergArrowSchema.convert(schema).getFields();

    assertThat(fields).extracting(Field::getName).containsExactly("id", "s");
    assertThat(fields.get(1).getChildren()).extracting(Field::getName).containsExactly("kept");
    assertThat(IcebergArrowSchema.isSupported(schema)).isTrue();
    assertThat(IcebergArrowSchema.unsupportedReason(schema)).isNull();
  }

  @Test
  public void anUnknownListElementIsRejected() {
    Schema schema =
        new Schema(
            Types.NestedField.optional(
                1, "l", Types.ListType.ofOptional(2, Types.UnknownType.get())));

    assertThatThrownBy(() -> IcebergArrowSchema.convert(schema))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'l.element'")
        .hasMessageContaining("unknown");
    assertThat(IcebergArrowSchema.isSupported(schema)).isFalse();
    assertThat(IcebergArrowSchema.unsupportedReason(schema)).contains("'l.element'");
  }

  @Test
  public void anUnknownMapValueIsRejected() {
    Schema schema =
        new Schema(
            Types.NestedField.optional(
                1,
                "m",
                Types.MapType.ofOptional(2, 3, Types.StringType.get(), Types.UnknownType.get())));

    assertThatThrownBy(() -> IcebergArrowSchema.convert(schema))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'m.value'");
    assertThat(IcebergArrowSchema.isSupported(schema)).isFalse();
  }

  @Test
  public void aVariantIsUnsupported() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(
                2,
                "s",
                Types.StructType.of(Types.NestedField.optional(3, "v", Types.VariantType.get()))));

    assertThatThrownBy(() -> IcebergArrowSchema.convert(schema))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("'s.v'")
        .hasMessageContaining("variant");
    assertThat(IcebergArrowSchema.isSupported(schema)).isFalse();
    assertThat(IcebergArrowSchema.unsupportedReason(schema)).contains("'s.v'").contains("variant");
  }

  @Test
  public void geospatialTypesAreUnsupported() {
    Schema geometry = new Schema(Types.NestedField.optional(1, "geom", Types.GeometryType.crs84()));
    Schema geography =
        new Schema(
            Types.NestedField.optional(
                1, "l", Types.ListType.ofOptional(2, Types.GeographyType.crs84())));

    assertThatThrownBy(() -> IcebergArrowSchema.convert(geometry))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("'geom'")
        .hasMessageContaining("geometry");
    assertThatThrownBy(() -> IcebergArrowSchema.convert(geography))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("'l.element'")
        .hasMessageContaining("geography");
    assertThat(IcebergArrowSchema.isSupported(geometry)).isFalse();
    assertThat(IcebergArrowSchema.isSupported(geography)).isFalse();
  }

  private static void assertField(
      Field field, String name, ArrowType type, boolean nullable, int fieldId) {
    assertThat(field.getName()).isEqualTo(name);
    assertThat(field.getType()).isEqualTo(type);
    assertThat(field.isNullable()).isEqualTo(nullable);
    assertThat(field.getMetadata()).isEqualTo(Map.of("PARQUET:field_id", String.valueOf(fieldId)));
  }
}

package io.frazil.testkit;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;

import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * The schemas of the file-level parity matrix (java-bridge's TestParquetParity and the validation
 * tool): every primitive, required columns, nesting, and the v3 nanosecond types.
 */
public final class ParitySchemas {
  private ParitySchemas() {}

  public static final Schema PRIMITIVES =
      new Schema(
          optional(1, "b", Types.BooleanType.get()),
          optional(2, "i", Types.IntegerType.get()),
          optional(3, "l", Types.LongType.get()),
          optional(4, "f", Types.FloatType.get()),
          optional(5, "d", Types.DoubleType.get()),
          optional(6, "dec1", Types.DecimalType.of(1, 0)),
          optional(7, "dec9", Types.DecimalType.of(9, 2)),
          optional(8, "dec10", Types.DecimalType.of(10, 3)),
          optional(9, "dec18", Types.DecimalType.of(18, 4)),
          optional(10, "dec19", Types.DecimalType.of(19, 5)),
          optional(11, "dec38", Types.DecimalType.of(38, 10)),
          optional(12, "date", Types.DateType.get()),
          optional(13, "time", Types.TimeType.get()),
          optional(14, "ts", Types.TimestampType.withoutZone()),
          optional(15, "tstz", Types.TimestampType.withZone()),
          optional(16, "s", Types.StringType.get()),
          optional(17, "u", Types.UUIDType.get()),
          optional(18, "fx", Types.FixedType.ofLength(7)),
          optional(19, "bin", Types.BinaryType.get()),
          optional(20, "odd-name", Types.StringType.get()));

  public static final Schema REQUIRED =
      new Schema(
          required(1, "id", Types.LongType.get()),
          required(2, "i", Types.IntegerType.get()),
          required(3, "d", Types.DoubleType.get()),
          required(4, "s", Types.StringType.get()),
          required(5, "dec", Types.DecimalType.of(12, 2)),
          required(6, "u", Types.UUIDType.get()),
          required(7, "ts", Types.TimestampType.withZone()));

  public static final Schema NESTED =
      new Schema(
          required(1, "id", Types.LongType.get()),
          optional(2, "f", Types.FloatType.get()),
          optional(
              3,
              "st",
              Types.StructType.of(
                  optional(4, "a", Types.IntegerType.get()),
                  required(5, "b", Types.StringType.get()),
                  optional(
                      6,
                      "inner",
                      Types.StructType.of(optional(7, "c", Types.DecimalType.of(20, 2)))))),
          optional(8, "ints", Types.ListType.ofOptional(9, Types.IntegerType.get())),
          optional(
              10,
              "points",
              Types.ListType.ofRequired(
                  11,
                  Types.StructType.of(
                      required(12, "x", Types.DoubleType.get()),
                      optional(13, "label", Types.StringType.get())))),
          optional(
              14,
              "props",
              Types.MapType.ofOptional(15, 16, Types.StringType.get(), Types.LongType.get())),
          required(
              17,
              "nested_map",
              Types.MapType.ofRequired(
                  18,
                  19,
                  Types.IntegerType.get(),
                  Types.ListType.ofOptional(20, Types.StringType.get()))));

  public static final Schema V3_TYPES =
      new Schema(
          required(1, "id", Types.IntegerType.get()),
          optional(2, "ts_ns", Types.TimestampNanoType.withoutZone()),
          optional(3, "tstz_ns", Types.TimestampNanoType.withZone()));
}

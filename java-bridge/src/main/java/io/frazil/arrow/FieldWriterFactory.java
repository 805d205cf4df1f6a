package io.frazil.arrow;

import io.frazil.arrow.DateTimeWriters.DateWriter;
import io.frazil.arrow.DateTimeWriters.TimeWriter;
import io.frazil.arrow.DateTimeWriters.TimestampUnit;
import io.frazil.arrow.DateTimeWriters.TimestampWriter;
import io.frazil.arrow.NestedWriters.ListWriter;
import io.frazil.arrow.NestedWriters.MapWriter;
import io.frazil.arrow.NestedWriters.StructWriter;
import io.frazil.arrow.ScalarWriters.BooleanWriter;
import io.frazil.arrow.ScalarWriters.DoubleReader;
import io.frazil.arrow.ScalarWriters.DoubleWriter;
import io.frazil.arrow.ScalarWriters.FloatWriter;
import io.frazil.arrow.ScalarWriters.IntReader;
import io.frazil.arrow.ScalarWriters.IntWriter;
import io.frazil.arrow.ScalarWriters.LongReader;
import io.frazil.arrow.ScalarWriters.LongWriter;
import io.frazil.arrow.StringAndBinaryWriters.BinaryWriter;
import io.frazil.arrow.StringAndBinaryWriters.FixedWriter;
import io.frazil.arrow.StringAndBinaryWriters.StringWriter;
import java.util.List;
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
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;
import org.apache.iceberg.relocated.com.google.common.base.Preconditions;
import org.apache.iceberg.relocated.com.google.common.collect.Lists;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/** Builds the writer tree from the Iceberg type, the Flink type and the Arrow vector. */
final class FieldWriterFactory {
  private FieldWriterFactory() {}

  /** Writers of a struct's (or the schema's) fields, with the Flink positions they read. */
  static final class Children {
    final FieldWriter[] writers;
    final int[] positions;

    private Children(FieldWriter[] writers, int[] positions) {
      this.writers = writers;
      this.positions = positions;
    }

    static Children of(
        List<Types.NestedField> fields,
        RowType flinkType,
        List<FieldVector> vectors,
        String parentPath) {
      List<FieldWriter> writers = Lists.newArrayList();
      List<Integer> positions = Lists.newArrayList();
      for (int pos = 0; pos < fields.size(); pos++) {
        Types.NestedField field = fields.get(pos);
        // Omitted fields have a Flink column but no vector: the vector list skips them.
        if (!IcebergArrowSchema.isOmitted(field.type())) {
          FieldVector vector = vectors.get(writers.size());
          writers.add(
              create(
                  field.type(),
                  flinkType.getTypeAt(pos),
                  vector,
                  parentPath + field.name(),
                  field.isOptional()));
          positions.add(pos);
        }
      }

      return new Children(
          writers.toArray(new FieldWriter[0]),
          positions.stream().mapToInt(Integer::intValue).toArray());
    }
  }

  private static FieldWriter create(
      Type icebergType, LogicalType flinkType, FieldVector vector, String path, boolean nullable) {
    LogicalTypeRoot flinkRoot = flinkType.getTypeRoot();
    switch (icebergType.typeId()) {
      case BOOLEAN:
        check(flinkType, icebergType, path, LogicalTypeRoot.BOOLEAN);
        return new BooleanWriter((BitVector) vector, path, nullable);
      case INTEGER:
        check(
            flinkType,
            icebergType,
            path,
            LogicalTypeRoot.TINYINT,
            LogicalTypeRoot.SMALLINT,
            LogicalTypeRoot.INTEGER);
        return new IntWriter((IntVector) vector, IntReader.of(flinkRoot), path, nullable);
      case LONG:
        check(
            flinkType,
            icebergType,
            path,
            LogicalTypeRoot.TINYINT,
            LogicalTypeRoot.SMALLINT,
            LogicalTypeRoot.INTEGER,
            LogicalTypeRoot.BIGINT);
        return new LongWriter((BigIntVector) vector, LongReader.of(flinkRoot), path, nullable);
      case FLOAT:
        check(flinkType, icebergType, path, LogicalTypeRoot.FLOAT);
        return new FloatWriter((Float4Vector) vector, path, nullable);
      case DOUBLE:
        check(flinkType, icebergType, path, LogicalTypeRoot.FLOAT, LogicalTypeRoot.DOUBLE);
        return new DoubleWriter((Float8Vector) vector, DoubleReader.of(flinkRoot), path, nullable);
      case DECIMAL:
        return decimal(
            (Types.DecimalType) icebergType, flinkType, (DecimalVector) vector, path, nullable);
      case DATE:
        check(flinkType, icebergType, path, LogicalTypeRoot.DATE);
        return new DateWriter((DateDayVector) vector, path, nullable);
      case TIME:
        check(flinkType, icebergType, path, LogicalTypeRoot.TIME_WITHOUT_TIME_ZONE);
        return new TimeWriter((TimeMicroVector) vector, path, nullable);
      case TIMESTAMP:
      case TIMESTAMP_NANO:
        check(
            flinkType,
            icebergType,
            path,
            LogicalTypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE,
            LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE);
        return new TimestampWriter(
            (TimeStampVector) vector,
            LogicalTypeChecks.getPrecision(flinkType),
            icebergType.typeId() == Type.TypeID.TIMESTAMP_NANO
                ? TimestampUnit.NANOS
                : TimestampUnit.MICROS,
            path,
            nullable);
      case STRING:
        check(flinkType, icebergType, path, LogicalTypeRoot.CHAR, LogicalTypeRoot.VARCHAR);
        return new StringWriter((VarCharVector) vector, path, nullable);
      case UUID:
      case FIXED:
        check(flinkType, icebergType, path, LogicalTypeRoot.BINARY, LogicalTypeRoot.VARBINARY);
        return new FixedWriter((FixedSizeBinaryVector) vector, path, nullable);
      case BINARY:
        check(flinkType, icebergType, path, LogicalTypeRoot.BINARY, LogicalTypeRoot.VARBINARY);
        return new BinaryWriter((VarBinaryVector) vector, path, nullable);
      case STRUCT:
        check(flinkType, icebergType, path, LogicalTypeRoot.ROW);
        return struct(
            icebergType.asStructType(), (RowType) flinkType, (StructVector) vector, path, nullable);
      case LIST:
        check(flinkType, icebergType, path, LogicalTypeRoot.ARRAY);
        return list(
            icebergType.asListType(), (ArrayType) flinkType, (ListVector) vector, path, nullable);
      case MAP:
        check(flinkType, icebergType, path, LogicalTypeRoot.MAP);
        return map(
            icebergType.asMapType(), (MapType) flinkType, (MapVector) vector, path, nullable);
      default:
        // IcebergArrowSchema.convert already rejected every other type.
        throw new UnsupportedOperationException(
            String.format("Cannot write field '%s': unsupported type %s", path, icebergType));
    }
  }

  private static FieldWriter decimal(
      Types.DecimalType icebergType,
      LogicalType flinkType,
      DecimalVector vector,
      String path,
      boolean nullable) {
    check(flinkType, icebergType, path, LogicalTypeRoot.DECIMAL);
    DecimalType flinkDecimal = (DecimalType) flinkType;
    // The unscaled value is copied as is, so only a narrower precision can be accepted.
    Preconditions.checkArgument(
        flinkDecimal.getScale() == icebergType.scale()
            && flinkDecimal.getPrecision() <= icebergType.precision(),
        "Cannot write Flink type %s to field '%s' of Iceberg type %s",
        flinkType,
        path,
        icebergType);
    return new DecimalWriter(
        vector,
        flinkDecimal.getPrecision(),
        flinkDecimal.getScale(),
        icebergType.precision(),
        path,
        nullable);
  }

  private static FieldWriter struct(
      Types.StructType icebergType,
      RowType flinkType,
      StructVector vector,
      String path,
      boolean nullable) {
    Preconditions.checkArgument(
        flinkType.getFieldCount() == icebergType.fields().size(),
        "Cannot write Flink type %s to field '%s' of Iceberg type %s: field counts differ",
        flinkType,
        path,
        icebergType);
    Children children =
        Children.of(icebergType.fields(), flinkType, vector.getChildrenFromFields(), path + ".");
    return new StructWriter(
        vector, children.writers, children.positions, flinkType.getFieldCount(), path, nullable);
  }

  private static FieldWriter list(
      Types.ListType icebergType,
      ArrayType flinkType,
      ListVector vector,
      String path,
      boolean nullable) {
    Types.NestedField element = icebergType.fields().get(0);
    FieldWriter elementWriter =
        create(
            element.type(),
            flinkType.getElementType(),
            vector.getDataVector(),
            path + "." + element.name(),
            element.isOptional());
    return new ListWriter(vector, elementWriter, path, nullable);
  }

  private static FieldWriter map(
      Types.MapType icebergType,
      MapType flinkType,
      MapVector vector,
      String path,
      boolean nullable) {
    Types.NestedField key = icebergType.fields().get(0);
    Types.NestedField value = icebergType.fields().get(1);
    StructVector entries = (StructVector) vector.getDataVector();
    List<FieldVector> entryVectors = entries.getChildrenFromFields();
    FieldWriter keyWriter =
        create(
            key.type(),
            flinkType.getKeyType(),
            entryVectors.get(0),
            path + "." + key.name(),
            false);
    FieldWriter valueWriter =
        create(
            value.type(),
            flinkType.getValueType(),
            entryVectors.get(1),
            path + "." + value.name(),
            value.isOptional());
    return new MapWriter(vector, entries, keyWriter, valueWriter, path, nullable);
  }

  private static void check(
      LogicalType flinkType, Type icebergType, String path, LogicalTypeRoot... accepted) {
    for (LogicalTypeRoot root : accepted) {
      if (flinkType.getTypeRoot() == root) {
        return;
      }
    }

    throw new IllegalArgumentException(
        String.format(
            "Cannot write Flink type %s to field '%s' of Iceberg type %s",
            flinkType, path, icebergType));
  }
}

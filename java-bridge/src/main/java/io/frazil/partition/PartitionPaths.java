package io.frazil.partition;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BaseVariableWidthVector;
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
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.UUIDUtil;

/**
 * Partition paths of the key tuples the native split returns, built by Iceberg's own code ({@link
 * PartitionKey#toPath()}, i.e. {@code PartitionSpec.partitionToPath}: each transform's {@code
 * toHumanString} and URL escaping), once per distinct tuple and remembered for the next batches in
 * a bounded map (least recently used out beyond {@value #MAX_ENTRIES} tuples).
 *
 * <p>A tuple's values are read from the key vectors as the Java classes Iceberg's partition key
 * holds for that result type (Integer for int, date, bucket and time ordinals; Long for long, time,
 * timestamps; String, ByteBuffer, UUID, BigDecimal, Boolean, Float, Double), so the path is the one
 * {@code PartitionKeySelector} returns for every row of the tuple. Not thread-safe (one per
 * splitter, one splitter per subtask).
 */
final class PartitionPaths {
  /** The most tuples remembered; a time-partitioned stream moves through them, so old ones go. */
  static final int MAX_ENTRIES = 4096;

  private final PartitionSpec spec;
  private final Schema schema;
  private final Type[] resultTypes;
  private final Map<List<Object>, String> paths =
      new LinkedHashMap<>(64, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<List<Object>, String> eldest) {
          return size() > MAX_ENTRIES;
        }
      };

  PartitionPaths(PartitionSpec spec, Schema schema) {
    this.spec = spec;
    this.schema = schema;
    List<Types.NestedField> fields = spec.partitionType().fields();
    this.resultTypes = new Type[fields.size()];
    for (int i = 0; i < resultTypes.length; i++) {
      resultTypes[i] = fields.get(i).type();
    }
  }

  /** The path of the tuple in row {@code row} of {@code keys} (one vector per partition field). */
  String path(VectorSchemaRoot keys, int row) {
    Object[] values = new Object[resultTypes.length];
    for (int i = 0; i < values.length; i++) {
      values[i] = value(keys.getVector(i), row, resultTypes[i]);
    }
    List<Object> tuple = Arrays.asList(values);
    String path = paths.get(tuple);
    if (path == null) {
      PartitionKey key = new PartitionKey(spec, schema);
      for (int i = 0; i < values.length; i++) {
        key.set(i, values[i]);
      }
      path = key.toPath();
      paths.put(tuple, path);
    }
    return path;
  }

  /** Tuples remembered now. */
  int size() {
    return paths.size();
  }

  private static Object value(FieldVector vector, int row, Type type) {
    if (vector.isNull(row)) {
      return null;
    }
    switch (type.typeId()) {
      case INTEGER:
        return ((IntVector) vector).get(row);
      case DATE:
        return vector instanceof DateDayVector
            ? ((DateDayVector) vector).get(row)
            : ((IntVector) vector).get(row);
      case LONG:
        return ((BigIntVector) vector).get(row);
      case TIME:
        return ((TimeMicroVector) vector).get(row);
      case TIMESTAMP:
      case TIMESTAMP_NANO:
        return ((TimeStampVector) vector).get(row);
      case STRING:
        return new String(((BaseVariableWidthVector) vector).get(row), StandardCharsets.UTF_8);
      case BINARY:
        return ByteBuffer.wrap(((BaseVariableWidthVector) vector).get(row));
      case FIXED:
        return ByteBuffer.wrap(((FixedSizeBinaryVector) vector).get(row));
      case UUID:
        return UUIDUtil.convert(((FixedSizeBinaryVector) vector).get(row));
      case DECIMAL:
        return ((DecimalVector) vector).getObject(row);
      case BOOLEAN:
        return ((BitVector) vector).getObject(row);
      case FLOAT:
        return ((Float4Vector) vector).get(row);
      case DOUBLE:
        return ((Float8Vector) vector).get(row);
      default:
        throw new UnsupportedSplitException(
            "Cannot read a partition value of type " + type + " from " + vector.getField());
    }
  }
}

package io.frazil.arrow;

import java.math.BigInteger;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
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
import org.apache.arrow.vector.util.DecimalUtility;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;
import org.apache.iceberg.Schema;
import org.apache.iceberg.relocated.com.google.common.base.Preconditions;
import org.apache.iceberg.relocated.com.google.common.collect.Lists;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Appends Flink {@link RowData} to Arrow vectors laid out by {@link IcebergArrowSchema}.
 *
 * <p>The per-type writers are chosen once, in the constructor, from the Iceberg type (which fixes
 * the Arrow vector) and the Flink logical type (which fixes the {@code RowData} getter, e.g. a
 * Flink {@code SMALLINT} feeding an Iceberg {@code int}). Writing a row is then a walk over that
 * tree with no type dispatch, boxing or per-row allocation besides what the Flink getters do.
 *
 * <p>Every value is copied into Arrow memory, so callers may reuse row objects. A null in a
 * required field fails {@link #write(RowData)} with an {@link IllegalArgumentException}; the
 * vectors may then hold part of that row, so the current batch must be discarded (close this
 * writer, or call {@link #reset()} before writing again).
 *
 * <p>Read the batch schema from {@code root().getSchema()}: arrow-java names the child vectors of
 * lists and maps {@code $data$} and {@code entries} whatever the schema said, so the per-vector
 * {@code getField()} of a list or map does not carry the {@code element}/{@code key_value} names.
 *
 * <p>Not thread-safe.
 */
public final class RowDataArrowWriter implements AutoCloseable {
  private final VectorSchemaRoot root;
  private final FieldWriter[] writers;
  private final int[] positions;
  private int rowCount = 0;

  public RowDataArrowWriter(Schema schema, RowType flinkType, BufferAllocator allocator) {
    this(schema, flinkType, allocator, 0);
  }

  /**
   * A writer whose vectors start with room for {@code initialRows} rows (Arrow's default when 0)
   * and grow as rows arrive: a file that receives few rows never holds a full batch's buffers.
   */
  public RowDataArrowWriter(
      Schema schema, RowType flinkType, BufferAllocator allocator, int initialRows) {
    Preconditions.checkNotNull(schema, "Invalid schema: null");
    Preconditions.checkNotNull(flinkType, "Invalid Flink type: null");
    Preconditions.checkNotNull(allocator, "Invalid allocator: null");
    List<Types.NestedField> columns = schema.columns();
    Preconditions.checkArgument(
        flinkType.getFieldCount() == columns.size(),
        "Flink type %s has %s fields but the Iceberg schema has %s columns",
        flinkType,
        flinkType.getFieldCount(),
        columns.size());

    VectorSchemaRoot newRoot =
        VectorSchemaRoot.create(IcebergArrowSchema.convert(schema), allocator);
    try {
      if (initialRows > 0) {
        for (FieldVector vector : newRoot.getFieldVectors()) {
          vector.setInitialCapacity(initialRows);
        }
      }
      newRoot.allocateNew();
      Children children = Children.of(columns, flinkType, newRoot.getFieldVectors(), "");
      this.writers = children.writers;
      this.positions = children.positions;
    } catch (RuntimeException e) {
      newRoot.close();
      throw e;
    }

    this.root = newRoot;
  }

  /** Returns the vectors of the current batch; their schema is {@link IcebergArrowSchema}'s. */
  public VectorSchemaRoot root() {
    return root;
  }

  /**
   * Appends a copy of {@code row} to the current batch.
   *
   * @throws IllegalArgumentException if a required field is null or a value does not fit its
   *     Iceberg type; the current batch is then unusable
   */
  public void write(RowData row) {
    int index = rowCount;
    try {
      for (int i = 0; i < writers.length; i++) {
        writers[i].write(row, positions[i], index);
      }
    } catch (InvalidValueException e) {
      throw new IllegalArgumentException(
          String.format("%s at row %d of the current batch", e.getMessage(), index));
    }

    this.rowCount = index + 1;
  }

  /** Returns the number of rows appended since the last {@link #reset()}. */
  public int rowCount() {
    return rowCount;
  }

  /**
   * Returns an estimate of the bytes the current batch occupies in Arrow buffers.
   *
   * <p>Costs one step per vector, whatever the number of rows: it is meant to be polled after every
   * row to decide when to cut a batch. It counts data, not allocated capacity, which stays high
   * after {@link #reset()}.
   */
  public long bufferedBytes() {
    long bytes = 0;
    for (FieldWriter writer : writers) {
      bytes += writer.bufferedBytes(rowCount);
    }

    return bytes;
  }

  /** Seals the current batch: sets every vector's value count and the root's row count. */
  public void finishBatch() {
    root.setRowCount(rowCount);
  }

  /** Empties the vectors for the next batch, keeping their buffers allocated. */
  public void reset() {
    for (FieldVector vector : root.getFieldVectors()) {
      vector.reset();
    }

    root.setRowCount(0);
    this.rowCount = 0;
  }

  /** Frees all Arrow buffers. */
  @Override
  public void close() {
    root.close();
  }

  /** Writers of a struct's (or the schema's) fields, with the Flink positions they read. */
  private static final class Children {
    private final FieldWriter[] writers;
    private final int[] positions;

    private Children(FieldWriter[] writers, int[] positions) {
      this.writers = writers;
      this.positions = positions;
    }

    private static Children of(
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
              Writers.create(
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

  /** Builds the writer tree from the Iceberg type, the Flink type and the Arrow vector. */
  private static final class Writers {
    private Writers() {}

    private static FieldWriter create(
        Type icebergType,
        LogicalType flinkType,
        FieldVector vector,
        String path,
        boolean nullable) {
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
          return new DoubleWriter(
              (Float8Vector) vector, DoubleReader.of(flinkRoot), path, nullable);
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
              icebergType.asStructType(),
              (RowType) flinkType,
              (StructVector) vector,
              path,
              nullable);
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

  /**
   * Signals a value the Iceberg type rejects. Carries no row number: only {@link #write(RowData)}
   * knows it, and it turns this into the public {@link IllegalArgumentException}.
   */
  private static final class InvalidValueException extends RuntimeException {
    private InvalidValueException(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * Writes one Iceberg field into one Arrow vector.
   *
   * <p>{@link RowData} and {@link ArrayData} share getter names but no interface, hence the two
   * entry points: a field is read from a row when it is a struct member and from an array when it
   * is a list element or map key/value.
   */
  private abstract static class FieldWriter {
    private final String path;
    private final boolean nullable;

    private FieldWriter(String path, boolean nullable) {
      this.path = path;
      this.nullable = nullable;
    }

    final void write(RowData row, int pos, int index) {
      if (row.isNullAt(pos)) {
        writeNull(index);
      } else {
        writeValue(row, pos, index);
      }
    }

    final void write(ArrayData array, int pos, int index) {
      if (array.isNullAt(pos)) {
        writeNull(index);
      } else {
        writeValue(array, pos, index);
      }
    }

    final String path() {
      return path;
    }

    private void writeNull(int index) {
      if (!nullable) {
        throw new InvalidValueException(String.format("Null value in required field '%s'", path));
      }

      setNull(index);
    }

    /**
     * Marks {@code index} null without the required check: also used to pad the children of a null
     * struct, which must stay as long as their parent even when they are required.
     */
    abstract void setNull(int index);

    abstract void writeValue(RowData row, int pos, int index);

    abstract void writeValue(ArrayData array, int pos, int index);

    /** Bytes held by the first {@code valueCount} values, at constant cost per vector. */
    abstract long bufferedBytes(int valueCount);
  }

  /** A writer of a fixed-width vector, whose size follows from the value count alone. */
  private abstract static class FixedWidthWriter<V extends BaseFixedWidthVector>
      extends FieldWriter {
    final V vector;
    private ArrowBuf validity = null;
    private ArrowBuf values = null;
    private int capacity = 0;

    private FixedWidthWriter(V vector, String path, boolean nullable) {
      super(path, nullable);
      this.vector = vector;
    }

    /**
     * Makes room for {@code index}, marks it valid and returns the value buffer: what {@code
     * setSafe} does, without recomputing the vector's capacity for every value (a division per
     * call, the top of the conversion profile). The cached capacity is trusted only while the
     * vector still holds the very buffers it was computed from.
     */
    final ArrowBuf reserve(int index) {
      if (index >= capacity
          || validity != vector.getValidityBuffer()
          || values != vector.getDataBuffer()) {
        while (index >= vector.getValueCapacity()) {
          vector.reAlloc();
        }
        validity = vector.getValidityBuffer();
        values = vector.getDataBuffer();
        capacity = vector.getValueCapacity();
      }
      BitVectorHelper.setBit(validity, index);
      return values;
    }

    final void putInt(int index, int value) {
      reserve(index).setInt((long) index * Integer.BYTES, value);
    }

    final void putLong(int index, long value) {
      reserve(index).setLong((long) index * Long.BYTES, value);
    }

    @Override
    final void setNull(int index) {
      vector.setNull(index);
    }

    @Override
    final long bufferedBytes(int valueCount) {
      return vector.getBufferSizeFor(valueCount);
    }
  }

  /** A writer of a variable-width vector; its data size is read from the offsets. */
  private abstract static class VariableWidthWriter<V extends BaseVariableWidthVector>
      extends FieldWriter {
    final V vector;
    private ArrowBuf validity = null;
    private ArrowBuf offsets = null;
    private ArrowBuf data = null;
    private int capacity = 0;

    private VariableWidthWriter(V vector, String path, boolean nullable) {
      super(path, nullable);
      this.vector = vector;
    }

    /**
     * Appends {@code length} bytes of {@code source} as the value at {@code index}: {@code
     * setSafe(index, bytes, start, length)} without its per-value capacity computations. Offsets of
     * skipped (null) slots before {@code index} are filled first, as Arrow's own {@code fillHoles}
     * would.
     */
    final void putBytes(int index, byte[] source, int start, int length) {
      if (index >= capacity
          || validity != vector.getValidityBuffer()
          || offsets != vector.getOffsetBuffer()
          || data != vector.getDataBuffer()) {
        while (index >= vector.getValueCapacity()) {
          vector.reAlloc();
        }
        validity = vector.getValidityBuffer();
        offsets = vector.getOffsetBuffer();
        data = vector.getDataBuffer();
        capacity = vector.getValueCapacity();
      }
      int lastSet = vector.getLastSet();
      if (lastSet < index - 1) {
        int end = offsets.getInt((long) (lastSet + 1) * Integer.BYTES);
        for (int hole = lastSet + 1; hole < index; hole += 1) {
          offsets.setInt((long) (hole + 1) * Integer.BYTES, end);
        }
      }
      int begin = offsets.getInt((long) index * Integer.BYTES);
      long end = (long) begin + length;
      if (end > Integer.MAX_VALUE) {
        throw new InvalidValueException(
            String.format("Field '%s' holds more than 2 GiB in one batch", path()));
      }
      if (end > data.capacity()) {
        while (vector.getDataBuffer().capacity() < end) {
          vector.reallocDataBuffer();
        }
        data = vector.getDataBuffer();
      }
      data.setBytes(begin, source, start, length);
      offsets.setInt((long) (index + 1) * Integer.BYTES, (int) end);
      BitVectorHelper.setBit(validity, index);
      vector.setLastSet(index);
    }

    @Override
    final void setNull(int index) {
      vector.setNull(index);
    }

    @Override
    final long bufferedBytes(int valueCount) {
      if (valueCount == 0) {
        return 0;
      }

      // Nulls leave the trailing offsets unset until setValueCount, so the data size is read at
      // the last value set rather than at valueCount.
      int lastSet = vector.getLastSet();
      long dataBytes =
          lastSet < 0 ? 0 : vector.getOffsetBuffer().getInt((long) (lastSet + 1) * Integer.BYTES);
      return BitVectorHelper.getValidityBufferSizeFromCount(valueCount)
          + (long) (valueCount + 1) * Integer.BYTES
          + dataBytes;
    }
  }

  private static final class BooleanWriter extends FixedWidthWriter<BitVector> {
    private BooleanWriter(BitVector vector, String path, boolean nullable) {
      super(vector, path, nullable);
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      vector.setSafe(index, row.getBoolean(pos) ? 1 : 0);
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      vector.setSafe(index, array.getBoolean(pos) ? 1 : 0);
    }
  }

  /** Reads a Flink integer type no wider than INT; one constant per type root. */
  private enum IntReader {
    TINYINT {
      @Override
      int read(RowData row, int pos) {
        return row.getByte(pos);
      }

      @Override
      int read(ArrayData array, int pos) {
        return array.getByte(pos);
      }
    },
    SMALLINT {
      @Override
      int read(RowData row, int pos) {
        return row.getShort(pos);
      }

      @Override
      int read(ArrayData array, int pos) {
        return array.getShort(pos);
      }
    },
    INTEGER {
      @Override
      int read(RowData row, int pos) {
        return row.getInt(pos);
      }

      @Override
      int read(ArrayData array, int pos) {
        return array.getInt(pos);
      }
    };

    abstract int read(RowData row, int pos);

    abstract int read(ArrayData array, int pos);

    static IntReader of(LogicalTypeRoot root) {
      return valueOf(root.name());
    }
  }

  /** Reads a Flink integer type as a long, widening the narrower ones. */
  private enum LongReader {
    TINYINT {
      @Override
      long read(RowData row, int pos) {
        return row.getByte(pos);
      }

      @Override
      long read(ArrayData array, int pos) {
        return array.getByte(pos);
      }
    },
    SMALLINT {
      @Override
      long read(RowData row, int pos) {
        return row.getShort(pos);
      }

      @Override
      long read(ArrayData array, int pos) {
        return array.getShort(pos);
      }
    },
    INTEGER {
      @Override
      long read(RowData row, int pos) {
        return row.getInt(pos);
      }

      @Override
      long read(ArrayData array, int pos) {
        return array.getInt(pos);
      }
    },
    BIGINT {
      @Override
      long read(RowData row, int pos) {
        return row.getLong(pos);
      }

      @Override
      long read(ArrayData array, int pos) {
        return array.getLong(pos);
      }
    };

    abstract long read(RowData row, int pos);

    abstract long read(ArrayData array, int pos);

    static LongReader of(LogicalTypeRoot root) {
      return valueOf(root.name());
    }
  }

  /** Reads a Flink FLOAT or DOUBLE as a double. */
  private enum DoubleReader {
    FLOAT {
      @Override
      double read(RowData row, int pos) {
        return row.getFloat(pos);
      }

      @Override
      double read(ArrayData array, int pos) {
        return array.getFloat(pos);
      }
    },
    DOUBLE {
      @Override
      double read(RowData row, int pos) {
        return row.getDouble(pos);
      }

      @Override
      double read(ArrayData array, int pos) {
        return array.getDouble(pos);
      }
    };

    abstract double read(RowData row, int pos);

    abstract double read(ArrayData array, int pos);

    static DoubleReader of(LogicalTypeRoot root) {
      return valueOf(root.name());
    }
  }

  private static final class IntWriter extends FixedWidthWriter<IntVector> {
    private final IntReader reader;

    private IntWriter(IntVector vector, IntReader reader, String path, boolean nullable) {
      super(vector, path, nullable);
      this.reader = reader;
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      putInt(index, reader.read(row, pos));
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      putInt(index, reader.read(array, pos));
    }
  }

  private static final class LongWriter extends FixedWidthWriter<BigIntVector> {
    private final LongReader reader;

    private LongWriter(BigIntVector vector, LongReader reader, String path, boolean nullable) {
      super(vector, path, nullable);
      this.reader = reader;
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      putLong(index, reader.read(row, pos));
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      putLong(index, reader.read(array, pos));
    }
  }

  private static final class FloatWriter extends FixedWidthWriter<Float4Vector> {
    private FloatWriter(Float4Vector vector, String path, boolean nullable) {
      super(vector, path, nullable);
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      reserve(index).setFloat((long) index * Float.BYTES, row.getFloat(pos));
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      reserve(index).setFloat((long) index * Float.BYTES, array.getFloat(pos));
    }
  }

  private static final class DoubleWriter extends FixedWidthWriter<Float8Vector> {
    private final DoubleReader reader;

    private DoubleWriter(Float8Vector vector, DoubleReader reader, String path, boolean nullable) {
      super(vector, path, nullable);
      this.reader = reader;
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      reserve(index).setDouble((long) index * Double.BYTES, reader.read(row, pos));
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      reserve(index).setDouble((long) index * Double.BYTES, reader.read(array, pos));
    }
  }

  /** Flink DATE and Arrow Date(DAY) are both days since the epoch in an int. */
  private static final class DateWriter extends FixedWidthWriter<DateDayVector> {
    private DateWriter(DateDayVector vector, String path, boolean nullable) {
      super(vector, path, nullable);
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      putInt(index, row.getInt(pos));
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      putInt(index, array.getInt(pos));
    }
  }

  /** Flink holds TIME as milliseconds of the day; Iceberg stores microseconds. */
  private static final class TimeWriter extends FixedWidthWriter<TimeMicroVector> {
    private TimeWriter(TimeMicroVector vector, String path, boolean nullable) {
      super(vector, path, nullable);
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      putLong(index, row.getInt(pos) * 1000L);
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      putLong(index, array.getInt(pos) * 1000L);
    }
  }

  /** The unit of the Iceberg timestamp a Flink timestamp is converted to. */
  private enum TimestampUnit {
    MICROS {
      @Override
      long convert(TimestampData timestamp) {
        return timestamp.getMillisecond() * 1000L + timestamp.getNanoOfMillisecond() / 1000;
      }
    },
    NANOS {
      @Override
      long convert(TimestampData timestamp) {
        return timestamp.getMillisecond() * 1_000_000L + timestamp.getNanoOfMillisecond();
      }
    };

    abstract long convert(TimestampData timestamp);
  }

  /**
   * Writes Flink TIMESTAMP and TIMESTAMP_LTZ values: both are an epoch offset in {@link
   * TimestampData}, and whether Iceberg adjusts to UTC only changes the Arrow type's zone.
   */
  private static final class TimestampWriter extends FixedWidthWriter<TimeStampVector> {
    private final int precision;
    private final TimestampUnit unit;

    private TimestampWriter(
        TimeStampVector vector, int precision, TimestampUnit unit, String path, boolean nullable) {
      super(vector, path, nullable);
      this.precision = precision;
      this.unit = unit;
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      putLong(index, unit.convert(row.getTimestamp(pos, precision)));
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      putLong(index, unit.convert(array.getTimestamp(pos, precision)));
    }
  }

  /** Copies the unscaled value; the Flink scale equals the Iceberg scale (checked when built). */
  private static final class DecimalWriter extends FixedWidthWriter<DecimalVector> {
    private final int flinkPrecision;
    private final int flinkScale;
    private final int icebergPrecision;

    private DecimalWriter(
        DecimalVector vector,
        int flinkPrecision,
        int flinkScale,
        int icebergPrecision,
        String path,
        boolean nullable) {
      super(vector, path, nullable);
      this.flinkPrecision = flinkPrecision;
      this.flinkScale = flinkScale;
      this.icebergPrecision = icebergPrecision;
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      set(index, row.getDecimal(pos, flinkPrecision, flinkScale));
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      set(index, array.getDecimal(pos, flinkPrecision, flinkScale));
    }

    private void set(int index, DecimalData decimal) {
      // GenericRowData holds whatever DecimalData it was given, so the declared type is not enough
      // to trust the scale, as Iceberg's own Flink writers also check.
      if (decimal.scale() != flinkScale || decimal.precision() > icebergPrecision) {
        throw new InvalidValueException(
            String.format(
                "Cannot write decimal(%d,%d) value to field '%s' of type decimal(%d,%d)",
                decimal.precision(), decimal.scale(), path(), icebergPrecision, flinkScale));
      }

      if (decimal.isCompact()) {
        putDecimal(index, decimal.toUnscaledLong());
        return;
      }
      // A wide decimal type often holds values that fit a long: write those without the
      // byte-by-byte big-endian path.
      BigInteger unscaled = decimal.toBigDecimal().unscaledValue();
      if (unscaled.bitLength() < Long.SIZE) {
        putDecimal(index, unscaled.longValue());
      } else {
        vector.setBigEndianSafe(index, unscaled.toByteArray());
      }
    }

    private void putDecimal(int index, long unscaled) {
      DecimalUtility.writeLongToArrowBuf(unscaled, reserve(index), index, DecimalVector.TYPE_WIDTH);
    }
  }

  /** Writes fixed and uuid values, which must have exactly the fixed length. */
  private static final class FixedWriter extends FixedWidthWriter<FixedSizeBinaryVector> {
    private final int length;

    private FixedWriter(FixedSizeBinaryVector vector, String path, boolean nullable) {
      super(vector, path, nullable);
      this.length = vector.getByteWidth();
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      set(index, row.getBinary(pos));
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      set(index, array.getBinary(pos));
    }

    private void set(int index, byte[] bytes) {
      if (bytes.length != length) {
        throw new InvalidValueException(
            String.format(
                "Cannot write %d bytes to field '%s' of fixed length %d",
                bytes.length, path(), length));
      }

      vector.setSafe(index, bytes);
    }
  }

  private static final class BinaryWriter extends VariableWidthWriter<VarBinaryVector> {
    private BinaryWriter(VarBinaryVector vector, String path, boolean nullable) {
      super(vector, path, nullable);
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      byte[] bytes = row.getBinary(pos);
      putBytes(index, bytes, 0, bytes.length);
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      byte[] bytes = array.getBinary(pos);
      putBytes(index, bytes, 0, bytes.length);
    }
  }

  /** Copies UTF-8 bytes straight from Flink's memory, never decoding to a java.lang.String. */
  private static final class StringWriter extends VariableWidthWriter<VarCharVector> {
    private StringWriter(VarCharVector vector, String path, boolean nullable) {
      super(vector, path, nullable);
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      set(index, row.getString(pos));
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      set(index, array.getString(pos));
    }

    private void set(int index, StringData string) {
      if (string instanceof BinaryStringData) {
        BinaryStringData binary = (BinaryStringData) string;
        // A string made from a java.lang.String has no binary section until it is materialized,
        // and getSegments() would throw; toBytes() below materializes it.
        if (binary.getBinarySection() != null) {
          MemorySegment[] segments = binary.getSegments();
          if (segments.length == 1) {
            byte[] heap = segments[0].getHeapMemory();
            if (heap != null) {
              putBytes(index, heap, binary.getOffset(), binary.getSizeInBytes());
              return;
            }
          }
        }
      }

      byte[] bytes = string.toBytes();
      putBytes(index, bytes, 0, bytes.length);
    }
  }

  private static final class StructWriter extends FieldWriter {
    private final StructVector vector;
    private final FieldWriter[] children;
    private final int[] positions;
    private final int arity;

    private StructWriter(
        StructVector vector,
        FieldWriter[] children,
        int[] positions,
        int arity,
        String path,
        boolean nullable) {
      super(path, nullable);
      this.vector = vector;
      this.children = children;
      this.positions = positions;
      this.arity = arity;
    }

    @Override
    void setNull(int index) {
      vector.setNull(index);
      for (FieldWriter child : children) {
        child.setNull(index);
      }
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      set(index, row.getRow(pos, arity));
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      set(index, array.getRow(pos, arity));
    }

    private void set(int index, RowData struct) {
      vector.setIndexDefined(index);
      for (int i = 0; i < children.length; i++) {
        children[i].write(struct, positions[i], index);
      }
    }

    @Override
    long bufferedBytes(int valueCount) {
      long bytes = BitVectorHelper.getValidityBufferSizeFromCount(valueCount);
      for (FieldWriter child : children) {
        bytes += child.bufferedBytes(valueCount);
      }

      return bytes;
    }
  }

  /** Reads the number of child values of the first {@code valueCount} lists or maps. */
  private static int childCount(ListVector vector, int valueCount) {
    // Every index up to valueCount went through startNewValue or setNull, which set its offsets.
    return valueCount == 0 ? 0 : vector.getOffsetBuffer().getInt((long) valueCount * Integer.BYTES);
  }

  private static long listBytes(int valueCount) {
    return valueCount == 0
        ? 0
        : BitVectorHelper.getValidityBufferSizeFromCount(valueCount)
            + (long) (valueCount + 1) * Integer.BYTES;
  }

  private static final class ListWriter extends FieldWriter {
    private final ListVector vector;
    private final FieldWriter element;

    private ListWriter(ListVector vector, FieldWriter element, String path, boolean nullable) {
      super(path, nullable);
      this.vector = vector;
      this.element = element;
    }

    @Override
    void setNull(int index) {
      vector.setNull(index);
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      set(index, row.getArray(pos));
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      set(index, array.getArray(pos));
    }

    private void set(int index, ArrayData array) {
      int size = array.size();
      int offset = vector.startNewValue(index);
      for (int i = 0; i < size; i++) {
        element.write(array, i, offset + i);
      }

      vector.endValue(index, size);
    }

    @Override
    long bufferedBytes(int valueCount) {
      return listBytes(valueCount) + element.bufferedBytes(childCount(vector, valueCount));
    }
  }

  private static final class MapWriter extends FieldWriter {
    private final MapVector vector;
    private final StructVector entries;
    private final FieldWriter key;
    private final FieldWriter value;

    private MapWriter(
        MapVector vector,
        StructVector entries,
        FieldWriter key,
        FieldWriter value,
        String path,
        boolean nullable) {
      super(path, nullable);
      this.vector = vector;
      this.entries = entries;
      this.key = key;
      this.value = value;
    }

    @Override
    void setNull(int index) {
      vector.setNull(index);
    }

    @Override
    void writeValue(RowData row, int pos, int index) {
      set(index, row.getMap(pos));
    }

    @Override
    void writeValue(ArrayData array, int pos, int index) {
      set(index, array.getMap(pos));
    }

    private void set(int index, MapData map) {
      int size = map.size();
      ArrayData keys = map.keyArray();
      ArrayData values = map.valueArray();
      int offset = vector.startNewValue(index);
      for (int i = 0; i < size; i++) {
        // The entries struct is non-nullable: every entry must be marked present.
        entries.setIndexDefined(offset + i);
        key.write(keys, i, offset + i);
        value.write(values, i, offset + i);
      }

      vector.endValue(index, size);
    }

    @Override
    long bufferedBytes(int valueCount) {
      int entryCount = childCount(vector, valueCount);
      return listBytes(valueCount)
          + BitVectorHelper.getValidityBufferSizeFromCount(entryCount)
          + key.bufferedBytes(entryCount)
          + value.bufferedBytes(entryCount);
    }
  }
}

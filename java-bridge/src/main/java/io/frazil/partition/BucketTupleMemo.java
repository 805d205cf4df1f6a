package io.frazil.partition;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.transforms.Transform;
import org.apache.iceberg.transforms.Transforms;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Every partition tuple of a small bucket-only partition spec, computed once: the bounded
 * bucket-tuple memoizer (README, "Partition routing: the bucket-tuple memoizer").
 *
 * <p>For one (Iceberg {@link Schema}, {@link PartitionSpec}, Flink {@link RowType}) whose spec
 * fields are all {@code bucket[N]} transforms and whose tuple space ∏(Nᵢ + 1) is at most {@value
 * #MAX_TUPLES} (the {@code +1} is a slot for a null source value), {@link #ordinal(RowData)} maps a
 * row to the mixed-radix number of its bucket tuple, and {@link #key(int)} / {@link #path(int)}
 * return that tuple's {@link PartitionKey} and partition path, both built once in {@link #create}.
 * Per row this replaces Iceberg's {@code RowDataWrapper} conversions (String, BigDecimal,
 * LocalDateTime, UUID objects), the Guava hashing and boxing in {@code PartitionKey.partition}, the
 * {@code HashMap<PartitionKey, …>} probe of the fan-out writers and the per-row {@code toPath()} of
 * {@code PartitionKeySelector}.
 *
 * <p><b>Equivalence.</b> For every row, {@code key(ordinal(row))} is equal (both {@code equals} and
 * {@code hashCode}) to what {@code new PartitionKey(spec, schema).partition(new
 * RowDataWrapper(flinkType, schema.asStruct()).wrap(row))} yields, and {@code path(ordinal(row))}
 * is byte-identical to that key's {@code toPath()}. Values are read from the row the way {@code
 * RowDataWrapper} reads them, and hashed the way Iceberg's {@code Bucket} transform hashes what
 * {@code RowDataWrapper} returns:
 *
 * <ul>
 *   <li>Iceberg int / date: Flink TINYINT, SMALLINT, INT, DATE via {@code getByte}, {@code
 *       getShort}, {@code getInt}; hashed as the 8-byte little-endian long.
 *   <li>long: BIGINT, 8-byte little-endian.
 *   <li>time: Flink TIME holds milliseconds (int); hashed as micros = millis × 1000.
 *   <li>timestamp / timestamptz (micros): from a Flink TIMESTAMP, {@code RowDataWrapper} goes
 *       through {@code LocalDateTime} and {@code ChronoUnit.MICROS.between}, which truncates
 *       sub-microsecond nanos toward zero; from a TIMESTAMP_LTZ it computes {@code millis * 1000 +
 *       nanoOfMillisecond / 1000}, which floors. Both are reproduced from {@link TimestampData}'s
 *       two fields, without objects (they differ for instants before 1970 with sub-microsecond
 *       nanos).
 *   <li>timestamp_ns / timestamptz_ns: {@code RowDataWrapper} yields nanos and Iceberg's bucket
 *       transform floors them to micros ({@code DateTimeUtil.nanosToMicros}) before hashing, so ns
 *       and micros columns bucket alike. From a Flink TIMESTAMP stock uses exact arithmetic ({@code
 *       ChronoUnit.NANOS.between} throws {@link ArithmeticException} beyond ±292 years of 1970, and
 *       so does this class); from TIMESTAMP_LTZ it uses wrapping {@code long} arithmetic, which is
 *       reproduced as is.
 *   <li>string (CHAR / VARCHAR): the UTF-8 bytes. A {@link BinaryStringData} holding a Java String
 *       (built with {@code fromString}, or already decoded) is hashed from that String, which is
 *       what stock's {@code toString()} returns; one holding only bytes is hashed from its memory
 *       segment when the bytes are well-formed UTF-8 (then decoding and re-encoding them, as stock
 *       does, is the identity). Malformed bytes, strings spanning several segments and other {@link
 *       StringData} implementations take stock's route ({@code toString()}, then the same UTF-8
 *       hash), which allocates but gives the same bucket by construction.
 *   <li>uuid (BINARY(16)): the 16 bytes (big-endian most then least significant bits, which is how
 *       Flink stores it); a length other than 16 throws {@link IllegalArgumentException}, as
 *       stock's {@code UUIDUtil.convert} does.
 *   <li>fixed / binary: the raw bytes.
 *   <li>decimal: the minimal big-endian two's-complement bytes of the unscaled value; computed from
 *       the long for compact values ({@link DecimalData#isCompact()}, precision ≤ 18), from {@link
 *       DecimalData#toUnscaledBytes()} otherwise.
 * </ul>
 *
 * <p>boolean, float and double sources (and any Flink type {@code RowDataWrapper} would not turn
 * into the Iceberg type's Java class) are rejected by {@link #create}. Sources nested in structs
 * are read through the struct positions; a null optional parent struct gives a null value, and a
 * null <em>required</em> parent struct throws {@link NullPointerException} exactly where Iceberg's
 * position accessors do (they do not null-check required parents up to two levels deep).
 *
 * <p><b>Allocation.</b> {@link #ordinal} allocates nothing itself. With {@code GenericRowData} rows
 * (values stored as objects) the whole call allocates nothing. With {@code BinaryRowData} rows
 * Flink's getters create small wrappers ({@code BinaryStringData} per {@code getString}, {@code
 * TimestampData}, {@code DecimalData}, a {@code byte[]} copy per {@code getBinary}, a nested row
 * per {@code getRow}) that C2's escape analysis often removes; non-compact decimals allocate their
 * unscaled bytes ({@code toUnscaledBytes()}, what Flink stores).
 *
 * <p><b>Thread safety.</b> Immutable after {@link #create}; {@link #ordinal} may be called from any
 * number of threads.
 */
public final class BucketTupleMemo {
  /** The largest tuple space ∏(Nᵢ + 1), null slots included, that is memoized. */
  public static final int MAX_TUPLES = 1024;

  private static final Pattern BUCKET = Pattern.compile("bucket\\[(\\d+)\\]");

  private final Schema schema;
  private final PartitionSpec spec;
  private final FieldReader[] fields;
  private final int size;
  private final PartitionKey[] keys;
  private final String[] paths;

  private BucketTupleMemo(Schema schema, PartitionSpec spec, FieldReader[] fields, int size) {
    this.schema = schema;
    this.spec = spec;
    this.fields = fields;
    this.size = size;
    this.keys = new PartitionKey[size];
    this.paths = new String[size];
    int[] slots = new int[fields.length];
    for (int ordinal = 0; ordinal < size; ordinal++) {
      int rest = ordinal;
      for (int i = fields.length - 1; i >= 0; i--) {
        slots[i] = rest % fields[i].radix;
        rest /= fields[i].radix;
      }
      PartitionKey key = new PartitionKey(spec, schema);
      for (int i = 0; i < fields.length; i++) {
        // Integer.valueOf, as the autoboxing of Bucket.apply's result in stock keys.
        key.set(i, slots[i] == fields[i].numBuckets ? null : Integer.valueOf(slots[i]));
      }
      keys[ordinal] = key;
      paths[ordinal] = key.toPath();
    }
  }

  /**
   * True exactly when {@code spec} has at least one field, every field's transform is {@code
   * bucket[N]}, and ∏(Nᵢ + 1) ≤ {@value #MAX_TUPLES}. Source types are not checked here ({@link
   * #create} does).
   */
  public static boolean isEligible(PartitionSpec spec) {
    return spec != null && ineligibility(spec) == null;
  }

  /** Why {@code spec} is not eligible, or null when it is. */
  private static String ineligibility(PartitionSpec spec) {
    List<PartitionField> fields = spec.fields();
    if (fields.isEmpty()) {
      return "the spec is unpartitioned";
    }
    long product = 1;
    for (PartitionField field : fields) {
      int numBuckets = numBuckets(field.transform());
      if (numBuckets <= 0) {
        return "partition field '"
            + field.name()
            + "' has transform "
            + field.transform()
            + ", not bucket[N]";
      }
      product *= numBuckets + 1L; // both factors ≤ 2^31 + 1 and product ≤ 1024: no overflow
      if (product > MAX_TUPLES) {
        return "the bucket tuple space exceeds "
            + MAX_TUPLES
            + " at partition field '"
            + field.name()
            + "' (product of (N + 1) over the fields)";
      }
    }
    return null;
  }

  /** N for a {@code bucket[N]} transform, or -1 for any other transform. */
  private static int numBuckets(Transform<?, ?> transform) {
    if (transform == null) {
      return -1;
    }
    Matcher matcher = BUCKET.matcher(String.valueOf(transform));
    if (!matcher.matches()) {
      return -1;
    }
    int numBuckets;
    try {
      numBuckets = Integer.parseInt(matcher.group(1));
    } catch (NumberFormatException e) {
      return -1;
    }
    // The name alone could be an UnknownTransform's: require the real Bucket (equals checks the
    // class and N).
    if (numBuckets <= 0 || !transform.equals(Transforms.bucket(numBuckets))) {
      return -1;
    }
    return numBuckets;
  }

  /**
   * Builds the memo and all {@link #size()} keys and paths.
   *
   * @throws IllegalArgumentException when the spec is not {@link #isEligible eligible}, when a
   *     source field is missing, not reachable through structs only, of a type the bucket transform
   *     rejects (boolean, float, double, ...), or read from a Flink type this class does not
   *     handle; the message names the field
   */
  public static BucketTupleMemo create(Schema schema, PartitionSpec spec, RowType flinkType) {
    if (schema == null || spec == null || flinkType == null) {
      throw new IllegalArgumentException("schema, spec and flinkType must not be null");
    }
    String reason = ineligibility(spec);
    if (reason != null) {
      throw new IllegalArgumentException(
          "Partition spec " + spec + " is not memoizable: " + reason);
    }
    List<PartitionField> partitionFields = spec.fields();
    FieldReader[] fields = new FieldReader[partitionFields.size()];
    int size = 1;
    for (int i = 0; i < fields.length; i++) {
      fields[i] = FieldReader.of(schema, flinkType, partitionFields.get(i));
      size *= fields[i].radix;
    }
    return new BucketTupleMemo(schema, spec, fields, size);
  }

  /**
   * The mixed-radix ordinal of the row's bucket tuple: {@code ((s₀ · r₁ + s₁) · r₂ + s₂) …} with
   * {@code sᵢ} the bucket number of field i, or {@code Nᵢ} for a null value, and {@code rᵢ = Nᵢ +
   * 1}. Always in {@code [0, size())}.
   */
  public int ordinal(RowData row) {
    int ordinal = 0;
    for (FieldReader field : fields) {
      ordinal = ordinal * field.radix + field.slot(row);
    }
    return ordinal;
  }

  /**
   * The partition key of the tuple {@code ordinal}: built once and shared by every call. Callers
   * must not mutate it ({@code set}, {@code partition}, {@code wrap}): fan-out writers keep it as a
   * map key and every later row of the tuple gets the same instance. {@link PartitionKey#copy()}
   * gives a private copy.
   */
  public PartitionKey key(int ordinal) {
    return keys[ordinal];
  }

  /** {@code key(ordinal).toPath()}, computed once. */
  public String path(int ordinal) {
    return paths[ordinal];
  }

  /** The number of tuples, ∏(Nᵢ + 1). */
  public int size() {
    return size;
  }

  public PartitionSpec spec() {
    return spec;
  }

  public Schema schema() {
    return schema;
  }

  /**
   * The Murmur3 hash (before {@code & Integer.MAX_VALUE % N}) of field {@code field}'s non-null
   * source value in {@code row}: for tests against the spec's test vectors.
   */
  int sourceHash(int field, RowData row) {
    FieldReader reader = fields[field];
    RowData struct = row;
    for (int level = 0; level < reader.parentPositions.length; level++) {
      struct = struct.getRow(reader.parentPositions[level], reader.parentArity[level]);
    }
    return reader.hash(struct);
  }

  @Override
  public String toString() {
    return "BucketTupleMemo{spec=" + spec + ", tuples=" + size + "}";
  }

  // ---------------------------------------------------------------------------------------------

  /** Reads one spec field's source value from a row and returns its slot. */
  private static final class FieldReader {
    final int numBuckets;
    final int radix;
    final BucketSourceKind kind;
    final int position; // in the innermost struct
    final int[] parentPositions; // outermost first
    final int[] parentArity;
    final boolean[] nullParentIsNull; // false: stock throws NullPointerException
    final String[] parentNames;
    final int precision;
    final int scale;

    private FieldReader(
        int numBuckets,
        BucketSourceKind kind,
        int position,
        int[] parentPositions,
        int[] parentArity,
        boolean[] nullParentIsNull,
        String[] parentNames,
        int precision,
        int scale) {
      this.numBuckets = numBuckets;
      this.radix = numBuckets + 1;
      this.kind = kind;
      this.position = position;
      this.parentPositions = parentPositions;
      this.parentArity = parentArity;
      this.nullParentIsNull = nullParentIsNull;
      this.parentNames = parentNames;
      this.precision = precision;
      this.scale = scale;
    }

    static FieldReader of(Schema schema, RowType flinkType, PartitionField partitionField) {
      int numBuckets = numBuckets(partitionField.transform());
      String what = "partition field '" + partitionField.name() + "'";
      List<Types.NestedField> path = new ArrayList<>();
      if (!findPath(schema.asStruct(), partitionField.sourceId(), path)) {
        Types.NestedField anywhere = schema.findField(partitionField.sourceId());
        throw new IllegalArgumentException(
            anywhere == null
                ? "Cannot find source field id "
                    + partitionField.sourceId()
                    + " of "
                    + what
                    + " in the schema"
                : "Source field '"
                    + schema.findColumnName(partitionField.sourceId())
                    + "' of "
                    + what
                    + " is inside a list or map; only struct nesting is supported");
      }
      Types.NestedField source = path.get(path.size() - 1);
      String sourceName = schema.findColumnName(source.fieldId());
      Type icebergType = source.type();
      if (!Transforms.bucket(numBuckets).canTransform(icebergType)) {
        throw new IllegalArgumentException(
            "Cannot bucket by type: "
                + icebergType
                + " (source field '"
                + sourceName
                + "' of "
                + what
                + ")");
      }

      // Walk the Flink row type along the same positions.
      int depth = path.size() - 1;
      int[] parentPositions = new int[depth];
      int[] parentArity = new int[depth];
      boolean[] parentOptional = new boolean[depth];
      String[] parentNames = new String[depth];
      Types.StructType struct = schema.asStruct();
      RowType rowType = flinkType;
      for (int level = 0; level <= depth; level++) {
        Types.NestedField field = path.get(level);
        int pos = struct.fields().indexOf(field);
        if (rowType.getFieldCount() != struct.fields().size()) {
          throw new IllegalArgumentException(
              "Flink row type "
                  + rowType
                  + " has "
                  + rowType.getFieldCount()
                  + " fields where the Iceberg struct has "
                  + struct.fields().size()
                  + " (reading source field '"
                  + sourceName
                  + "')");
        }
        if (level < depth) {
          LogicalType nested = rowType.getTypeAt(pos);
          if (!(nested instanceof RowType) || !field.type().isStructType()) {
            throw new IllegalArgumentException(
                "Field '"
                    + field.name()
                    + "' on the way to '"
                    + sourceName
                    + "' is "
                    + nested
                    + " in Flink, expected a ROW for Iceberg "
                    + field.type());
          }
          parentPositions[level] = pos;
          parentArity[level] = ((RowType) nested).getFieldCount();
          parentOptional[level] = field.isOptional();
          parentNames[level] = schema.findColumnName(field.fieldId());
          struct = field.type().asStructType();
          rowType = (RowType) nested;
        }
      }
      int position = struct.fields().indexOf(source);
      LogicalType logical = rowType.getTypeAt(position);
      BucketSourceKind kind = BucketSourceKind.of(icebergType, logical, sourceName);
      int precision = 0;
      int scale = 0;
      if (logical instanceof DecimalType) {
        precision = ((DecimalType) logical).getPrecision();
        scale = ((DecimalType) logical).getScale();
      } else if (logical instanceof TimestampType) {
        precision = ((TimestampType) logical).getPrecision();
      } else if (logical instanceof LocalZonedTimestampType) {
        precision = ((LocalZonedTimestampType) logical).getPrecision();
      }
      return new FieldReader(
          numBuckets,
          kind,
          position,
          parentPositions,
          parentArity,
          nullParentIsNull(parentOptional),
          parentNames,
          precision,
          scale);
    }

    /** The path of struct fields from the top level to {@code fieldId}, through structs only. */
    private static boolean findPath(
        Types.StructType struct, int fieldId, List<Types.NestedField> path) {
      for (Types.NestedField field : struct.fields()) {
        path.add(field);
        if (field.fieldId() == fieldId) {
          return true;
        }
        if (field.type().isStructType() && findPath(field.type().asStructType(), fieldId, path)) {
          return true;
        }
        path.remove(path.size() - 1);
      }
      return false;
    }

    /**
     * Which parent levels give a null value when the parent struct is null, as Iceberg's {@code
     * Accessors} build them (innermost first): an optional parent wraps with a null check; a
     * required parent over a plain position accessor becomes a two-position accessor, over a
     * two-position one a three-position accessor, both without null checks; deeper required parents
     * wrap with a null check again.
     */
    private static boolean[] nullParentIsNull(boolean[] parentOptional) {
      boolean[] nullSafe = new boolean[parentOptional.length];
      int accessorPositions = 1; // 1, 2, 3 = unchecked position accessors; 0 = wrapped
      for (int level = parentOptional.length - 1; level >= 0; level--) {
        if (parentOptional[level]) {
          nullSafe[level] = true;
          accessorPositions = 0;
        } else if (accessorPositions == 1 || accessorPositions == 2) {
          nullSafe[level] = false;
          accessorPositions++;
        } else {
          nullSafe[level] = true;
          accessorPositions = 0;
        }
      }
      return nullSafe;
    }

    /** The slot of this field for {@code row}: the bucket number, or N for a null value. */
    int slot(RowData row) {
      RowData struct = row;
      for (int level = 0; level < parentPositions.length; level++) {
        int pos = parentPositions[level];
        if (struct.isNullAt(pos)) {
          if (nullParentIsNull[level]) {
            return numBuckets;
          }
          throw new NullPointerException(
              "Required struct '" + parentNames[level] + "' is null (as Iceberg's accessor)");
        }
        struct = struct.getRow(pos, parentArity[level]);
      }
      if (struct.isNullAt(position)) {
        return numBuckets;
      }
      return (hash(struct) & Integer.MAX_VALUE) % numBuckets;
    }

    private int hash(RowData struct) {
      int pos = position;
      switch (kind) {
        case BYTE_AS_INT:
          return Murmur3.hashLong(struct.getByte(pos));
        case SHORT_AS_INT:
          return Murmur3.hashLong(struct.getShort(pos));
        case INT:
          return Murmur3.hashLong(struct.getInt(pos));
        case LONG:
          return Murmur3.hashLong(struct.getLong(pos));
        case TIME_MILLIS:
          return Murmur3.hashLong(struct.getInt(pos) * 1_000L);
        case TIMESTAMP_MICROS_TRUNCATED:
          return Murmur3.hashLong(microsTruncated(struct.getTimestamp(pos, precision)));
        case TIMESTAMP_MICROS_FLOORED:
          return Murmur3.hashLong(microsFloored(struct.getTimestamp(pos, precision)));
        case TIMESTAMP_NANOS_EXACT:
          {
            TimestampData ts = struct.getTimestamp(pos, precision);
            long nanos =
                Math.addExact(
                    Math.multiplyExact(ts.getMillisecond(), 1_000_000L), ts.getNanoOfMillisecond());
            return Murmur3.hashLong(Math.floorDiv(nanos, 1_000L));
          }
        case TIMESTAMP_NANOS_WRAPPING:
          {
            TimestampData ts = struct.getTimestamp(pos, precision);
            long nanos = ts.getMillisecond() * 1_000_000L + ts.getNanoOfMillisecond();
            return Murmur3.hashLong(Math.floorDiv(nanos, 1_000L));
          }
        case STRING:
          return hashString(struct.getString(pos));
        case BYTES:
          {
            byte[] bytes = struct.getBinary(pos);
            return Murmur3.hashBytes(bytes, 0, bytes.length);
          }
        case UUID:
          {
            byte[] bytes = struct.getBinary(pos);
            if (bytes.length != 16) {
              throw new IllegalArgumentException("UUID require 16 bytes");
            }
            return Murmur3.hashBytes(bytes, 0, 16);
          }
        case DECIMAL:
          {
            DecimalData decimal = struct.getDecimal(pos, precision, scale);
            if (decimal.isCompact()) {
              return Murmur3.hashUnscaledLong(decimal.toUnscaledLong());
            }
            byte[] unscaled = decimal.toUnscaledBytes();
            return Murmur3.hashBytes(unscaled, 0, unscaled.length);
          }
        default:
          throw new IllegalStateException("Unknown kind " + kind);
      }
    }
  }

  /**
   * Micros as {@code ChronoUnit.MICROS.between(EPOCH, timestamp.toLocalDateTime())}: the nanos
   * since the epoch divided by 1000, truncated toward zero.
   */
  static long microsTruncated(TimestampData ts) {
    long millis = ts.getMillisecond();
    int nanoOfMilli = ts.getNanoOfMillisecond();
    long floored = millis * 1_000L + nanoOfMilli / 1_000;
    return millis < 0 && nanoOfMilli % 1_000 != 0 ? floored + 1 : floored;
  }

  /** Micros as {@code millis * 1000 + nanoOfMillisecond / 1000}: floored. */
  static long microsFloored(TimestampData ts) {
    return ts.getMillisecond() * 1_000L + ts.getNanoOfMillisecond() / 1_000;
  }

  /** The bucket hash of a Flink string, as Iceberg hashes {@code string.toString()}. */
  static int hashString(StringData string) {
    if (string instanceof BinaryStringData) {
      BinaryStringData binary = (BinaryStringData) string;
      String decoded = binary.getJavaObject();
      if (decoded != null) {
        return Murmur3.hashUtf8(decoded);
      }
      MemorySegment[] segments = binary.getSegments();
      int offset = binary.getOffset();
      int length = binary.getSizeInBytes();
      if (offset + length <= segments[0].size() && Utf8.isWellFormed(segments[0], offset, length)) {
        return Murmur3.hashSegment(segments[0], offset, length);
      }
    }
    return Murmur3.hashUtf8(string.toString());
  }
}

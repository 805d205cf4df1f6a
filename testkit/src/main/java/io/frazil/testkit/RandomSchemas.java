package io.frazil.testkit;

import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.relocated.com.google.common.collect.Lists;
import org.apache.iceberg.relocated.com.google.common.collect.Sets;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Seeded random Iceberg schemas for the randomized parity test: every type Frazil writes natively
 * (boolean, int, long, float, double, decimal(1..38, 0..P), date, time, timestamp, timestamptz,
 * timestamp_ns, timestamptz_ns, string, uuid, fixed(1..40), binary), structs, lists and maps nested
 * up to depth 3, required/optional mixes and column names with spaces, dots, quotes, {@code $} and
 * non-ASCII characters. Field ids are unique; full (dotted) names are unique too, as Iceberg
 * requires.
 *
 * <p>Known, deliberate difference avoided by construction (README "Parity with stock Iceberg"): no
 * float or double is generated below an optional struct. Iceberg 1.11's value writers do not count
 * rows where such a parent struct is null (apache/iceberg#17561) while Frazil does, so their value
 * and null counts would differ on purpose. TestParquetParity's schemas avoid the same shape.
 */
public final class RandomSchemas {
  /** Name stems: plain, odd characters Iceberg accepts and Parquet names carry (sanitized). */
  private static final String[] STEMS = {
    "c",
    "col",
    "a b",
    "dot.ted",
    "dollar$",
    "quo\"te",
    "apo'strophe",
    "back`tick",
    "ünï",
    "日本",
    "𝄞",
    "-dash",
    "_under",
    "UPPER",
    "tab\tname",
    "semi;colon",
    "comma,",
    "brace{}",
    "eq=",
  };

  private static final Type.TypeID[] PRIMITIVES = {
    Type.TypeID.BOOLEAN,
    Type.TypeID.INTEGER,
    Type.TypeID.LONG,
    Type.TypeID.FLOAT,
    Type.TypeID.DOUBLE,
    Type.TypeID.DECIMAL,
    Type.TypeID.DATE,
    Type.TypeID.TIME,
    Type.TypeID.TIMESTAMP,
    Type.TypeID.TIMESTAMP_NANO,
    Type.TypeID.STRING,
    Type.TypeID.UUID,
    Type.TypeID.FIXED,
    Type.TypeID.BINARY,
  };

  /** Nesting levels below the top-level struct: struct, list and map count one each. */
  public static final int MAX_DEPTH = 3;

  private final Random random;
  private final Set<String> fullNames = Sets.newHashSet();
  private int nextId = 1;

  private RandomSchemas(long seed) {
    this.random = new Random(seed);
  }

  /** A random schema of 1..12 top-level fields; the same seed gives the same schema. */
  public static Schema generate(long seed) {
    return new RandomSchemas(seed).schema();
  }

  private Schema schema() {
    int count = 1 + random.nextInt(12);
    List<Types.NestedField> fields = Lists.newArrayList();
    for (int i = 0; i < count; i += 1) {
      fields.add(field("", 0, false));
    }
    return new Schema(fields);
  }

  private Types.NestedField field(String parentPath, int depth, boolean underOptionalStruct) {
    int id = nextId++;
    String name = uniqueName(parentPath);
    boolean optional = random.nextInt(3) != 0;
    Type type = type(parentPath + name + ".", depth, underOptionalStruct, optional);
    return Types.NestedField.of(id, optional, name, type);
  }

  private String uniqueName(String parentPath) {
    for (int attempt = 0; ; attempt += 1) {
      String stem = STEMS[random.nextInt(STEMS.length)];
      String name = attempt < 3 ? stem + nextId : stem + nextId + "_" + attempt;
      if (fullNames.add(parentPath + name)) {
        return name;
      }
    }
  }

  /** The type of a field, list element or map value that is {@code optional} itself. */
  private Type type(String path, int depth, boolean underOptionalStruct, boolean optional) {
    if (depth < MAX_DEPTH && random.nextInt(4) == 0) {
      switch (random.nextInt(3)) {
        case 0:
          return struct(path, depth + 1, underOptionalStruct || optional);
        case 1:
          return list(path, depth + 1, underOptionalStruct);
        default:
          return map(path, depth + 1, underOptionalStruct);
      }
    }
    return primitive(underOptionalStruct);
  }

  private Type struct(String path, int depth, boolean underOptionalStruct) {
    int count = 1 + random.nextInt(4);
    List<Types.NestedField> fields = Lists.newArrayList();
    for (int i = 0; i < count; i += 1) {
      fields.add(field(path, depth, underOptionalStruct));
    }
    return Types.StructType.of(fields);
  }

  private Type list(String path, int depth, boolean underOptionalStruct) {
    int id = nextId++;
    boolean optional = random.nextBoolean();
    Type element = type(path + "element.", depth, underOptionalStruct, optional);
    return optional
        ? Types.ListType.ofOptional(id, element)
        : Types.ListType.ofRequired(id, element);
  }

  private Type map(String path, int depth, boolean underOptionalStruct) {
    int keyId = nextId++;
    int valueId = nextId++;
    Type key = primitive(underOptionalStruct);
    boolean optional = random.nextBoolean();
    Type value = type(path + "value.", depth, underOptionalStruct, optional);
    return optional
        ? Types.MapType.ofOptional(keyId, valueId, key, value)
        : Types.MapType.ofRequired(keyId, valueId, key, value);
  }

  private Type primitive(boolean underOptionalStruct) {
    Type.TypeID id;
    do {
      id = PRIMITIVES[random.nextInt(PRIMITIVES.length)];
    } while (underOptionalStruct && (id == Type.TypeID.FLOAT || id == Type.TypeID.DOUBLE));
    switch (id) {
      case BOOLEAN:
        return Types.BooleanType.get();
      case INTEGER:
        return Types.IntegerType.get();
      case LONG:
        return Types.LongType.get();
      case FLOAT:
        return Types.FloatType.get();
      case DOUBLE:
        return Types.DoubleType.get();
      case DECIMAL:
        {
          int precision = 1 + random.nextInt(38);
          return Types.DecimalType.of(precision, random.nextInt(precision + 1));
        }
      case DATE:
        return Types.DateType.get();
      case TIME:
        return Types.TimeType.get();
      case TIMESTAMP:
        return random.nextBoolean()
            ? Types.TimestampType.withZone()
            : Types.TimestampType.withoutZone();
      case TIMESTAMP_NANO:
        return random.nextBoolean()
            ? Types.TimestampNanoType.withZone()
            : Types.TimestampNanoType.withoutZone();
      case STRING:
        return Types.StringType.get();
      case UUID:
        return Types.UUIDType.get();
      case FIXED:
        return Types.FixedType.ofLength(1 + random.nextInt(40));
      case BINARY:
        return Types.BinaryType.get();
      default:
        throw new IllegalStateException("No primitive " + id);
    }
  }
}

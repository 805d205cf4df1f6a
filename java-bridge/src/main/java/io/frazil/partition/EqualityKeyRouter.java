package io.frazil.partition;

import io.frazil.arrow.IcebergArrowSchema;
import io.frazil.exchange.ArrowBatch;
import io.frazil.iceberg.ArrowMemory;
import io.frazil.jni.NativeEqualityRouting;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * Splits an {@link ArrowBatch} by the writer subtask its rows' equality fields send them to: the
 * Arrow form of stock Iceberg's shuffle of upserts, where a sink keys each row by {@code
 * EqualityFieldKeySelector} (IcebergSink and FlinkSink with equality fields, unpartitioned or in
 * {@code none} mode) or picks a writer slot from that key (the Dynamic Iceberg Sink).
 *
 * <p>Native code ({@code native/src/partition/equality.rs}) computes every row's key exactly as
 * {@code EqualityFieldKeySelector.getKey} (Java's {@code hashCode} of each value {@code
 * RowDataWrapper} reads, mixed as {@code StructLikeWrapper} does) and regroups the rows by
 * destination in one copy. Where a key goes is a table built here with Flink's own {@link
 * KeyGroupRangeAssignment}: {@link #keyBy} for Flink's key groups, {@link #dynamicSink} for the
 * Dynamic sink's slots.
 *
 * <p>Ownership: the input batch is left as it was (the caller still owns and closes it). Each
 * sub-batch owns its buffers (native memory in the router's allocator's accounting, shared between
 * the sub-batches of one batch by reference count) and is released by whoever receives it. On
 * failure nothing stays allocated.
 *
 * <p>Not thread-safe: one router per subtask.
 */
public final class EqualityKeyRouter {
  private final org.apache.arrow.vector.types.pojo.Schema arrowSchema;
  private final int[] fields;
  private final int routing;
  private final int[] table;
  private final int destinations;
  private final BufferAllocator allocator;

  private EqualityKeyRouter(
      Schema schema,
      Set<Integer> equalityFieldIds,
      org.apache.arrow.vector.types.pojo.Schema arrowSchema,
      int routing,
      int[] table,
      int destinations,
      BufferAllocator allocator) {
    this.arrowSchema = Objects.requireNonNull(arrowSchema, "arrowSchema");
    this.fields = fieldCodes(schema, equalityFieldIds, arrowSchema);
    this.routing = routing;
    this.table = table;
    this.destinations = destinations;
    this.allocator = Objects.requireNonNull(allocator, "allocator");
  }

  /**
   * Rows to the subtask Flink's {@code keyBy} on Iceberg's equality key sends them to, for an
   * operator of {@code parallelism} subtasks and {@code maxParallelism} key groups.
   *
   * @throws UnsupportedSplitException if an equality field is nested or of a type not routed here
   */
  public static EqualityKeyRouter keyBy(
      Schema schema,
      Set<Integer> equalityFieldIds,
      org.apache.arrow.vector.types.pojo.Schema arrowSchema,
      int maxParallelism,
      int parallelism,
      BufferAllocator allocator) {
    KeyGroupRangeAssignment.checkParallelismPreconditions(parallelism);
    int[] table = new int[maxParallelism];
    for (int group = 0; group < maxParallelism; group++) {
      table[group] =
          KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup(
              maxParallelism, parallelism, group);
    }
    return new EqualityKeyRouter(
        schema,
        equalityFieldIds,
        arrowSchema,
        NativeEqualityRouting.KEY_GROUPS,
        table,
        parallelism,
        allocator);
  }

  /**
   * Rows to the writer subtask the Dynamic Iceberg Sink's equality-field routing picks for table
   * {@code tableName} (its {@code TableIdentifier.toString()}): slot {@code safeAbs(key) %
   * writeParallelism}, each slot a distinct subtask of the sink's {@code maxWriteParallelism}
   * writers, found from the table name's hash as the sink finds them.
   */
  public static EqualityKeyRouter dynamicSink(
      Schema schema,
      Set<Integer> equalityFieldIds,
      org.apache.arrow.vector.types.pojo.Schema arrowSchema,
      String tableName,
      int writeParallelism,
      int maxWriteParallelism,
      BufferAllocator allocator) {
    if (writeParallelism <= 0 || writeParallelism > maxWriteParallelism) {
      throw new IllegalArgumentException(
          tableName
              + ": writeParallelism "
              + writeParallelism
              + " must be in 1.."
              + maxWriteParallelism);
    }
    // One subtask per slot: the sink keys slot i by the i-th key from the table name's hash on
    // that lands on a subtask no earlier slot has.
    int[] table = new int[writeParallelism];
    Set<Integer> taken = new HashSet<>();
    int nextKey = tableName.hashCode();
    for (int slot = 0; slot < writeParallelism; slot++) {
      int subtask = subtaskOfKey(nextKey, writeParallelism, maxWriteParallelism);
      while (taken.contains(subtask)) {
        nextKey += 1;
        subtask = subtaskOfKey(nextKey, writeParallelism, maxWriteParallelism);
      }
      taken.add(subtask);
      table[slot] = subtask;
      nextKey += 1;
    }
    return new EqualityKeyRouter(
        schema,
        equalityFieldIds,
        arrowSchema,
        NativeEqualityRouting.SLOTS,
        table,
        writeParallelism,
        allocator);
  }

  /** {@link #dynamicSink} with the sub-batches in the exchange allocator. */
  public static EqualityKeyRouter dynamicSink(
      Schema schema,
      Set<Integer> equalityFieldIds,
      org.apache.arrow.vector.types.pojo.Schema arrowSchema,
      String tableName,
      int writeParallelism,
      int maxWriteParallelism) {
    return dynamicSink(
        schema,
        equalityFieldIds,
        arrowSchema,
        tableName,
        writeParallelism,
        maxWriteParallelism,
        ArrowMemory.exchangeAllocator());
  }

  /** {@link #keyBy} with the sub-batches in the exchange allocator. */
  public static EqualityKeyRouter keyBy(
      Schema schema,
      Set<Integer> equalityFieldIds,
      org.apache.arrow.vector.types.pojo.Schema arrowSchema,
      int maxParallelism,
      int parallelism) {
    return keyBy(
        schema,
        equalityFieldIds,
        arrowSchema,
        maxParallelism,
        parallelism,
        ArrowMemory.exchangeAllocator());
  }

  /**
   * True when every equality field is a top-level column of a type routed here, present in {@code
   * arrowSchema}: then a router can be built.
   */
  public static boolean supports(
      Schema schema,
      Set<Integer> equalityFieldIds,
      org.apache.arrow.vector.types.pojo.Schema arrowSchema) {
    try {
      fieldCodes(schema, equalityFieldIds, arrowSchema);
      return true;
    } catch (UnsupportedSplitException e) {
      return false;
    }
  }

  /**
   * The batch's rows by destination, one sub-batch per destination that has rows, in destination
   * order; rows keep their order within a sub-batch. Empty for an empty batch.
   *
   * @throws IllegalArgumentException if the batch's schema is not the router's, or it is invalid
   */
  public List<RoutedSubBatch> route(ArrowBatch batch) {
    checkSchema(batch);
    int[] offsets;
    ArrowArray rows = ArrowArray.allocateNew(allocator);
    VectorSchemaRoot all = null;
    try {
      ArrowArray rowsOut = rows;
      offsets =
          BatchExport.call(
              batch,
              allocator,
              (schemaAddress, arrayAddress) ->
                  NativeEqualityRouting.route(
                      schemaAddress,
                      arrayAddress,
                      fields,
                      routing,
                      table,
                      destinations,
                      rowsOut.memoryAddress()));
      all = VectorSchemaRoot.create(arrowSchema, allocator);
      ArrowArray rowsToImport = rows;
      rows = null; // the import closes it
      Data.importIntoVectorSchemaRoot(allocator, rowsToImport, all, null);
      VectorSchemaRoot regrouped = all;
      all = null; // cut owns it from here
      return cut(offsets, regrouped);
    } finally {
      if (rows != null) {
        BatchExport.releaseIfNotTaken(rows);
        rows.close();
      }
      if (all != null) {
        all.close();
      }
    }
  }

  /** Iceberg's equality key ({@code EqualityFieldKeySelector.getKey}) of every row of the batch. */
  public int[] keys(ArrowBatch batch) {
    checkSchema(batch);
    return BatchExport.call(
        batch,
        allocator,
        (schemaAddress, arrayAddress) ->
            NativeEqualityRouting.keys(schemaAddress, arrayAddress, fields));
  }

  private void checkSchema(ArrowBatch batch) {
    if (!batch.schema().equals(arrowSchema)) {
      throw new IllegalArgumentException(
          "Cannot route " + batch + ": its schema is not the router's " + arrowSchema);
    }
  }

  /**
   * Takes {@code all}: it becomes the only sub-batch, or is closed once sliced (also on failure).
   */
  private static List<RoutedSubBatch> cut(int[] offsets, VectorSchemaRoot all) {
    List<RoutedSubBatch> parts = new ArrayList<>();
    boolean handedOver = false;
    try {
      int nonEmpty = 0;
      for (int d = 0; d + 1 < offsets.length; d++) {
        nonEmpty += offsets[d + 1] > offsets[d] ? 1 : 0;
      }
      for (int d = 0; d + 1 < offsets.length; d++) {
        int length = offsets[d + 1] - offsets[d];
        if (length == 0) {
          continue;
        }
        if (nonEmpty == 1) {
          parts.add(new RoutedSubBatch(d, ArrowBatch.of(all)));
          handedOver = true;
        } else {
          VectorSchemaRoot slice = ArrowBatchSplitter.slice(all, offsets[d], length);
          parts.add(new RoutedSubBatch(d, ArrowBatch.of(slice)));
        }
      }
      return parts;
    } catch (RuntimeException | Error e) {
      for (RoutedSubBatch part : parts) {
        part.batch().close();
      }
      throw e;
    } finally {
      if (!handedOver) {
        all.close();
      }
    }
  }

  private static int subtaskOfKey(int key, int parallelism, int maxParallelism) {
    return KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup(
        maxParallelism,
        parallelism,
        KeyGroupRangeAssignment.computeKeyGroupForKeyHash(key, maxParallelism));
  }

  /**
   * {@code [count, then per field: Arrow column, kind]} in the order {@code
   * EqualityFieldKeySelector} mixes the fields: the schema's ({@code TypeUtil.select}).
   */
  private static int[] fieldCodes(
      Schema schema,
      Set<Integer> equalityFieldIds,
      org.apache.arrow.vector.types.pojo.Schema arrowSchema) {
    if (equalityFieldIds.isEmpty()) {
      throw new UnsupportedSplitException("Cannot route by equality fields: none are set");
    }
    List<Types.NestedField> selected = TypeUtil.select(schema, equalityFieldIds).columns();
    int[] codes = new int[1 + 2 * selected.size()];
    codes[0] = selected.size();
    for (int i = 0; i < selected.size(); i++) {
      Types.NestedField field = selected.get(i);
      if (!equalityFieldIds.contains(field.fieldId())) {
        throw new UnsupportedSplitException(
            "Cannot route by equality field in '" + field.name() + "' natively: it is nested");
      }
      codes[1 + 2 * i] = column(arrowSchema, field);
      codes[2 + 2 * i] = kind(field);
    }
    return codes;
  }

  private static int column(
      org.apache.arrow.vector.types.pojo.Schema arrowSchema, Types.NestedField field) {
    List<Field> fields = arrowSchema.getFields();
    for (int i = 0; i < fields.size(); i++) {
      String id = fields.get(i).getMetadata().get(IcebergArrowSchema.FIELD_ID_KEY);
      if (id != null && Integer.parseInt(id) == field.fieldId()) {
        return i;
      }
    }
    throw new UnsupportedSplitException(
        "Cannot route by equality field '" + field.name() + "': it is not a batch column");
  }

  /** The kind codes of {@code native/src/partition/equality.rs} ({@code KeyKind::from_code}). */
  private static int kind(Types.NestedField field) {
    Type.TypeID type = field.type().typeId();
    switch (type) {
      case INTEGER:
      case DATE:
        return 0;
      case LONG:
      case TIMESTAMP:
      case TIMESTAMP_NANO:
        return 1;
      case TIME:
        return 2;
      case BOOLEAN:
        return 3;
      case FLOAT:
        return 4;
      case DOUBLE:
        return 5;
      case STRING:
        return 6;
      case BINARY:
      case FIXED:
        return 7;
      case UUID:
        return 8;
      case DECIMAL:
        return 9;
      default:
        throw new UnsupportedSplitException(
            "Cannot route by equality field '"
                + field.name()
                + "' natively: its type "
                + field.type()
                + " is not routed here");
    }
  }
}

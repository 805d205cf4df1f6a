package io.frazil.partition;

import io.frazil.exchange.ArrowBatch;
import io.frazil.iceberg.ArrowMemory;
import io.frazil.jni.NativePartitionSplit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.TransferPair;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;

/**
 * Splits an {@link ArrowBatch} by destination: one {@link KeyedSubBatch} per distinct partition
 * tuple, keyed by the partition path stock Iceberg's {@code PartitionKeySelector} (the {@code
 * keyBy} of {@code write.distribution-mode=hash}) returns for each of its rows, so a {@code keyBy}
 * on {@link KeyedSubBatch#key()} sends every row to the subtask stock would send it to.
 *
 * <p>Native code ({@code native/src/partition}) computes every row's partition tuple with Iceberg's
 * transforms and regroups the rows (sub-batches in the order their first row appears, rows in their
 * original order); this class builds the path of each distinct tuple with Iceberg's own {@code
 * PartitionKey.toPath()}, remembered across batches ({@link PartitionPaths}). Why the path is built
 * here and not in Rust: its text is each transform's {@code toHumanString} ({@code
 * Double.toString}, {@code BigDecimal.toString}, {@code java.time} formats, Base64) and {@code
 * URLEncoder}'s escaping, all of which a Rust copy could only imitate; here it is Iceberg's code,
 * run once per distinct tuple per batch rather than once per row.
 *
 * <p>Ownership: the input batch is left as it was (the caller still owns and closes it; it may live
 * under any allocator). Each sub-batch owns its buffers (native memory in the splitter's
 * allocator's accounting, shared between the sub-batches of one split by reference count) and is
 * released by whoever receives it. On failure nothing stays allocated.
 *
 * <p>Not thread-safe: one splitter per subtask.
 */
public final class ArrowBatchSplitter {
  private final PartitionSpec spec;
  private final org.apache.arrow.vector.types.pojo.Schema arrowSchema;
  private final int[] codes;
  private final PartitionPaths paths;
  private final BufferAllocator allocator;

  /** A splitter whose sub-batches live in the exchange allocator. */
  public ArrowBatchSplitter(
      PartitionSpec spec, Schema schema, org.apache.arrow.vector.types.pojo.Schema arrowSchema) {
    this(spec, schema, arrowSchema, ArrowMemory.exchangeAllocator());
  }

  /**
   * @throws UnsupportedSplitException if the native split cannot compute a partition field of
   *     {@code spec} (the caller keys rows with {@link FrazilPartitionKeySelector} instead)
   */
  public ArrowBatchSplitter(
      PartitionSpec spec,
      Schema schema,
      org.apache.arrow.vector.types.pojo.Schema arrowSchema,
      BufferAllocator allocator) {
    this.spec = Objects.requireNonNull(spec, "spec");
    this.arrowSchema = Objects.requireNonNull(arrowSchema, "arrowSchema");
    this.allocator = Objects.requireNonNull(allocator, "allocator");
    this.codes = SplitSpec.of(spec, Objects.requireNonNull(schema, "schema"), arrowSchema).codes();
    this.paths = new PartitionPaths(spec, schema);
  }

  /**
   * True when native code computes every partition field of {@code spec} on batches of {@code
   * arrowSchema}, so that a splitter can be built.
   */
  public static boolean supports(
      PartitionSpec spec, Schema schema, org.apache.arrow.vector.types.pojo.Schema arrowSchema) {
    try {
      SplitSpec.of(spec, schema, arrowSchema);
      return true;
    } catch (UnsupportedSplitException e) {
      return false;
    }
  }

  public PartitionSpec spec() {
    return spec;
  }

  /**
   * The batch's rows by partition tuple; empty for an empty batch.
   *
   * @throws IllegalArgumentException if the batch's schema is not the splitter's, or the batch is
   *     invalid
   * @throws UnsupportedSplitException if a transform does not apply to its column's Arrow type
   */
  public List<KeyedSubBatch> split(ArrowBatch batch) {
    if (!batch.schema().equals(arrowSchema)) {
      throw new IllegalArgumentException(
          "Cannot split " + batch + ": its schema is not the splitter's " + arrowSchema);
    }
    int[] offsets;
    // The three output structs are filled by native code on success; each Data.import* call
    // below closes the struct it is given (and moves its contents), so each is closed here only
    // while it is still pending.
    ArrowArray rows = ArrowArray.allocateNew(allocator);
    ArrowSchema keysSchema = null;
    ArrowArray keys = null;
    VectorSchemaRoot all = null;
    VectorSchemaRoot keyRoot = null;
    try {
      keysSchema = ArrowSchema.allocateNew(allocator);
      keys = ArrowArray.allocateNew(allocator);
      ArrowArray rowsOut = rows;
      ArrowSchema keysSchemaOut = keysSchema;
      ArrowArray keysOut = keys;
      try {
        offsets =
            BatchExport.call(
                batch,
                allocator,
                (schemaAddress, arrayAddress) ->
                    NativePartitionSplit.split(
                        schemaAddress,
                        arrayAddress,
                        codes,
                        rowsOut.memoryAddress(),
                        keysSchemaOut.memoryAddress(),
                        keysOut.memoryAddress()));
      } catch (UnsupportedSplitException e) {
        throw e;
      } catch (UnsupportedOperationException e) {
        throw new UnsupportedSplitException("Cannot split " + batch + " natively", e);
      }
      all = VectorSchemaRoot.create(arrowSchema, allocator);
      ArrowArray rowsToImport = rows;
      rows = null;
      Data.importIntoVectorSchemaRoot(allocator, rowsToImport, all, null);
      ArrowSchema keysSchemaToImport = keysSchema;
      keysSchema = null;
      org.apache.arrow.vector.types.pojo.Schema keyFields =
          Data.importSchema(allocator, keysSchemaToImport, null);
      keyRoot = VectorSchemaRoot.create(keyFields, allocator);
      ArrowArray keysToImport = keys;
      keys = null;
      Data.importIntoVectorSchemaRoot(allocator, keysToImport, keyRoot, null);
      VectorSchemaRoot regrouped = all;
      all = null; // cut owns it from here
      return cut(offsets, regrouped, keyRoot);
    } finally {
      closePending(rows);
      closePending(keys);
      if (keysSchema != null) {
        BatchExport.releaseIfNotTaken(keysSchema);
        keysSchema.close();
      }
      if (all != null) {
        all.close();
      }
      if (keyRoot != null) {
        keyRoot.close();
      }
    }
  }

  /**
   * The sub-batches of the regrouped rows, with their paths. Takes {@code all}: it becomes the only
   * sub-batch, or is closed once sliced (also on failure).
   */
  private List<KeyedSubBatch> cut(int[] offsets, VectorSchemaRoot all, VectorSchemaRoot keyRoot) {
    List<KeyedSubBatch> parts = new ArrayList<>(Math.max(0, offsets.length - 1));
    boolean handedOver = false;
    try {
      int groups = offsets.length - 1;
      if (groups == 1) {
        // One tuple: the regrouped batch itself is the sub-batch.
        String path = paths.path(keyRoot, 0);
        parts.add(new KeyedSubBatch(path, ArrowBatch.of(all)));
        handedOver = true;
        return parts;
      }
      for (int g = 0; g < groups; g++) {
        String path = paths.path(keyRoot, g);
        VectorSchemaRoot slice = slice(all, offsets[g], offsets[g + 1] - offsets[g]);
        parts.add(new KeyedSubBatch(path, ArrowBatch.of(slice)));
      }
      return parts;
    } catch (RuntimeException | Error e) {
      for (KeyedSubBatch part : parts) {
        part.batch().close();
      }
      throw e;
    } finally {
      if (!handedOver) {
        all.close();
      }
    }
  }

  private static void closePending(ArrowArray array) {
    if (array != null) {
      BatchExport.releaseIfNotTaken(array);
      array.close();
    }
  }

  /**
   * Rows {@code start} to {@code start + length} of {@code root} as a root of their own (buffers
   * shared by reference count where Arrow's alignment allows, copied where not), with the very
   * fields of {@code root}: unlike {@link VectorSchemaRoot#slice}, the field metadata (the Iceberg
   * field ids) stays, nested fields' too, so the slice exports the batch's schema.
   */
  static VectorSchemaRoot slice(VectorSchemaRoot root, int start, int length) {
    List<FieldVector> vectors = new ArrayList<>(root.getFieldVectors().size());
    try {
      List<Field> fields = root.getSchema().getFields();
      for (int i = 0; i < fields.size(); i++) {
        FieldVector vector = root.getVector(i);
        // A target built from the field first: a transfer into a new struct would create its
        // children without their metadata.
        FieldVector target = fields.get(i).createVector(vector.getAllocator());
        vectors.add(target);
        TransferPair transfer = vector.makeTransferPair(target);
        transfer.splitAndTransfer(start, length);
      }
    } catch (RuntimeException | Error e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    return new VectorSchemaRoot(root.getSchema().getFields(), vectors, length);
  }
}

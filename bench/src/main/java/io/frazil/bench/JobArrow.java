package io.frazil.bench;

import io.frazil.arrow.RowDataArrowWriter;
import io.frazil.exchange.ArrowBatch;
import io.frazil.flink.arrow.ArrowRowLayout;
import io.frazil.flink.arrow.ArrowStreams;
import io.frazil.flink.arrow.FrazilArrowSink;
import io.frazil.partition.ArrowBatchSplitter;
import io.frazil.partition.KeyedSubBatch;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.api.common.functions.Partitioner;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.Collector;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkSchemaUtil;

/**
 * The Frazil Arrow arm of {@link JobBench} (bench/README.md, "Whole-job cohort"): the job carries
 * Arrow batches from the source to the sink's row step.
 *
 * <p>The input is {@link JobRows#input()} written once, off the clock, into Arrow batches of {@link
 * ArrowStreams#DEFAULT_BATCH_ROWS} rows ({@link RowDataArrowWriter}, the layout the sink takes) in
 * an allocator of this class, as the RowData arms' rows are built once in {@link JobRows}. A job
 * emits them from its parallelism-1 source as {@link ArrowBatch}es that share the pre-built buffers
 * by reference count (one share per emission, which the job owns and releases; the pre-built
 * batches stay untouched for the next trial), across the same {@code rebalance()} as the other arms
 * (here carrying the batches, IPC-serialized), then:
 *
 * <ul>
 *   <li>forward cells: {@link FrazilArrowSink#dynamicSink} with {@link JobRows.Generator}; with
 *       {@code splitAtSource} each batch is first split by partition tuple in the source's own step
 *       ({@link ArrowBatchSplitter}, no exchange of its own), so the batches the writers get hold
 *       one bucket each and Frazil's appender takes them in long runs (see bench/README.md: without
 *       it, consecutive rows of a batch alternate between the four buckets' files and the
 *       appender's direct path hands native code runs of about one row);
 *   <li>keyed cells: each batch split by the table's partition spec ({@link ArrowBatchSplitter},
 *       native), the sub-batches sent whole to the writer subtask of their bucket (a custom
 *       partitioner choosing the subtask as the Dynamic sink's HASH mode groups them), then the
 *       dynamic sink entry with the generator's upsert records written where they are (no second
 *       shuffle of rows).
 * </ul>
 */
final class JobArrow {
  private JobArrow() {}

  static final ArrowRowLayout LAYOUT = ArrowRowLayout.appendOnly(Datasets.BID);

  /** The pre-built batches' memory: the bench's own, apart from the bridge's accounting. */
  private static BufferAllocator allocator;

  /** The pre-built batches; written once before any job, read by {@link Emit} in the jobs. */
  private static volatile List<VectorSchemaRoot> input = List.of();

  private static long prebuiltBytes;

  /** Writes the rows into batches (off the clock); returns the batch count. */
  static int build(List<RowData> rows) {
    close();
    allocator = new RootAllocator();
    RowType rowType = FlinkSchemaUtil.convert(Datasets.BID);
    List<VectorSchemaRoot> batches = new ArrayList<>();
    for (int from = 0; from < rows.size(); from += ArrowStreams.DEFAULT_BATCH_ROWS) {
      // The writer's root becomes the batch; the writer holds no other memory.
      RowDataArrowWriter writer = new RowDataArrowWriter(Datasets.BID, rowType, allocator);
      int to = Math.min(rows.size(), from + ArrowStreams.DEFAULT_BATCH_ROWS);
      for (int i = from; i < to; i++) {
        writer.write(rows.get(i));
      }
      writer.finishBatch();
      batches.add(writer.root());
    }
    input = Collections.unmodifiableList(batches);
    prebuiltBytes = allocator.getAllocatedMemory();
    return batches.size();
  }

  /** Bytes the pre-built batches hold. */
  static long prebuiltBytes() {
    return prebuiltBytes;
  }

  /** Bytes of this class's allocator now: the pre-built batches plus any share not released. */
  static long allocatedBytes() {
    return allocator == null ? 0 : allocator.getAllocatedMemory();
  }

  /** Releases the pre-built batches (after the last job). */
  static void close() {
    for (VectorSchemaRoot root : input) {
      root.close();
    }
    input = List.of();
    if (allocator != null) {
      allocator.close();
      allocator = null;
    }
  }

  /**
   * The Arrow arm's own checks: every batch of the job released by its holder (none left to the
   * garbage collector's cleaner, none alive) and every share of the pre-built batches returned.
   */
  static void validate(JobTrial trial) {
    long live = ArrowBatch.liveBatches();
    long shares = allocatedBytes() - prebuiltBytes();
    if (live != 0 || trial.batchesLeftToCleaner != 0 || shares != 0) {
      trial.failures.add(
          String.format(
              Locale.ROOT,
              "after the job: %d ArrowBatches alive, %d released by the cleaner (not closed),"
                  + " %d bytes of shared input not returned",
              live,
              trial.batchesLeftToCleaner,
              shares));
    }
  }

  /**
   * Adds the Arrow arm's job: source of pre-built batches → rebalance → (keyed: split → custom
   * partition by bucket) → dynamic sink entry with {@code generator}.
   */
  static void addJob(
      StreamExecutionEnvironment env,
      int parallelism,
      boolean keyed,
      boolean splitAtSource,
      PartitionSpec spec,
      JobRows.Generator generator,
      CatalogLoader catalogLoader) {
    // One source subtask, as in the other arms; the emitting flat-map is chained to it.
    DataStream<ArrowBatch> batches =
        env.fromSequence(0, input.size() - 1)
            .setParallelism(1)
            .name("sequence")
            .flatMap(new Emit(!keyed && splitAtSource ? spec : null))
            .setParallelism(1)
            .name(!keyed && splitAtSource ? "bid batches, split by bucket" : "bid batches")
            .returns(LAYOUT.typeInfo())
            .rebalance();
    if (keyed) {
      batches =
          batches
              .flatMap(new Split(spec))
              .setParallelism(parallelism)
              .name("split by bucket")
              .returns(LAYOUT.typeInfo())
              .partitionCustom(new BucketToWriter(), new SubBatchPath(spec));
    }
    FrazilArrowSink.dynamicSink(batches, LAYOUT)
        .generator(generator)
        .catalogLoader(catalogLoader)
        .writeParallelism(parallelism)
        .append();
  }

  /**
   * Batch index → a batch sharing the pre-built batch's buffers, or (with a spec) its sub-batches
   * by partition tuple. Its only output is the rebalance (a network edge: Flink serializes a batch
   * inside {@code collect}), so it closes each batch right after.
   */
  static final class Emit extends RichFlatMapFunction<Long, ArrowBatch> {
    private final Split split;

    /**
     * @param spec null to emit whole batches
     */
    Emit(PartitionSpec spec) {
      this.split = spec == null ? null : new Split(spec);
    }

    @Override
    public void flatMap(Long index, Collector<ArrowBatch> out) {
      ArrowBatch batch = ArrowBatch.of(share(input.get((int) (long) index)));
      if (split != null) {
        split.flatMap(batch, out); // closes the batch and every sub-batch
        return;
      }
      try {
        out.collect(batch);
      } finally {
        batch.close();
      }
    }
  }

  /**
   * A root over the same buffers as {@code root}, by reference count ({@code splitAndTransfer} from
   * row 0 slices and retains instead of copying), with {@code root}'s very fields (their Iceberg
   * field ids), leaving {@code root} as it was.
   */
  static VectorSchemaRoot share(VectorSchemaRoot root) {
    List<Field> fields = root.getSchema().getFields();
    List<FieldVector> vectors = new ArrayList<>(fields.size());
    try {
      for (int i = 0; i < fields.size(); i++) {
        FieldVector vector = root.getVector(i);
        FieldVector target = fields.get(i).createVector(vector.getAllocator());
        vectors.add(target);
        vector.makeTransferPair(target).splitAndTransfer(0, root.getRowCount());
      }
    } catch (RuntimeException | Error e) {
      vectors.forEach(FieldVector::close);
      throw e;
    }
    return new VectorSchemaRoot(fields, vectors, root.getRowCount());
  }

  /**
   * Each batch split by partition tuple (native), the sub-batches emitted one by one. Its only
   * output is the custom partitioning (a network edge), so each sub-batch is closed right after its
   * {@code collect}; the input batch, this function's own, is closed once split.
   */
  static final class Split extends RichFlatMapFunction<ArrowBatch, ArrowBatch> {
    private final PartitionSpec spec;
    private transient ArrowBatchSplitter splitter;

    Split(PartitionSpec spec) {
      this.spec = spec;
    }

    @Override
    public void flatMap(ArrowBatch batch, Collector<ArrowBatch> out) {
      if (splitter == null) {
        splitter = new ArrowBatchSplitter(spec, LAYOUT.tableSchema(), LAYOUT.arrowSchema());
      }
      List<KeyedSubBatch> parts;
      try {
        parts = splitter.split(batch);
      } finally {
        batch.close();
      }
      int next = 0;
      try {
        for (; next < parts.size(); next++) {
          ArrowBatch part = parts.get(next).batch();
          try {
            out.collect(part);
          } finally {
            part.close();
          }
        }
      } finally {
        for (int i = next + 1; i < parts.size(); i++) {
          parts.get(i).batch().close();
        }
      }
    }
  }

  /**
   * The partition path of a sub-batch, computed by Iceberg's {@link PartitionKey} from its first
   * row's source column (every row of a sub-batch has the same tuple: the splitter's key): the key
   * {@code PartitionKeySelector} gives its rows in the RowData arms.
   */
  static final class SubBatchPath implements KeySelector<ArrowBatch, String> {
    private final PartitionSpec spec;
    private transient PartitionKey key;
    private transient GenericRecord record;
    private transient String column;

    SubBatchPath(PartitionSpec spec) {
      this.spec = spec;
    }

    @Override
    public String getKey(ArrowBatch batch) {
      if (key == null) {
        Schema schema = spec.schema();
        key = new PartitionKey(spec, schema);
        record = GenericRecord.create(schema);
        column = schema.findColumnName(spec.fields().get(0).sourceId());
      }
      long auction = ((BigIntVector) batch.root().getVector(column)).get(0);
      record.setField(column, auction);
      key.partition(record);
      return spec.partitionToPath(key);
    }
  }

  /**
   * The writer subtask of a partition path, grouped as the Dynamic sink's {@code HASH} mode groups
   * rows (its key selector takes {@code |path.hashCode()| mod write parallelism}, then maps those
   * slots onto distinct subtasks): same buckets together, a different but equally distinct subtask
   * numbering.
   */
  static final class BucketToWriter implements Partitioner<String> {
    @Override
    public int partition(String path, int subtasks) {
      int hash = path.hashCode();
      return (hash == Integer.MIN_VALUE ? 0 : Math.abs(hash)) % subtasks;
    }
  }
}

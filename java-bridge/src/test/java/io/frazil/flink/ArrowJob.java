package io.frazil.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.frazil.exchange.ArrowBatch;
import io.frazil.exchange.ArrowBatchSerializer;
import io.frazil.flink.arrow.ArrowRowLayout;
import io.frazil.flink.arrow.ArrowStreams;
import io.frazil.flink.arrow.FrazilArrowSink;
import io.frazil.iceberg.ArrowMemory;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.vector.BigIntVector;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStats;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.streaming.runtime.partitioner.KeyGroupStreamPartitioner;
import org.apache.flink.streaming.runtime.partitioner.RebalancePartitioner;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.util.Collector;

/**
 * The Arrow job of the exactly-once tests: ids → rows ({@link ArrowJobRows.PacedRows}) → Arrow
 * batches ({@link ArrowStreams#toBatches}) → {@code rebalance()} → {@link ExchangedBatches} →
 * {@code keyBy} on each batch's first id → {@link KeyedBatches} → {@link FrazilArrowSink#append}
 * (rows, then Iceberg's IcebergSink, files written by Frazil). Both exchanges carry {@link
 * ArrowBatch}es. Every stage that passes a batch on closes it as the contract says, so a job
 * without failures leaves nothing to the garbage collector's cleaner.
 */
final class ArrowJob {
  static final int BATCH_ROWS = 500;
  static final String EXCHANGED = "exchanged batches";
  static final String KEYED = "keyed batches";

  private ArrowJob() {}

  /** Adds the job to {@code env}: {@code rows} rows into {@code table} of {@code warehouse}. */
  static void build(StreamExecutionEnvironment env, File warehouse, String table, long rows) {
    ArrowRowLayout layout = ArrowRowLayout.appendOnly(ArrowJobRows.SCHEMA);
    DataStream<RowData> input =
        env.fromSequence(0, rows - 1)
            .uid("ids")
            .map(new ArrowJobRows.PacedRows())
            .uid("rows")
            .returns(InternalTypeInfo.of(ArrowJobRows.ROW_TYPE));
    DataStream<ArrowBatch> batches =
        ArrowStreams.toBatches(input, layout, BATCH_ROWS).uid("to-batches");
    DataStream<ArrowBatch> exchanged =
        batches
            .rebalance()
            .flatMap(new ExchangedBatches())
            .uid("exchanged")
            .name(EXCHANGED)
            .returns(layout.typeInfo());
    DataStream<ArrowBatch> keyed =
        exchanged
            .keyBy(new FirstId())
            .flatMap(new KeyedBatches())
            .uid("keyed")
            .name(KEYED)
            .returns(layout.typeInfo());
    FrazilArrowSink.append(keyed, FlinkJobs.tableLoader(warehouse, table)).uid("iceberg-sink");
  }

  /** The two exchanges of the job's graph carry ArrowBatches serialized by ArrowBatchSerializer. */
  static void assertBatchesCrossTheNetwork(StreamExecutionEnvironment env) {
    StreamGraph graph = env.getStreamGraph(false);
    List<String> checked = new ArrayList<>();
    for (StreamNode node : graph.getStreamNodes()) {
      String name = node.getOperatorName();
      if (name.contains(EXCHANGED) || name.contains(KEYED)) {
        assertThat(node.getTypeSerializersIn()[0])
            .as(name)
            .isInstanceOf(ArrowBatchSerializer.class);
        assertThat(node.getInEdges()).as(name).hasSize(1);
        assertThat(node.getInEdges().get(0).getPartitioner())
            .as(name)
            .isInstanceOf(
                name.contains(EXCHANGED)
                    ? RebalancePartitioner.class
                    : KeyGroupStreamPartitioner.class);
        checked.add(name);
      }
    }
    assertThat(checked).hasSize(2);
  }

  /**
   * Bytes of in-flight data the completed checkpoints persisted for the subtasks of the task whose
   * name contains {@code task} (unaligned checkpoints only).
   */
  static long persistedInFlightBytes(AccessExecutionGraph graph, String task) {
    long bytes = 0;
    for (AbstractCheckpointStats stats :
        graph.getCheckpointStatsSnapshot().getHistory().getCheckpoints()) {
      if (!(stats instanceof CompletedCheckpointStats)) {
        continue;
      }
      for (org.apache.flink.runtime.checkpoint.TaskStateStats taskStats :
          stats.getAllTaskStateStats()) {
        if (graph.getJobVertex(taskStats.getJobVertexId()).getName().contains(task)) {
          for (org.apache.flink.runtime.checkpoint.SubtaskStateStats subtask :
              taskStats.getSubtaskStats()) {
            bytes += subtask == null ? 0 : subtask.getPersistedData();
          }
        }
      }
    }
    return bytes;
  }

  /**
   * In-flight bytes of the checkpoint the job last restored from (-1 if it restored none): what an
   * unaligned checkpoint persisted of the batches in the exchanges, fed back into them on restore.
   */
  static long restoredInFlightBytes(AccessExecutionGraph graph) {
    org.apache.flink.runtime.checkpoint.RestoredCheckpointStats restored =
        graph.getCheckpointStatsSnapshot().getLatestRestoredCheckpoint();
    if (restored == null) {
      return -1;
    }
    for (AbstractCheckpointStats stats :
        graph.getCheckpointStatsSnapshot().getHistory().getCheckpoints()) {
      if (stats.getCheckpointId() == restored.getCheckpointId()) {
        return stats.getPersistedData();
      }
    }
    throw new AssertionError(
        "The restored checkpoint " + restored.getCheckpointId() + " has no statistics");
  }

  /**
   * Waits (bounded) until no ArrowBatch is left unreleased in this JVM and the exchange allocator
   * holds nothing: batches a failed task dropped are released by the cleaner once the garbage
   * collector finds them. Call it when no job runs.
   */
  static void awaitArrowMemoryReturned() throws InterruptedException {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (System.nanoTime() < deadline
        && (ArrowBatch.liveBatches() > 0
            || ArrowMemory.exchangeAllocator().getAllocatedMemory() > 0)) {
      System.gc();
      Thread.sleep(50);
    }
    assertThat(ArrowBatch.liveBatches()).as("ArrowBatches left unreleased").isZero();
    assertThat(ArrowMemory.exchangeAllocator().getAllocatedMemory())
        .as("exchange allocator bytes")
        .isZero();
  }

  /** The batch's first id: a key per batch, so the keyed exchange moves whole batches. */
  static final class FirstId implements KeySelector<ArrowBatch, Long> {
    @Override
    public Long getKey(ArrowBatch batch) {
      return ((BigIntVector) batch.root().getVector(0)).get(0);
    }
  }

  /**
   * After the rebalance: counts batches, fails once when a test says so ({@link #failNow}), and
   * passes each batch on. Its only output is the keyed exchange, which serializes the batch inside
   * {@code collect}, so it closes the batch right after.
   */
  static final class ExchangedBatches extends RichFlatMapFunction<ArrowBatch, ArrowBatch>
      implements CheckpointListener {
    static final AtomicLong BATCHES = new AtomicLong();
    static final AtomicLong COMPLETED_CHECKPOINTS = new AtomicLong();
    static final AtomicBoolean FAILED = new AtomicBoolean();
    static final java.util.Set<Integer> PARALLELISMS =
        java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** Set by a test: the next batch fails its task (once). */
    static volatile boolean failNow = false;

    static void reset() {
      PARALLELISMS.clear();
      BATCHES.set(0);
      COMPLETED_CHECKPOINTS.set(0);
      FAILED.set(false);
      failNow = false;
    }

    @Override
    public void open(org.apache.flink.api.common.functions.OpenContext context) {
      PARALLELISMS.add(getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks());
    }

    @Override
    public void flatMap(ArrowBatch batch, Collector<ArrowBatch> out) {
      BATCHES.incrementAndGet();
      if (failNow && FAILED.compareAndSet(false, true)) {
        throw new IllegalStateException("Injected failure");
      }
      out.collect(batch);
      batch.close();
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      COMPLETED_CHECKPOINTS.incrementAndGet();
    }
  }

  /**
   * After the keyBy: sleeps {@link #microsPerRow} per row of each batch (the backpressure unaligned
   * checkpoints need; per row, so that small batches cut at checkpoints cost little) and passes the
   * batch on to the chained conversion. With object reuse on, that successor gets this very
   * instance and closes it; with object reuse off it gets a copy, and this one is closed here.
   */
  static final class KeyedBatches extends RichFlatMapFunction<ArrowBatch, ArrowBatch> {
    static volatile long microsPerRow = 0;

    @Override
    public void flatMap(ArrowBatch batch, Collector<ArrowBatch> out) throws InterruptedException {
      long millis = microsPerRow * batch.rowCount() / 1000;
      if (millis > 0) {
        Thread.sleep(millis);
      }
      out.collect(batch);
      if (!getRuntimeContext().isObjectReuseEnabled()) {
        batch.close();
      }
    }
  }
}

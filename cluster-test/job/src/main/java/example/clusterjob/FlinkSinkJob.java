package example.clusterjob;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.flink.sink.FlinkSink;

/**
 * Writes rows 0..rows-1 with Iceberg's FlinkSink.
 *
 * <pre>
 * --warehouse DIR --table db.t --rows N [--parallelism 2] [--checkpoint-ms 0]
 * [--rows-per-second 0] [--slow-checkpoint 0 --slow-snapshot-ms 0] [--partitioned true]
 * [--catalog-impl CLASS --catalog-props k=v,...]
 * </pre>
 *
 * <p>The ids come from {@code fromSequence} (Flink's NumberSequenceSource, whose splits are
 * checkpointed, so a restarted job replays exactly the ids after the last checkpoint) read by one
 * source subtask; the writers run at {@code parallelism}. With {@code --rows-per-second} the source
 * is throttled so the job runs long enough to be killed mid-run. With {@code --slow-checkpoint K
 * --slow-snapshot-ms T} the "rows" operator takes T ms to snapshot its state for checkpoint K: the
 * barrier has already gone downstream (the writers snapshot and acknowledge), but checkpoint K
 * stays in progress for T ms, a window in which to break things.
 */
public final class FlinkSinkJob {
  private FlinkSinkJob() {}

  public static void main(String[] argv) throws Exception {
    Args args = new Args(argv);
    String table = args.get("table");
    long rows = args.getLong("rows", 100_000);
    StreamExecutionEnvironment env = environment(args);
    FlinkSink.forRowData(input(env, args))
        .tableLoader(Tables.tableLoader(args, table))
        .distributionMode(DistributionMode.NONE)
        .writeParallelism(args.getInt("parallelism", 2))
        .append();
    env.execute("FlinkSink " + table + " (" + rows + " rows)");
  }

  /** Creates the table (bucket(id, 4) unless {@code --partitioned false}) and the environment. */
  static StreamExecutionEnvironment environment(Args args) {
    boolean partitioned = !"false".equals(args.get("partitioned", "true"));
    Tables.create(
        args,
        args.get("table"),
        Rows.SCHEMA,
        partitioned ? Rows.SPEC : PartitionSpec.unpartitioned());
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    long checkpointMs = args.getLong("checkpoint-ms", 0);
    if (checkpointMs > 0) {
      env.enableCheckpointing(checkpointMs);
    }
    return env;
  }

  /** Rows 0..rows-1 from one source subtask, throttled and slowed as the arguments say. */
  static DataStream<RowData> input(StreamExecutionEnvironment env, Args args) {
    long rows = args.getLong("rows", 100_000);
    return env.fromSequence(0, rows - 1)
        .setParallelism(1)
        .name("ids")
        .map(
            new ToRow(
                args.getLong("rows-per-second", 0),
                args.getLong("slow-checkpoint", 0),
                args.getLong("slow-snapshot-ms", 0)))
        .setParallelism(1)
        .returns(Rows.ROW_DATA_TYPE)
        .name("rows");
  }

  /**
   * Row {@code id}, optionally at most {@code rowsPerSecond} rows per second, optionally with a
   * slow snapshot for one checkpoint.
   */
  static final class ToRow extends RichMapFunction<Long, RowData> implements CheckpointedFunction {
    private final long rowsPerSecond;
    private final long slowCheckpoint;
    private final long slowSnapshotMs;
    private transient long started;
    private transient long seen;

    ToRow(long rowsPerSecond, long slowCheckpoint, long slowSnapshotMs) {
      this.rowsPerSecond = rowsPerSecond;
      this.slowCheckpoint = slowCheckpoint;
      this.slowSnapshotMs = slowSnapshotMs;
    }

    @Override
    public void open(OpenContext context) {
      started = System.nanoTime();
      seen = 0;
    }

    @Override
    public RowData map(Long id) throws InterruptedException {
      if (rowsPerSecond > 0 && ++seen % 100 == 0) {
        long dueNanos = seen * 1_000_000_000L / rowsPerSecond;
        long aheadMillis = (dueNanos - (System.nanoTime() - started)) / 1_000_000L;
        if (aheadMillis > 0) {
          Thread.sleep(aheadMillis);
        }
      }
      return Rows.rowData(id);
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws InterruptedException {
      // Checkpoint ids keep counting across restarts, so this happens once per job.
      if (slowSnapshotMs > 0 && context.getCheckpointId() == slowCheckpoint) {
        Thread.sleep(slowSnapshotMs);
      }
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {
      // No state of its own: the source's checkpointed splits say where to resume.
    }
  }
}

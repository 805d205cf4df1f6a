package example.clusterjob;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
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
 * [--rows-per-second 0] [--partitioned true] [--catalog-impl CLASS --catalog-props k=v,...]
 * </pre>
 *
 * <p>The ids come from {@code fromSequence} (Flink's NumberSequenceSource, whose splits are
 * checkpointed, so a restarted job replays exactly the ids after the last checkpoint) read by one
 * source subtask; the writers run at {@code parallelism}. With {@code --rows-per-second} the source
 * is throttled so the job runs long enough to be killed mid-run.
 */
public final class FlinkSinkJob {
  private FlinkSinkJob() {}

  public static void main(String[] argv) throws Exception {
    Args args = new Args(argv);
    String table = args.get("table");
    long rows = args.getLong("rows", 100_000);
    int parallelism = args.getInt("parallelism", 2);
    long checkpointMs = args.getLong("checkpoint-ms", 0);
    long rowsPerSecond = args.getLong("rows-per-second", 0);

    boolean partitioned = !"false".equals(args.get("partitioned", "true"));
    Tables.create(
        args, table, Rows.SCHEMA, partitioned ? Rows.SPEC : PartitionSpec.unpartitioned());

    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    if (checkpointMs > 0) {
      env.enableCheckpointing(checkpointMs);
    }
    DataStream<RowData> input =
        env.fromSequence(0, rows - 1)
            .setParallelism(1)
            .name("ids")
            .map(new ToRow(rowsPerSecond))
            .setParallelism(1)
            .returns(Rows.ROW_DATA_TYPE)
            .name("rows");
    FlinkSink.forRowData(input)
        .tableLoader(Tables.tableLoader(args, table))
        .distributionMode(DistributionMode.NONE)
        .writeParallelism(parallelism)
        .append();
    env.execute("FlinkSink " + table + " (" + rows + " rows)");
  }

  /** Row {@code id}, optionally at most {@code rowsPerSecond} rows per second. */
  static final class ToRow extends RichMapFunction<Long, RowData> {
    private final long rowsPerSecond;
    private transient long started;
    private transient long seen;

    ToRow(long rowsPerSecond) {
      this.rowsPerSecond = rowsPerSecond;
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
  }
}

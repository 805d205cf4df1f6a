package example.clusterjob;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.flink.source.IcebergSource;

/**
 * Copies a table: a bounded IcebergSource (FLIP-27) reads every row of {@code --source} and
 * Iceberg's FlinkSink appends it to {@code --table} (created like {@link FlinkSinkJob}'s tables).
 *
 * <pre>
 * --warehouse DIR --source db.s --table db.t [--parallelism 2] [--write-parallelism P]
 * [--checkpoint-ms 0] [--rows-per-second 0] [--split-size 1048576]
 * [--catalog-impl CLASS --catalog-props k=v,...]
 * </pre>
 *
 * <p>{@code --write-parallelism} (default: {@code parallelism}) sets FlinkSink's writers. With
 * checkpoints, more than one writer and readers that run out of splits in different checkpoints,
 * Iceberg 1.11.0's FlinkSink can lose the files of the writer that ends first: each writer sends
 * its last files keyed by the end-of-input checkpoint id (Long.MAX_VALUE), the committer writes
 * them to a manifest under that key at the next checkpoint, and the last writer's files later
 * replace that manifest under the same key before the end-of-input commit.
 *
 * <p>The source's splits and positions in them are checkpointed, so a restarted job resumes reading
 * where its last checkpoint was. {@code --split-size} below the data files' open cost (4 MB) makes
 * every file a split of its own, spread over the {@code parallelism} readers. With {@code
 * --rows-per-second} each reader subtask's rows are throttled (a map chained to it) so the read
 * lasts long enough to be killed mid-way.
 */
public final class IcebergCopyJob {
  private IcebergCopyJob() {}

  public static void main(String[] argv) throws Exception {
    Args args = new Args(argv);
    String source = args.get("source");
    String table = args.get("table");
    int parallelism = args.getInt("parallelism", 2);
    Tables.create(args, table, Rows.SCHEMA, Rows.SPEC);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    long checkpointMs = args.getLong("checkpoint-ms", 0);
    if (checkpointMs > 0) {
      env.enableCheckpointing(checkpointMs);
    }
    IcebergSource<RowData> iceberg =
        IcebergSource.forRowData()
            .tableLoader(Tables.tableLoader(args, source))
            .splitSize(args.getLong("split-size", 1 << 20))
            .build();
    DataStream<RowData> rows =
        env.fromSource(
                iceberg, WatermarkStrategy.noWatermarks(), "read " + source, Rows.ROW_DATA_TYPE)
            .setParallelism(parallelism)
            .map(new Throttle(args.getLong("rows-per-second", 0)))
            .setParallelism(parallelism)
            .returns(Rows.ROW_DATA_TYPE)
            .name("throttle");
    FlinkSink.forRowData(rows)
        .tableLoader(Tables.tableLoader(args, table))
        .distributionMode(DistributionMode.NONE)
        .writeParallelism(args.getInt("write-parallelism", parallelism))
        .append();
    env.execute("IcebergCopy " + source + " -> " + table);
  }

  /** Passes rows on, at most {@code rowsPerSecond} per subtask when positive. */
  static final class Throttle extends RichMapFunction<RowData, RowData> {
    private final long rowsPerSecond;
    private transient long started;
    private transient long seen;

    Throttle(long rowsPerSecond) {
      this.rowsPerSecond = rowsPerSecond;
    }

    @Override
    public void open(OpenContext context) {
      started = System.nanoTime();
      seen = 0;
    }

    @Override
    public RowData map(RowData row) throws InterruptedException {
      if (rowsPerSecond > 0 && ++seen % 100 == 0) {
        long dueNanos = seen * 1_000_000_000L / rowsPerSecond;
        long aheadMillis = (dueNanos - (System.nanoTime() - started)) / 1_000_000L;
        if (aheadMillis > 0) {
          Thread.sleep(aheadMillis);
        }
      }
      return row;
    }
  }
}

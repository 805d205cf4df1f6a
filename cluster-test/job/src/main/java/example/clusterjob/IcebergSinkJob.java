package example.clusterjob;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.flink.sink.IcebergSink;

/**
 * Writes rows 0..rows-1 with Iceberg's IcebergSink (the Sink V2 API: writer, committer and
 * post-commit topology as Flink's sink framework runs them).
 *
 * <pre>
 * --warehouse DIR --table db.t --rows N [--parallelism 2] [--checkpoint-ms 0]
 * [--rows-per-second 0] [--partitioned true] [--catalog-impl CLASS --catalog-props k=v,...]
 * </pre>
 *
 * <p>The input is {@link FlinkSinkJob}'s: one checkpointed NumberSequenceSource subtask.
 */
public final class IcebergSinkJob {
  private IcebergSinkJob() {}

  public static void main(String[] argv) throws Exception {
    Args args = new Args(argv);
    String table = args.get("table");
    long rows = args.getLong("rows", 100_000);
    StreamExecutionEnvironment env = FlinkSinkJob.environment(args);
    IcebergSink.forRowData(FlinkSinkJob.input(env, args))
        .tableLoader(Tables.tableLoader(args, table))
        .distributionMode(DistributionMode.NONE)
        .writeParallelism(args.getInt("parallelism", 2))
        .append();
    env.execute("IcebergSink " + table + " (" + rows + " rows)");
  }
}

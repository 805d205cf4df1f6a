package io.frazil.flink;

import io.frazil.testkit.JobTables;
import java.io.File;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.flink.sink.FlinkSink;

/**
 * Run in a child JVM by {@link TestSinkBehaviour} with a broken native library path: a Flink job
 * must still succeed on the stock writer. Prints the row count and each data file's writer.
 */
public final class FallbackProbe {
  private FallbackProbe() {}

  public static void main(String[] args) throws Exception {
    File warehouse = new File(args[0]);
    FileSystem.initialize(new Configuration(), null);
    Table table =
        FlinkJobs.createTable(warehouse, "fallback", JobTables.Partitioning.BUCKET, 2, Map.of());
    // Optional "chained": parallelism 1 and object reuse, so no record is ever serialized (Flink's
    // Kryo copy of Iceberg's write results needs java.nio opened just as Arrow does).
    boolean chained = args.length > 1 && "chained".equals(args[1]);
    // Bounded restarts: a job that cannot succeed fails the probe instead of restarting forever.
    Configuration conf = new Configuration();
    conf.setString("restart-strategy.type", "fixed-delay");
    conf.setString("restart-strategy.fixed-delay.attempts", "2");
    conf.setString("restart-strategy.fixed-delay.delay", "200 ms");
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.createLocalEnvironment(chained ? 1 : 2, conf);
    if (chained) {
      env.getConfig().enableObjectReuse();
    }
    env.enableCheckpointing(200);
    DataStream<RowData> input =
        env.fromData(FlinkJobs.rows(0, 500, "a"), InternalTypeInfo.of(FlinkJobs.ROW_TYPE));
    FlinkSink.forRowData(input).tableLoader(FlinkJobs.tableLoader(warehouse, "fallback")).append();
    env.execute("fallback");
    System.out.println("rows=" + FlinkJobs.read(table).size());
    for (DataFile file : FlinkJobs.files(table).dataFiles) {
      String createdBy = FlinkJobs.createdBy(file.location());
      System.out.println("created_by=" + (createdBy.startsWith("frazil") ? "frazil" : createdBy));
    }
    System.exit(0);
  }
}

package io.frazil.flink;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;

import io.frazil.flink.routing.FrazilRouting;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.relocated.com.google.common.collect.ImmutableMap;
import org.apache.iceberg.types.Types;

/**
 * {@code make demo}: an embedded Flink MiniCluster job writes a generated Nexmark-like bid stream
 * into a bucket-partitioned Iceberg table (local Hadoop catalog, checkpoints every second), once
 * with the stock writer and once with Frazil; both tables are read back with Iceberg's reader,
 * checked to hold the same rows, and summarised side by side. A line marks each phase (the phases
 * take seconds to a minute); the output ends with the verdict (exit 1 when the tables differ), the
 * stock/Frazil wall ratio and where the tables and the log ({@link DemoLog}) are.
 */
public final class FlinkDemo {
  static final Schema BID =
      new Schema(
          List.of(
              required(1, "auction", Types.LongType.get()),
              required(2, "bidder", Types.LongType.get()),
              required(3, "price", Types.LongType.get()),
              optional(4, "channel", Types.StringType.get()),
              optional(5, "url", Types.StringType.get()),
              required(6, "date_time", Types.TimestampType.withoutZone()),
              optional(7, "extra", Types.StringType.get())),
          Set.of());

  private static final String[] CHANNELS = {"Google", "Facebook", "Baidu", "Apple"};

  private FlinkDemo() {}

  /** A deterministic bid per sequence number (same stream for both arms). */
  static final class BidGenerator implements MapFunction<Long, RowData> {
    @Override
    public RowData map(Long n) {
      long h = n * 0x9E3779B97F4A7C15L;
      h ^= h >>> 29;
      int extraLength = 40 + (int) ((h >>> 8) & 63);
      char[] extra = new char[extraLength];
      java.util.Arrays.fill(extra, (char) ('a' + (int) ((h >>> 16) % 26 + 26) % 26));
      return GenericRowData.of(
          1000L + Math.floorMod(h, 10_000),
          2000L + Math.floorMod(h >>> 20, 100_000),
          100L + Math.floorMod(h >>> 40, 50_000),
          StringData.fromString(CHANNELS[(int) Math.floorMod(h >>> 3, CHANNELS.length)]),
          StringData.fromString(
              "https://www.nexmark.com/item.htm?query=1&id=" + Math.floorMod(h >>> 12, 1000)),
          TimestampData.fromEpochMillis(1_700_000_000_000L + n * 3),
          StringData.fromString(new String(extra)));
    }
  }

  record Result(
      long rows, int files, long bytes, long wallMillis, long cpuMillis, Set<String> writers) {}

  static Result run(File warehouse, String name, boolean frazil, long rows) throws Exception {
    Map<String, String> props =
        ImmutableMap.of(
            TableProperties.FORMAT_VERSION, "2",
            TableProperties.PARQUET_COMPRESSION, "zstd",
            FrazilFlink.TABLE_PROPERTY, String.valueOf(frazil));
    Table table =
        FlinkJobs.catalog(warehouse)
            .createTable(
                TableIdentifier.of(FlinkJobs.DATABASE, name),
                BID,
                PartitionSpec.builderFor(BID).bucket("auction", 4).build(),
                props);

    Configuration conf = new Configuration();
    conf.setString("taskmanager.numberOfTaskSlots", "2");
    // A demo that cannot succeed says why instead of restarting forever.
    conf.setString("restart-strategy.type", "fixed-delay");
    conf.setString("restart-strategy.fixed-delay.attempts", "2");
    conf.setString("restart-strategy.fixed-delay.delay", "500 ms");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(2, conf);
    env.enableCheckpointing(1000);
    // One generator subtask: with Iceberg 1.11's FlinkSink on Flink 2.1, a bounded job whose
    // parallel source subtasks finish at different times can lose the rows of checkpoints that
    // were declined while tasks were closing (reproduced with the stock writer alone).
    DataStream<RowData> bids =
        env.fromSequence(0, rows - 1)
            .setParallelism(1)
            .map(new BidGenerator())
            .setParallelism(1)
            .returns(InternalTypeInfo.of(FlinkSchemaUtil.convert(BID)));
    FlinkSink.forRowData(bids)
        .tableLoader(FlinkJobs.tableLoader(warehouse, name))
        .writeParallelism(2)
        .append();
    // Frazil's arm also routes rows to bucket writers with the partition-key memoizer (the
    // stock table's writers see write.parquet.frazil.enabled=false and keep Iceberg's routing).
    FrazilRouting.accelerate(env);

    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long cpuStart = os.getProcessCpuTime();
    long start = System.nanoTime();
    env.execute("bids into " + name);
    long wall = (System.nanoTime() - start) / 1_000_000;
    long cpu = (os.getProcessCpuTime() - cpuStart) / 1_000_000;

    FlinkJobs.Files files = FlinkJobs.files(table);
    long bytes = files.dataFiles.stream().mapToLong(DataFile::fileSizeInBytes).sum();
    long count = files.dataFiles.stream().mapToLong(DataFile::recordCount).sum();
    Set<String> writers =
        files.dataFiles.stream().map(f -> writer(f.location())).collect(Collectors.toSet());
    return new Result(count, files.dataFiles.size(), bytes, wall, cpu, writers);
  }

  private static String writer(String location) {
    try {
      String createdBy = FlinkJobs.createdBy(location);
      return createdBy.substring(0, createdBy.indexOf(" version"));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  public static void main(String[] args) throws Exception {
    long rows = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000L;
    File warehouse = Files.createTempDirectory("frazil-demo").toFile();
    File log = DemoLog.to(new File(warehouse, "demo.log"));
    DemoProgress progress = new DemoProgress();
    // What a Flink TaskManager does at startup; it runs Frazil's bootstrap from the classpath.
    FileSystem.initialize(new Configuration(), null);

    progress.begin("warm-up", String.format("%,d bids with each writer", rows / 10));
    run(warehouse, "warmup_stock", false, rows / 10);
    run(warehouse, "warmup_frazil", true, rows / 10);
    progress.begin("stock arm", String.format("%,d bids, Iceberg's own Parquet writer", rows));
    Result stock = run(warehouse, "bids_stock", false, rows);
    progress.begin("Frazil arm", String.format("%,d bids, Frazil's native writer", rows));
    Result frazil = run(warehouse, "bids_frazil", true, rows);
    progress.begin("read-back check", "both tables read with Iceberg's reader and compared");
    List<String> stockRows = rowsOf(warehouse, "bids_stock");
    List<String> frazilRows = rowsOf(warehouse, "bids_frazil");
    progress.end();

    boolean sameRows = stockRows.equals(frazilRows) && stockRows.size() == rows;
    boolean rightWriters =
        stock.writers().equals(Set.of("parquet-mr")) && frazil.writers().equals(Set.of("frazil"));
    double wallRatio = (double) stock.wallMillis() / frazil.wallMillis();
    double cpuRatio = (double) stock.cpuMillis() / frazil.cpuMillis();

    System.out.println();
    System.out.println(
        "Frazil demo: Flink MiniCluster, FlinkSink, "
            + rows
            + " bids, bucket(auction, 4), parallelism 2, checkpoint every 1 s, zstd 3");
    System.out.printf("%-26s %20s %20s%n", "", "stock Iceberg", "Frazil");
    System.out.printf("%-26s %20d %20d%n", "rows committed", stock.rows(), frazil.rows());
    System.out.printf("%-26s %20d %20d%n", "data files", stock.files(), frazil.files());
    System.out.printf("%-26s %20d %20d%n", "data bytes", stock.bytes(), frazil.bytes());
    System.out.printf("%-26s %20d %20d%n", "job wall ms", stock.wallMillis(), frazil.wallMillis());
    System.out.printf("%-26s %20d %20d%n", "process CPU ms", stock.cpuMillis(), frazil.cpuMillis());
    System.out.printf(
        "%-26s %20s %20s%n", "data files written by", stock.writers(), frazil.writers());
    System.out.printf("%-26s %41s%n", "same rows read back", sameRows);
    System.out.println(
        "(one run after a warm-up on a shared machine; bench/ has measured cohorts)");
    System.out.println();
    if (sameRows && rightWriters) {
      System.out.printf(
          "Verdict: AGREE: both tables hold the same %,d rows (stock files by parquet-mr, Frazil's"
              + " by frazil)%n",
          rows);
    } else {
      System.out.printf(
          "Verdict: DIFFER: %s%n",
          sameRows
              ? "data files by " + stock.writers() + " and " + frazil.writers()
              : String.format(
                  "stock read back %,d rows, Frazil %,d, of %,d written",
                  stockRows.size(), frazilRows.size(), rows));
    }
    System.out.printf("Wall stock/Frazil: %.2fx (process CPU %.2fx)%n", wallRatio, cpuRatio);
    System.out.println("Tables: " + location(warehouse, "bids_stock"));
    System.out.println("        " + location(warehouse, "bids_frazil"));
    System.out.println("Log:    " + log.getAbsolutePath() + " (INFO and up)");
    System.exit(sameRows && rightWriters ? 0 : 1);
  }

  private static String location(File warehouse, String name) {
    return FlinkJobs.catalog(warehouse)
        .loadTable(TableIdentifier.of(FlinkJobs.DATABASE, name))
        .location();
  }

  private static List<String> rowsOf(File warehouse, String name) throws Exception {
    Table table =
        FlinkJobs.catalog(warehouse).loadTable(TableIdentifier.of(FlinkJobs.DATABASE, name));
    List<Record> records = FlinkJobs.read(table);
    return records.stream().map(Record::toString).sorted().collect(Collectors.toList());
  }
}

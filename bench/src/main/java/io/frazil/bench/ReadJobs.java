package io.frazil.bench;

import com.sun.management.OperatingSystemMXBean;
import io.frazil.flink.FrazilFlink;
import io.frazil.iceberg.ArrowMemory;
import io.frazil.jni.NativeParquetReader;
import io.frazil.jni.NativeParquetWriter;
import io.frazil.read.ReadCounters;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.Collector;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.IcebergSink;
import org.apache.iceberg.flink.source.IcebergSource;
import org.apache.iceberg.hadoop.HadoopCatalog;

/**
 * ReadBench's job cells on one Flink MiniCluster: a bid table of {@code --job-rows} rows in {@code
 * --job-files} data files written by stock Iceberg, then per trial one bounded job: {@code
 * source-discard} = IcebergSource (FLIP-27) → a flat map that touches every field ({@link
 * ReadConsumer}) → discarding sink; {@code copy} = IcebergSource → IcebergSink (v2) into a fresh
 * table. The stock arm runs with Frazil uninstalled (Iceberg's reader and writer), the Frazil arm
 * with it installed (native read and native write). Validated off the clock: rows and checksum
 * touched (source-discard), committed rows, footers' writer and the copy's checksum read back
 * (copy), native counters, nothing left open.
 */
final class ReadJobs {
  static final String DATABASE = "db";

  private final ReadBench bench;
  private final Path warehouse;
  private final OperatingSystemMXBean os =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private final JobHeap heap = new JobHeap();
  private final Schema schema = Datasets.BID;
  private final RowType rowType = FlinkSchemaUtil.convert(Datasets.BID);
  private MiniCluster cluster;
  private ReadConsumer expected;
  private long sourceBytes;
  private int sourceRowGroups;
  private boolean ok = true;

  /** What every source-discard subtask touched, summed (the MiniCluster runs in this JVM). */
  private static final ReadConsumer TOUCHED =
      new ReadConsumer(FlinkSchemaUtil.convert(Datasets.BID));

  ReadJobs(ReadBench bench, Path warehouse) {
    this.bench = bench;
    this.warehouse = warehouse;
  }

  private HadoopCatalog catalog() {
    return new HadoopCatalog(new org.apache.hadoop.conf.Configuration(), warehouse.toString());
  }

  private TableLoader loader(TableIdentifier id) {
    return TableLoader.fromCatalog(
        CatalogLoader.hadoop(
            "bench",
            new org.apache.hadoop.conf.Configuration(),
            Map.of("warehouse", warehouse.toString())),
        id);
  }

  boolean run() throws Exception {
    Files.createDirectories(warehouse);
    Guards.check(heap.notificationsAvailable(), "This JVM does not emit GC notifications");
    TableIdentifier source = TableIdentifier.of(DATABASE, "source");
    writeSource(source);

    JobBench.quietFlinkRuntimeLoggers();
    Configuration conf = new Configuration();
    conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("64m"));
    this.cluster =
        new MiniCluster(
            new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(bench.parallelism)
                .withRandomPorts()
                .build());
    cluster.start();
    try {
      for (String cell : bench.jobs) {
        System.out.printf(
            "%n[job-%s bid %,d rows, %d files] %d warm-up + %d measured pairs, alternating%n",
            cell, bench.jobRows, bench.jobFiles, bench.jobWarmupPairs, bench.jobPairs);
        for (int rep = 0; rep < bench.jobWarmupPairs + bench.jobPairs; rep++) {
          String phase = rep < bench.jobWarmupPairs ? "warmup" : "measured";
          int index = rep < bench.jobWarmupPairs ? rep : rep - bench.jobWarmupPairs;
          for (String arm : List.of("stock", "frazil")) {
            trial(cell, source, arm, phase, index);
          }
        }
      }
    } finally {
      cluster.close();
      ReadBench.arm("stock");
    }
    return ok;
  }

  /** The source table: --job-files stock-written files of the bid rows, appended in one commit. */
  private void writeSource(TableIdentifier id) throws IOException {
    ReadBench.arm("stock");
    Map<String, String> props = new HashMap<>(FileWriteBench.PROPERTIES);
    props.put(TableProperties.FORMAT_VERSION, "2");
    Table table = catalog().createTable(id, schema, PartitionSpec.unpartitioned(), props);
    List<RowData> rows = Datasets.bids(bench.jobRows, bench.seed);
    this.expected = new ReadConsumer(rowType);
    rows.forEach(expected::accept);
    var append = table.newAppend();
    int per = (rows.size() + bench.jobFiles - 1) / bench.jobFiles;
    for (int f = 0; f < bench.jobFiles; f++) {
      List<RowData> some = rows.subList(f * per, Math.min(rows.size(), (f + 1) * per));
      File file = new File(table.location().replace("file:", ""), "data/source-" + f + ".parquet");
      file.getParentFile().mkdirs();
      Arms.Written written =
          Arms.stock(schema, rowType, some, FileWriteBench.PROPERTIES, MetricsConfig.getDefault())
              .write(file);
      sourceBytes += file.length();
      sourceRowGroups += Guards.footer(file).rowGroups;
      append.appendFile(
          DataFiles.builder(PartitionSpec.unpartitioned())
              .withPath(file.getAbsolutePath())
              .withFormat(FileFormat.PARQUET)
              .withFileSizeInBytes(file.length())
              .withMetrics(written.metrics)
              .build());
    }
    append.commit();
    System.out.printf(
        Locale.ROOT,
        "%n[jobs] source table %s: %,d bid rows in %d files (%.1f MB, %d row groups), written by"
            + " stock Iceberg; input %s%n",
        id,
        rows.size(),
        bench.jobFiles,
        sourceBytes / 1048576.0,
        sourceRowGroups,
        expected.text());
  }

  /** Touches every field of every row; adds its subtask's sums to {@link #TOUCHED} at close. */
  static final class Touch extends RichFlatMapFunction<RowData, Long> {
    private final RowType type;
    private transient ReadConsumer consumer;

    Touch(RowType type) {
      this.type = type;
    }

    @Override
    public void open(OpenContext context) {
      consumer = new ReadConsumer(type);
    }

    @Override
    public void flatMap(RowData row, Collector<Long> out) {
      consumer.accept(row);
    }

    @Override
    public void close() {
      if (consumer != null) {
        synchronized (TOUCHED) {
          TOUCHED.count += consumer.count;
          TOUCHED.sum += consumer.sum;
          TOUCHED.xor ^= consumer.xor;
        }
      }
    }
  }

  private void trial(String cell, TableIdentifier source, String arm, String phase, int rep)
      throws IOException {
    int seq = bench.nextSeq();
    ReadBench.arm(arm);
    boolean copy = "copy".equals(cell);
    TableIdentifier target =
        TableIdentifier.of(DATABASE, String.format(Locale.ROOT, "copy_%03d_%s", seq, arm));
    Table targetTable = null;
    if (copy) {
      Map<String, String> props = new HashMap<>(FileWriteBench.PROPERTIES);
      props.put(TableProperties.FORMAT_VERSION, "2");
      targetTable = catalog().createTable(target, schema, PartitionSpec.unpartitioned(), props);
    }
    StreamExecutionEnvironment env = new TestStreamEnvironment(cluster, bench.parallelism);
    if (copy) {
      env.enableCheckpointing(bench.checkpointMs, CheckpointingMode.EXACTLY_ONCE);
    }
    IcebergSource<RowData> icebergSource =
        IcebergSource.forRowData().tableLoader(loader(source)).streaming(false).build();
    DataStream<RowData> rows =
        env.fromSource(
                icebergSource,
                WatermarkStrategy.noWatermarks(),
                "iceberg source",
                InternalTypeInfo.of(rowType))
            .setParallelism(bench.parallelism);
    if (copy) {
      IcebergSink.forRowData(rows)
          .tableLoader(loader(target))
          .writeParallelism(bench.parallelism)
          .append();
    } else {
      rows.flatMap(new Touch(rowType))
          .returns(Long.class)
          .setParallelism(bench.parallelism)
          .sinkTo(new DiscardingSink<>())
          .setParallelism(bench.parallelism);
    }
    synchronized (TOUCHED) {
      TOUCHED.count = 0;
      TOUCHED.sum = 0;
      TOUCHED.xor = 0;
    }

    long readNative0 = ReadCounters.nativeFiles();
    long readStock0 = ReadCounters.stockFiles();
    long readGroups0 = ReadCounters.nativeRowGroups();
    long readBytes0 = ReadCounters.bytesFetched();
    long writeNative0 = FrazilFlink.nativeDataFiles();
    System.gc();
    double loadBefore = os.getSystemLoadAverage();
    long rssBefore = MemoryProbes.procStatusKb("VmRSS");
    MemoryProbes.Sampler sampler = new MemoryProbes.Sampler(20);
    sampler.start();
    JobHeap.Reading heap0 = heap.read();
    long encoder0 = EncoderCpu.nanos();
    long cpu0 = os.getProcessCpuTime();
    long wall0 = System.nanoTime();
    Throwable failure = null;
    try {
      env.execute(String.format(Locale.ROOT, "read-%s %s %s #%d", cell, arm, phase, rep));
    } catch (Throwable t) {
      failure = t;
    }
    long wall1 = System.nanoTime();
    long cpu1 = os.getProcessCpuTime();
    long encoder1 = EncoderCpu.nanos();
    JobHeap.Reading heap1 = heap.read();
    try {
      sampler.stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    double loadAfter = os.getSystemLoadAverage();

    long readNative = ReadCounters.nativeFiles() - readNative0;
    long readStock = ReadCounters.stockFiles() - readStock0;
    long writeNative = FrazilFlink.nativeDataFiles() - writeNative0;
    long returned;
    long committedRows = -1;
    long committedFiles = -1;
    long committedBytes = 0;
    int committedGroups = 0;
    TreeSet<String> createdBy = new TreeSet<>();
    ReadConsumer got;
    java.util.List<String> failures = new java.util.ArrayList<>();
    if (failure != null) {
      failures.add("job failed: " + failure);
      failure.printStackTrace();
    }
    if (copy) {
      // Off the clock: the committed files' manifests and footers, and every row read back
      // through Iceberg's own Flink reader into the same checksum.
      ReadBench.arm("stock");
      got = new ReadConsumer(rowType);
      committedRows = 0;
      committedFiles = 0;
      targetTable.refresh();
      Snapshot snapshot = targetTable.currentSnapshot();
      if (snapshot == null) {
        failures.add("no snapshot committed");
      } else {
        for (ManifestFile manifest : snapshot.dataManifests(targetTable.io())) {
          try (ManifestReader<DataFile> reader =
              ManifestFiles.read(manifest, targetTable.io(), targetTable.specs())) {
            for (DataFile file : reader) {
              committedFiles++;
              committedRows += file.recordCount();
              committedBytes += file.fileSizeInBytes();
              File local =
                  new File(new org.apache.hadoop.fs.Path(file.location()).toUri().getPath());
              Guards.Footer footer = Guards.footer(local);
              committedGroups += footer.rowGroups;
              createdBy.add(footer.createdBy);
              String prefix = "stock".equals(arm) ? "parquet-mr" : "frazil";
              if (footer.createdBy == null || !footer.createdBy.startsWith(prefix)) {
                failures.add("data file " + local.getName() + " created_by " + footer.createdBy);
              }
              ReadConsumer one =
                  ReadBench.read(
                      org.apache.iceberg.Files.localInput(local), schema, Expressions.alwaysTrue());
              got.count += one.count;
              got.sum += one.sum;
              got.xor ^= one.xor;
            }
          }
        }
      }
      returned = committedRows;
      catalog().dropTable(target, true);
    } else {
      synchronized (TOUCHED) {
        got = new ReadConsumer(rowType);
        got.count = TOUCHED.count;
        got.sum = TOUCHED.sum;
        got.xor = TOUCHED.xor;
      }
      returned = got.count;
    }
    if (!got.sameAs(expected)) {
      failures.add((copy ? "copied " : "touched ") + got.text() + ", source " + expected.text());
    }
    if ("frazil".equals(arm)) {
      if (readNative < bench.jobFiles || readStock != 0) {
        failures.add(
            "read " + readNative + " file(s) natively and " + readStock + " with Iceberg's reader");
      }
      if (copy && writeNative < committedFiles) {
        failures.add(
            "wrote " + writeNative + " native data files for " + committedFiles + " committed");
      }
    } else if (readNative != 0 || writeNative != 0) {
      failures.add("stock arm: " + readNative + " native reads, " + writeNative + " native writes");
    }
    if (ArrowMemory.allocatedBytes() != 0
        || NativeParquetReader.openReaders() != 0
        || NativeParquetWriter.liveWriterCount() != 0) {
      failures.add("Arrow bytes, native readers or writers left after the job");
    }
    if ("frazil".equals(arm) && readNative > 0 && bench.nativeLibrary.startsWith("not")) {
      bench.nativeLibrary = Guards.describeNativeLibrary(bench.notes);
    }

    Iteration it =
        new Iteration(
            seq,
            "job-" + cell,
            "bid",
            bench.jobRows,
            arm,
            phase,
            rep,
            wall1 - wall0,
            cpu1 - cpu0,
            -1,
            heap1.gcAccount - heap0.gcAccount,
            heap1.gcCount - heap0.gcCount,
            heap1.gcMs - heap0.gcMs,
            copy ? committedBytes : sourceBytes,
            (int) (copy ? committedFiles : bench.jobFiles),
            returned,
            copy ? committedGroups : sourceRowGroups,
            copy ? String.join("; ", createdBy) : "parquet-mr (stock Iceberg)");
    ReadTrial trial = new ReadTrial(it);
    trial.failures.addAll(failures);
    trial.rowsReturned = returned;
    trial.checksumSum = got.sum;
    trial.checksumXor = got.xor;
    trial.nativeFiles = readNative;
    trial.stockFiles = readStock;
    trial.nativeRowGroups = ReadCounters.nativeRowGroups() - readGroups0;
    trial.bytesFetched = ReadCounters.bytesFetched() - readBytes0;
    trial.rssBeforeKb = rssBefore;
    trial.rssPeakKb = sampler.maxRssKb;
    trial.rssAfterKb = MemoryProbes.procStatusKb("VmRSS");
    trial.rssSamples = sampler.samples;
    trial.heapPeakBytes = sampler.maxHeapUsed;
    trial.arrowPeakBytes = sampler.maxArrow;
    trial.committedRows = committedRows;
    trial.committedFiles = committedFiles;
    trial.committedCreatedBy = String.join("; ", createdBy);
    trial.encoderCpuNs = encoder0 < 0 || encoder1 < 0 ? -1 : encoder1 - encoder0;
    trial.loadBefore = loadBefore;
    trial.loadAfter = loadAfter;
    bench.record(trial);
    if (!failures.isEmpty()) {
      ok = false;
    }
    System.out.printf(
        Locale.ROOT,
        "  %-6s %-8s #%d  wall %7.2f s  cpu %7.2f s  alloc %6.2f GB  gc %3d  rows %,d  read"
            + " natively %d  written natively %d%s  rss peak %,d MB  %s%n",
        arm,
        phase,
        rep,
        it.wallNs / 1e9,
        it.processCpuNs / 1e9,
        it.allocatedBytes / 1e9,
        it.gcCount,
        returned,
        readNative,
        writeNative,
        copy ? String.format(Locale.ROOT, "  committed %d files", committedFiles) : "",
        trial.rssPeakKb >> 10,
        failures.isEmpty() ? "OK" : "INVALID: " + String.join(" | ", failures));
  }
}

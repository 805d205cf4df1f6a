package io.frazil.bench;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.ThreadMXBean;
import io.frazil.flink.FrazilFlink;
import io.frazil.flink.routing.FrazilTaskWriterFactory;
import io.frazil.iceberg.ArrowMemory;
import io.frazil.iceberg.MemoryBudget;
import io.frazil.jni.NativeParquetWriter;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.sink.RowDataTaskWriterFactory;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.TaskWriter;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.Types;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * One fan-out trial, run by {@link FanoutBench} in a JVM of its own (so peak RSS and peak heap
 * belong to this arm and this N alone): one Iceberg Flink task writer ({@link
 * RowDataTaskWriterFactory}; with {@value #FRAZIL_ROUTING} set, wrapped in {@link
 * FrazilTaskWriterFactory}), identity partition on an int column with N values, rows arriving
 * interleaved: row i goes to partition i % N) writes {@code --rows} bid rows, then {@code
 * complete()} closes every open file at once, as a checkpoint's {@code prepareSnapshotPreBarrier}
 * does. The write phase and the close phase are timed separately; a sampler thread follows RSS,
 * heap and Frazil's Arrow bytes. Everything is checked after the clock stops. Prints one line
 * {@value #RESULT_MARKER}{@code {json}} on stdout; exits 0 (valid), 1 (a check failed or the trial
 * threw) or 2 (bad arguments). An OutOfMemoryError ends the JVM ({@code
 * -XX:+ExitOnOutOfMemoryError}, set by the parent), which the parent records as the outcome.
 */
@Command(
    name = "FanoutTrial",
    mixinStandardHelpOptions = true,
    versionProvider = BenchCli.Version.class,
    showDefaultValues = true,
    sortOptions = false,
    description = {
      "One fan-out trial in this JVM; FanoutBench runs it, one child JVM per trial, and reads the"
          + " FANOUT-RESULT line it prints."
    })
public final class FanoutTrial implements Callable<Integer> {
  static final String RESULT_MARKER = "FANOUT-RESULT ";

  /**
   * System property: task writers come from {@link FrazilTaskWriterFactory} around Iceberg's
   * factory, as in a job after {@code FrazilRouting.accelerate(env)}; otherwise from Iceberg's
   * factory itself, as with the jar alone.
   */
  static final String FRAZIL_ROUTING = "fanout.frazilRouting";

  /** Footer {@code created_by} prefixes per arm. */
  static final Map<String, String> CREATED_BY = Map.of("stock", "parquet-mr", "frazil", "frazil");

  private static final OperatingSystemMXBean OS =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

  /** Bid + the partition column. */
  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "auction", Types.LongType.get()),
          Types.NestedField.required(2, "bidder", Types.LongType.get()),
          Types.NestedField.required(3, "price", Types.LongType.get()),
          Types.NestedField.optional(4, "channel", Types.StringType.get()),
          Types.NestedField.optional(5, "url", Types.StringType.get()),
          Types.NestedField.required(6, "date_time", Types.TimestampType.withoutZone()),
          Types.NestedField.optional(7, "extra", Types.StringType.get()),
          Types.NestedField.required(8, "part", Types.IntegerType.get()));

  @Spec CommandSpec cli;

  @Option(names = "--arm", required = true, paramLabel = "ARM", description = "stock or frazil.")
  String arm;

  @Option(
      names = "--partitions",
      required = true,
      paramLabel = "N",
      converter = BenchCli.Positive.class,
      description = "Open partition files (the identity column's values).")
  int partitions;

  @Option(
      names = "--rows",
      paramLabel = "R",
      defaultValue = "2000000",
      converter = BenchCli.Positive.class,
      description = "Rows of the measured write.")
  int rows;

  @Option(
      names = "--pool-rows",
      paramLabel = "P",
      defaultValue = "131072",
      converter = BenchCli.Positive.class,
      description = "Distinct pre-built rows, cycled.")
  int poolRows;

  @Option(
      names = "--warmup-rows",
      paramLabel = "W",
      defaultValue = "262144",
      converter = BenchCli.NonNegative.class,
      description = "Rows of the JIT warm-up write before it (0 = none).")
  int warmupRows;

  @Option(
      names = "--seed",
      paramLabel = "N",
      defaultValue = "42",
      description = "Data generator seed.")
  long seed;

  @Option(
      names = "--tmp",
      paramLabel = "DIR",
      defaultValue = "${sys:java.io.tmpdir}",
      converter = BenchCli.AbsolutePath.class,
      description = "Parent of the trial's warehouse.")
  Path tmp;

  @Option(
      names = "--sample-ms",
      paramLabel = "MS",
      defaultValue = "20",
      converter = BenchCli.Positive.class,
      description = "Period of the memory sampler during the measured write.")
  int sampleMs;

  public static void main(String[] args) {
    BenchCli.main(args, new FanoutTrial());
  }

  @Override
  public Integer call() throws Exception {
    BenchCli.oneOf(cli, "--arm", List.of(arm), List.copyOf(CREATED_BY.keySet()));
    Map<String, Object> result =
        run(arm, partitions, rows, poolRows, warmupRows, seed, tmp, sampleMs);
    System.out.println(RESULT_MARKER + Json.object(result));
    System.out.flush();
    return Boolean.TRUE.equals(result.get("valid")) ? 0 : 1;
  }

  static Map<String, Object> run(
      String arm,
      int partitions,
      int rows,
      int poolRows,
      int warmupRows,
      long seed,
      Path tmp,
      int sampleMs)
      throws Exception {
    Guards.loggingIsQuiet();
    Clock.enable();
    long jvmStartMs = ManagementFactory.getRuntimeMXBean().getUptime();
    Guards.check(FrazilFlink.install(), "FrazilFlink.install() failed");

    // The pool: distinct bid rows, row j in partition j % N; cycled, so row i is in i % N.
    int pool = Math.min(poolRows, rows);
    pool -= pool % partitions;
    Guards.check(pool > 0, "--pool-rows %d is smaller than --partitions %d", poolRows, partitions);
    List<RowData> bids = Datasets.rows("bid", pool, seed);
    RowData[] fixture = new RowData[pool];
    for (int j = 0; j < pool; j++) {
      RowData bid = bids.get(j);
      GenericRowData row = new GenericRowData(8);
      for (int f = 0; f < 7; f++) {
        row.setField(f, ((GenericRowData) bid).getField(f));
      }
      row.setField(7, j % partitions);
      fixture[j] = row;
    }
    bids = null;

    Files.createDirectories(tmp);
    Path warehouse = Files.createTempDirectory(tmp, "frazil-fanout-");
    Map<String, Object> out = new LinkedHashMap<>();
    try {
      HadoopCatalog catalog = new HadoopCatalog();
      catalog.setConf(new org.apache.hadoop.conf.Configuration());
      // Data files through plain local files: see LocalFileIO for the fork it avoids.
      catalog.initialize(
          "bench",
          Map.of(
              CatalogProperties.WAREHOUSE_LOCATION,
              warehouse.toString(),
              CatalogProperties.FILE_IO_IMPL,
              LocalFileIO.class.getName()));
      Map<String, String> props = new HashMap<>(FileWriteBench.PROPERTIES);
      props.put(TableProperties.DEFAULT_FILE_FORMAT, "parquet");
      if ("stock".equals(arm)) {
        props.put(FrazilFlink.TABLE_PROPERTY, "false");
      }
      PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("part").build();
      Table table =
          catalog.createTable(TableIdentifier.of(Namespace.of("bench"), "t"), SCHEMA, spec, props);
      RowType rowType = FlinkSchemaUtil.convert(SCHEMA);

      String nativeLibrary = null;
      Map<String, Object> warm = null;
      if (warmupRows > 0) {
        // JIT warm-up in this JVM (a TaskManager is long-running): same N, fewer rows, checked.
        Write w = write(table, rowType, fixture, Math.max(warmupRows, partitions), partitions, 0);
        warm = w.check(arm, partitions, table);
        warm.put("wall_ns", w.writeWallNs + w.closeWallNs);
        if ("frazil".equals(arm)) {
          nativeLibrary = Guards.describeNativeLibrary(new ArrayList<>());
        }
      }

      System.gc();
      System.gc();
      MemoryProbes.resetPeaks();
      long rssBeforeKb = MemoryProbes.procStatusKb("VmRSS");
      long heapUsedBefore = MemoryProbes.heapUsed();
      long nativeEstBefore = MemoryProbes.nativeEstimate();
      MemoryProbes.Sampler sampler = new MemoryProbes.Sampler(sampleMs);
      sampler.start();
      Write w = write(table, rowType, fixture, rows, partitions, sampleMs);
      sampler.stop();
      if ("frazil".equals(arm) && nativeLibrary == null) {
        nativeLibrary = Guards.describeNativeLibrary(new ArrayList<>());
      }

      out.put("arm", arm);
      out.put("partitions", partitions);
      out.put("rows", rows);
      out.put("pool_rows", pool);
      out.put("heap_max_bytes", Runtime.getRuntime().maxMemory());
      out.put("write_wall_ns", w.writeWallNs);
      out.put("close_wall_ns", w.closeWallNs);
      out.put("wall_ns", w.writeWallNs + w.closeWallNs);
      out.put("write_cpu_ns", w.writeCpuNs);
      out.put("close_cpu_ns", w.closeCpuNs);
      out.put("process_cpu_ns", w.writeCpuNs + w.closeCpuNs);
      out.put("thread_cpu_ns", w.threadCpuNs);
      out.put("allocated_bytes", w.allocatedBytes);
      out.put("close_allocated_bytes", w.closeAllocatedBytes);
      out.put("gc_count", w.gcCount);
      out.put("gc_ms", w.gcMs);
      out.put("peak_rss_bytes", MemoryProbes.procStatusKb("VmHWM") * 1024);
      out.put("rss_before_bytes", rssBeforeKb * 1024);
      out.put("rss_end_bytes", MemoryProbes.procStatusKb("VmRSS") * 1024);
      out.put("sampled_peak_rss_bytes", sampler.maxRssKb * 1024);
      out.put("peak_heap_bytes", MemoryProbes.peakHeapPools());
      out.put("sampled_peak_heap_used_bytes", sampler.maxHeapUsed);
      out.put("heap_used_before_bytes", heapUsedBefore);
      out.put("peak_arrow_bytes", sampler.maxArrow);
      out.put("arrow_bytes_all_open", w.arrowAllOpen);
      out.put("native_counter_peak_bytes", sampler.maxNativeCounter);
      out.put("native_counter_all_open_bytes", w.nativeCounterAllOpen);
      out.put("native_estimate_before_bytes", nativeEstBefore);
      out.put("native_estimate_all_open_bytes", w.nativeEstimateAllOpen);
      out.put("rss_all_open_bytes", w.rssAllOpenKb * 1024);
      out.put("samples", sampler.samples);
      out.put("sample_ms", sampleMs);
      out.put("jvm_start_ms", jvmStartMs);
      out.put("loadavg_1m", loadAverage());
      out.put("native_library", nativeLibrary);
      Map<String, Object> checks = w.check(arm, partitions, table);
      out.putAll(checks);
      if (warm != null) {
        out.put("warmup_rows", Math.max(warmupRows, partitions));
        out.put("warmup_wall_ns", warm.get("wall_ns"));
        if (!Boolean.TRUE.equals(warm.get("valid"))) {
          out.put("valid", false);
          @SuppressWarnings("unchecked")
          List<String> failures = (List<String>) out.get("failures");
          failures.add("warm-up write: " + warm.get("failures"));
        }
      }
    } finally {
      RunFacts.deleteTree(warehouse);
    }
    return out;
  }

  /** What one task writer's life cost: write phase and close-all phase. */
  static final class Write {
    long writeWallNs;
    long closeWallNs;
    long writeCpuNs;
    long closeCpuNs;
    long threadCpuNs;
    long allocatedBytes;
    long closeAllocatedBytes;
    long gcCount;
    long gcMs;
    long arrowAllOpen;
    long nativeCounterAllOpen;
    long nativeEstimateAllOpen;
    long rssAllOpenKb;
    long nativeFilesDelta;
    long stockFilesDelta;
    DataFile[] files;

    /** Off the clock: files, rows, writers, leaks; deletes the data files. */
    Map<String, Object> check(String arm, int partitions, Table table) throws IOException {
      List<String> failures = new ArrayList<>();
      long records = 0;
      long footerRows = 0;
      long bytes = 0;
      int rowGroups = 0;
      Set<Object> partitionValues = new HashSet<>();
      Set<String> createdBy = new HashSet<>();
      String prefix = CREATED_BY.get(arm);
      for (DataFile file : files) {
        records += file.recordCount();
        bytes += file.fileSizeInBytes();
        partitionValues.add(file.partition().get(0, Integer.class));
        File local = new File(new org.apache.hadoop.fs.Path(file.location()).toUri().getPath());
        Guards.Footer footer = Guards.footer(local);
        footerRows += footer.rows;
        rowGroups += footer.rowGroups;
        String by = footer.createdBy == null ? "(none)" : footer.createdBy;
        createdBy.add(by.startsWith("frazil") ? "frazil…" : by);
        if (!by.startsWith(prefix)) {
          failures.add("file " + local.getName() + " created_by '" + by + "'");
        }
        if (footer.rows != file.recordCount()) {
          failures.add(
              "file "
                  + local.getName()
                  + ": footer "
                  + footer.rows
                  + " rows, "
                  + file.recordCount());
        }
        Files.deleteIfExists(local.toPath());
        Files.deleteIfExists(
            new File(local.getParentFile(), "." + local.getName() + ".crc").toPath());
      }
      long expectedRows = rowsWritten;
      if (files.length != partitions) {
        failures.add(files.length + " data files, expected " + partitions);
      }
      if (partitionValues.size() != partitions) {
        failures.add(partitionValues.size() + " partition values, expected " + partitions);
      }
      if (records != expectedRows || footerRows != expectedRows) {
        failures.add(
            "rows: manifest " + records + ", footers " + footerRows + ", written " + expectedRows);
      }
      long expectNative = "frazil".equals(arm) ? files.length : 0;
      if (nativeFilesDelta != expectNative) {
        failures.add("FrazilFlink.nativeDataFiles() grew by " + nativeFilesDelta);
      }
      if (ArrowMemory.allocatedBytes() != 0) {
        failures.add("Arrow bytes after close: " + ArrowMemory.allocatedBytes());
      }
      if (NativeParquetWriter.liveWriterCount() != 0) {
        failures.add("live native writers after close: " + NativeParquetWriter.liveWriterCount());
      }
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("valid", failures.isEmpty());
      out.put("failures", failures);
      out.put("file_count", files.length);
      out.put("record_count", records);
      out.put("footer_rows", footerRows);
      out.put("row_groups", rowGroups);
      out.put("output_bytes", bytes);
      out.put("task_writer", taskWriter);
      out.put("created_by", String.join("; ", createdBy));
      out.put("native_data_files", nativeFilesDelta);
      out.put("stock_data_files", stockFilesDelta);
      out.put("memory_budget_bytes", MemoryBudget.process().limitBytes());
      out.put("early_row_group_flushes", MemoryBudget.process().earlyFlushes());
      return out;
    }

    long rowsWritten;
    String taskWriter;
  }

  /** Write {@code rows} rows through one fresh task writer, then close all its files. */
  static Write write(
      Table table, RowType rowType, RowData[] fixture, int rows, int partitions, int sampleMs)
      throws Exception {
    RowDataTaskWriterFactory factory =
        new RowDataTaskWriterFactory(
            table,
            rowType,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT,
            FileFormat.PARQUET,
            table.properties(),
            List.of(),
            false);
    if (Boolean.getBoolean(FRAZIL_ROUTING)) {
      // As FrazilRouting does in a job; with Frazil off for the table (the stock arm) the wrapper
      // hands out Iceberg's own writer.
      factory = FrazilTaskWriterFactory.wrap(factory);
    }
    factory.initialize(0, 0);
    Write w = new Write();
    w.rowsWritten = rows;
    long native0 = FrazilFlink.nativeDataFiles();
    long stock0 = FrazilFlink.stockDataFiles();
    int pool = fixture.length;
    long thread = Thread.currentThread().getId();

    long gc0 = RunFacts.gcCount();
    long gcMs0 = RunFacts.gcMillis();
    long alloc0 = THREADS.getThreadAllocatedBytes(thread);
    long tcpu0 = THREADS.getCurrentThreadCpuTime();
    long cpu0 = OS.getProcessCpuTime();
    long t0 = System.nanoTime();

    TaskWriter<RowData> writer = factory.create();
    w.taskWriter = writer.getClass().getSimpleName();
    int j = 0;
    for (int i = 0; i < rows; i++) {
      writer.write(fixture[j]);
      if (++j == pool) {
        j = 0;
      }
    }

    long t1 = System.nanoTime();
    long cpu1 = OS.getProcessCpuTime();
    long alloc1 = THREADS.getThreadAllocatedBytes(thread);
    // Every file is open now: what is held (off the clock).
    if (sampleMs > 0) {
      w.arrowAllOpen = ArrowMemory.allocatedBytes();
      w.nativeCounterAllOpen = MemoryProbes.nativeBytes();
      w.rssAllOpenKb = MemoryProbes.procStatusKb("VmRSS");
      w.nativeEstimateAllOpen = MemoryProbes.nativeEstimate();
    }
    long alloc2 = THREADS.getThreadAllocatedBytes(thread);
    long cpu2 = OS.getProcessCpuTime();
    long t2 = System.nanoTime();

    WriteResult result = writer.complete();

    long t3 = System.nanoTime();
    long cpu3 = OS.getProcessCpuTime();
    long tcpu3 = THREADS.getCurrentThreadCpuTime();
    long alloc3 = THREADS.getThreadAllocatedBytes(thread);
    long gc3 = RunFacts.gcCount();
    long gcMs3 = RunFacts.gcMillis();
    writer.close();

    w.writeWallNs = t1 - t0;
    w.closeWallNs = t3 - t2;
    w.writeCpuNs = cpu1 - cpu0;
    w.closeCpuNs = cpu3 - cpu2;
    w.threadCpuNs = tcpu3 - tcpu0;
    w.allocatedBytes = (alloc1 - alloc0) + (alloc3 - alloc2);
    w.closeAllocatedBytes = alloc3 - alloc2;
    w.gcCount = gc3 - gc0;
    w.gcMs = gcMs3 - gcMs0;
    w.files = result.dataFiles();
    w.nativeFilesDelta = FrazilFlink.nativeDataFiles() - native0;
    w.stockFilesDelta = FrazilFlink.stockDataFiles() - stock0;
    return w;
  }

  static double loadAverage() {
    return OS.getSystemLoadAverage();
  }
}

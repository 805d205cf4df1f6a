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
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
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

/**
 * One fan-out trial, run by {@link FanoutBench} in a JVM of its own (so peak RSS and peak heap
 * belong to this arm and this N alone): one Iceberg Flink task writer ({@link
 * RowDataTaskWriterFactory}; with {@value #FRAZIL_ROUTING} set, wrapped in {@link
 * FrazilTaskWriterFactory}), identity partition on an int column with N values, rows arriving
 * interleaved: row i goes to partition i % N) writes {@code --rows} bid rows, then {@code
 * complete()} closes every open file at once, as a checkpoint's {@code prepareSnapshotPreBarrier}
 * does. The write phase and the close phase are timed separately; a sampler thread follows RSS,
 * heap and Frazil's Arrow bytes. Everything is checked after the clock stops. Prints one line
 * {@value #RESULT_MARKER}{@code {json}} on stdout; exits 0 (valid), 1 (a check failed) or 2 (bad
 * arguments). An OutOfMemoryError ends the JVM ({@code -XX:+ExitOnOutOfMemoryError}, set by the
 * parent), which the parent records as the outcome.
 */
public final class FanoutTrial {
  static final String RESULT_MARKER = "FANOUT-RESULT ";

  /**
   * System property: task writers come from {@link FrazilTaskWriterFactory} around Iceberg's
   * factory, as in a job after {@code FrazilRouting.accelerate(env)}; otherwise from Iceberg's
   * factory itself, as with the jar alone.
   */
  static final String FRAZIL_ROUTING = "fanout.frazilRouting";

  /** Footer {@code created_by} prefixes per arm. */
  static final Map<String, String> CREATED_BY = Map.of("stock", "parquet-mr", "frazil", "frazil");

  /**
   * Frazil's native allocator byte counter (the bytes libfrazil holds now); {@code
   * -Dfanout.nativeCounter=class#method} names another static, no-argument, long-returning method,
   * "" turns it off (-1 in the results).
   */
  static final String NATIVE_COUNTER_DEFAULT = "io.frazil.jni.NativeParquetWriter#allocatedBytes";

  private static final OperatingSystemMXBean OS =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

  private FanoutTrial() {}

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

  public static void main(String[] args) {
    Map<String, String> flags = new HashMap<>();
    List<String> tokens = Flags.tokens(args);
    for (int i = 0; i + 1 < tokens.size(); i += 2) {
      flags.put(tokens.get(i), tokens.get(i + 1));
    }
    String arm = flags.getOrDefault("--arm", "");
    if (!CREATED_BY.containsKey(arm) || !flags.containsKey("--partitions")) {
      System.err.println(
          "usage: FanoutTrial --arm stock|frazil --partitions N [--rows R] [--pool-rows P]"
              + " [--warmup-rows W] [--seed S] [--tmp DIR] [--sample-ms MS]");
      System.exit(2);
    }
    int status;
    try {
      Map<String, Object> result =
          run(
              arm,
              Flags.positive(flags.get("--partitions"), "--partitions"),
              Flags.positive(flags.getOrDefault("--rows", "2000000"), "--rows"),
              Flags.positive(flags.getOrDefault("--pool-rows", "131072"), "--pool-rows"),
              Flags.nonNegative(flags.getOrDefault("--warmup-rows", "262144"), "--warmup-rows"),
              Long.parseLong(flags.getOrDefault("--seed", "42")),
              Paths.get(flags.getOrDefault("--tmp", System.getProperty("java.io.tmpdir"))),
              Flags.positive(flags.getOrDefault("--sample-ms", "20"), "--sample-ms"));
      System.out.println(RESULT_MARKER + Json.object(result));
      System.out.flush();
      status = Boolean.TRUE.equals(result.get("valid")) ? 0 : 1;
    } catch (Throwable t) {
      System.err.println("FANOUT TRIAL FAILED: " + t);
      t.printStackTrace();
      status = 1;
    }
    System.exit(status);
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
      resetPeaks();
      long rssBeforeKb = procStatusKb("VmRSS");
      long heapUsedBefore = heapUsed();
      long nativeEstBefore = nativeEstimate();
      Sampler sampler = new Sampler(sampleMs);
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
      out.put("peak_rss_bytes", procStatusKb("VmHWM") * 1024);
      out.put("rss_before_bytes", rssBeforeKb * 1024);
      out.put("rss_end_bytes", procStatusKb("VmRSS") * 1024);
      out.put("sampled_peak_rss_bytes", sampler.maxRssKb * 1024);
      out.put("peak_heap_bytes", peakHeapPools());
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
      w.nativeCounterAllOpen = NativeCounter.read();
      w.rssAllOpenKb = procStatusKb("VmRSS");
      w.nativeEstimateAllOpen = nativeEstimate();
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

  // ---------------------------------------------------------------------------------------------
  // memory probes

  /** Samples RSS, heap in use, Arrow bytes and the native counter until stopped. */
  static final class Sampler implements Runnable {
    private final int periodMs;
    private final Thread thread;
    private volatile boolean running = true;
    volatile long maxRssKb;
    volatile long maxHeapUsed;
    volatile long maxArrow;
    volatile long maxNativeCounter = -1;
    volatile int samples;

    Sampler(int periodMs) {
      this.periodMs = periodMs;
      this.thread = new Thread(this, "fanout-sampler");
      thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    void stop() throws InterruptedException {
      running = false;
      thread.join();
      sample();
    }

    @Override
    public void run() {
      while (running) {
        sample();
        try {
          Thread.sleep(periodMs);
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    private void sample() {
      maxRssKb = Math.max(maxRssKb, procStatusKb("VmRSS"));
      maxHeapUsed = Math.max(maxHeapUsed, heapUsed());
      maxArrow = Math.max(maxArrow, ArrowMemory.allocatedBytes());
      maxNativeCounter = Math.max(maxNativeCounter, NativeCounter.read());
      samples++;
    }
  }

  /** The native-allocator counter named by the hook, or -1 while there is none. */
  static final class NativeCounter {
    private static final Method METHOD = find();

    static long read() {
      if (METHOD == null) {
        return -1;
      }
      try {
        return ((Number) METHOD.invoke(null)).longValue();
      } catch (ReflectiveOperationException | RuntimeException e) {
        return -1;
      }
    }

    static String describe() {
      return METHOD == null
          ? "none"
          : METHOD.getDeclaringClass().getName() + "#" + METHOD.getName();
    }

    private static Method find() {
      String spec = System.getProperty("fanout.nativeCounter", NATIVE_COUNTER_DEFAULT);
      int hash = spec.indexOf('#');
      if (hash <= 0) {
        return null;
      }
      try {
        Method method = Class.forName(spec.substring(0, hash)).getMethod(spec.substring(hash + 1));
        method.invoke(null);
        return method;
      } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
        System.err.println("fanout: native counter " + spec + " not usable: " + e);
        return null;
      }
    }
  }

  static long heapUsed() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /** Resets every pool's peak, so {@link #peakHeapPools} covers the measured write only. */
  static void resetPeaks() {
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      pool.resetPeakUsage();
    }
  }

  /** Sum over heap pools of each pool's peak used bytes (an upper bound of the heap's peak). */
  static long peakHeapPools() {
    long sum = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP && pool.getPeakUsage() != null) {
        sum += pool.getPeakUsage().getUsed();
      }
    }
    return sum;
  }

  /**
   * Resident memory not explained by the JVM: RSS − resident Java heap − committed non-heap
   * (metaspace, code cache, ...). The heap is fixed (-Xms = -Xmx), so its committed size says
   * nothing about residency; its resident bytes come from the heap's mapping in smaps (the one
   * anonymous mapping at least as large as -Xmx). Thread stacks, malloc'd JVM internals, zstd-jni
   * contexts, Arrow buffers and Frazil's native encoder all land here. -1 when smaps is missing.
   */
  static long nativeEstimate() {
    long heapRss = heapResidentBytes();
    if (heapRss < 0) {
      return -1;
    }
    long nonHeap = ManagementFactory.getMemoryMXBean().getNonHeapMemoryUsage().getCommitted();
    return procStatusKb("VmRSS") * 1024 - heapRss - nonHeap;
  }

  /**
   * Resident bytes of the Java heap: the anonymous read-write mapping whose size is within 10% of
   * -Xmx (G1 reserves the heap as one mapping; with -Xms = -Xmx it is committed at start), or -1.
   */
  private static final java.util.regex.Pattern MAPPING =
      java.util.regex.Pattern.compile("[0-9a-f]+-[0-9a-f]+ ");

  static long heapResidentBytes() {
    long max = Runtime.getRuntime().maxMemory();
    try {
      List<String> lines = Files.readAllLines(Paths.get("/proc/self/smaps"));
      long best = -1;
      long bestSize = 0;
      boolean candidate = false;
      long size = 0;
      for (String line : lines) {
        if (MAPPING.matcher(line).lookingAt()) {
          String[] parts = line.trim().split("\\s+");
          candidate = parts.length == 5 && parts[1].startsWith("rw");
        } else if (line.startsWith("Size:")) {
          size = kb(line) * 1024;
        } else if (line.startsWith("Rss:")
            && candidate
            && size >= max * 0.9
            && size <= max * 1.1
            && size > bestSize) {
          best = kb(line) * 1024;
          bestSize = size;
        }
      }
      return best;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  static long procStatusKb(String key) {
    try {
      for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
        if (line.startsWith(key + ":")) {
          return kb(line);
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  private static long kb(String line) {
    return Long.parseLong(line.replaceAll("[^0-9]", ""));
  }

  static double loadAverage() {
    return OS.getSystemLoadAverage();
  }

  /** Minimal JSON for flat maps of numbers, strings, booleans and lists of strings. */
  static final class Json {
    private Json() {}

    static String object(Map<String, Object> map) {
      StringBuilder json = new StringBuilder(1024).append('{');
      boolean first = true;
      for (Map.Entry<String, Object> e : map.entrySet()) {
        if (!first) {
          json.append(',');
        }
        first = false;
        string(json, e.getKey()).append(':');
        value(json, e.getValue());
      }
      return json.append('}').toString();
    }

    static void value(StringBuilder json, Object v) {
      if (v == null) {
        json.append("null");
      } else if (v instanceof Double || v instanceof Float) {
        double d = ((Number) v).doubleValue();
        json.append(Double.isFinite(d) ? String.format(Locale.ROOT, "%.4f", d) : "null");
      } else if (v instanceof Number || v instanceof Boolean) {
        json.append(v);
      } else if (v instanceof List) {
        json.append('[');
        boolean first = true;
        for (Object item : (List<?>) v) {
          if (!first) {
            json.append(',');
          }
          first = false;
          value(json, item);
        }
        json.append(']');
      } else {
        string(json, v.toString());
      }
    }

    static StringBuilder string(StringBuilder json, String s) {
      json.append('"');
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        if (c == '"' || c == '\\') {
          json.append('\\').append(c);
        } else if (c < 0x20) {
          json.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
        } else {
          json.append(c);
        }
      }
      return json.append('"');
    }
  }
}

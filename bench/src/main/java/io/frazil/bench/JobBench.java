package io.frazil.bench;

import com.sun.management.OperatingSystemMXBean;
import io.frazil.flink.FrazilFlink;
import io.frazil.flink.routing.FrazilRouting;
import io.frazil.testkit.LoadedLibrary;
import java.io.BufferedWriter;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.runtime.client.JobExecutionException;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.sink.dynamic.DynamicIcebergSink;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;

/**
 * Whole Flink jobs, stock Iceberg against Frazil (bench/README.md, "Whole-job cohort").
 *
 * <p>One JVM, one MiniCluster (1 TaskManager, {@code parallelism} slots) shared by every trial;
 * each trial is its own job into a fresh bucket(auction, 4) table of a local Hadoop catalog: a
 * parallelism-1 sequence source, a rebalance to {@code parallelism} subtasks that look up the
 * pre-built bid rows, and the Dynamic Iceberg Sink at write parallelism {@code parallelism}, with
 * periodic checkpoints. The clock runs from {@code env.execute()} to its return, so it includes the
 * checkpoints and the final commit. The two arms differ only by the table property {@code
 * write.parquet.frazil.enabled=false} on the stock arm's table ({@link FrazilFlink#install()} runs
 * once for both). After each trial, off the clock, the committed table is validated (row checksum
 * through Iceberg's reader, footers, writer subtasks, native counters, native resources); a trial
 * that fails validation is kept in {@code iterations.jsonl}, left out of the medians, listed in
 * {@code results.md}, and makes the run exit non-zero.
 */
public final class JobBench {
  static final String COHORT = "job-dynamic";
  static final String CATALOG = "bench";
  static final String DATABASE = "db";
  static final int BUCKETS = 4;

  /**
   * {@code web.checkpoints.history}: checkpoints whose statistics the JobManager keeps per job
   * (Flink's default, 10, would drop all but a job's last ten).
   */
  static final int CHECKPOINT_HISTORY = 1000;

  private final JobOptions options;
  private final OperatingSystemMXBean os =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private final JobHeap heap = new JobHeap();
  private final List<Iteration> iterations = new ArrayList<>();
  private final Map<Integer, Trial> trials = new LinkedHashMap<>();
  private final List<String> notes = new ArrayList<>();
  private BufferedWriter jsonl;
  private Path warehouse;
  private MiniCluster cluster;
  private URI rest;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private JobRows.Checksum expected;
  private int movedKeys;
  private String nativeLibrary = "not loaded (no Frazil trial ran)";
  private String bridgeAtStart;

  /** One trial's job-specific facts (next to its {@link Iteration}). */
  private static final class Trial {
    final String cell;
    final int formatVersion;
    final boolean keyed;
    final String table;
    long allocLiveThreads;
    long nativeFiles;
    long delegatedFiles;
    int routingRewrites;
    long validateMs;

    /** Flink's checkpoint statistics of the job (read after it finished, off the clock). */
    JobCheckpoints checkpoints = new JobCheckpoints();

    long checkpointStatsMs;

    /** CPU of Frazil's native encoder threads during the job (0 for stock, -1 unknown). */
    long encoderCpuNs;

    double loadBefore;
    double loadAfter;
    JobCheck check;
    final List<String> failures = new ArrayList<>();

    Trial(String cell, int formatVersion, boolean keyed, String table) {
      this.cell = cell;
      this.formatVersion = formatVersion;
      this.keyed = keyed;
      this.table = table;
    }

    boolean valid() {
      return failures.isEmpty();
    }
  }

  private JobBench(JobOptions options) {
    this.options = options;
  }

  public static void main(String[] args) {
    BenchMain.main(
        args, JobOptions::parse, JobOptions.USAGE, options -> new JobBench(options).run());
  }

  /** Returns true when every trial passed validation. */
  private boolean run() throws Exception {
    long started = System.nanoTime();
    Guards.loggingIsQuiet();
    quietFlinkRuntimeLoggers();
    Guards.check(FrazilFlink.install(), "FrazilFlink.install() failed: Frazil is not in the sink");
    Guards.check(
        heap.notificationsAvailable(), "This JVM does not emit GC notifications (allocation)");
    // Hashed now: the jar the JVM opened; compared again at the end (concurrent installs).
    this.bridgeAtStart = bridgeJar();
    Files.createDirectories(options.out);
    Files.createDirectories(options.tmp);
    this.warehouse = Files.createTempDirectory(options.tmp, "frazil-jobbench-");
    System.out.printf(
        "JobBench %s%n  %s%n  out %s%n  warehouse %s%n",
        options.smoke ? "(smoke)" : "", options, options.out, warehouse);

    long buildStart = System.nanoTime();
    this.movedKeys = JobRows.build(options.rows, options.seed);
    this.expected = JobRows.checksum(JobRows.input());
    System.gc();
    Runtime runtime = Runtime.getRuntime();
    long heapInUse = runtime.totalMemory() - runtime.freeMemory();
    System.out.printf(
        "built %,d bid rows in %.1f s (%d date_time values moved by microseconds to make"
            + " (auction, bidder, date_time) unique; heap in use %,d MB of %,d MB); input %s%n",
        JobRows.input().size(),
        (System.nanoTime() - buildStart) / 1e9,
        movedKeys,
        heapInUse >> 20,
        runtime.maxMemory() >> 20,
        expected);
    if (heapInUse > runtime.maxMemory() * 0.3) {
      notes.add(
          String.format(
              Locale.ROOT,
              "WARNING: the input rows occupy %,d MB of a %,d MB heap (> 30%%); raise"
                  + " -Dbench.heap.",
              heapInUse >> 20,
              runtime.maxMemory() >> 20));
    }

    Configuration conf = new Configuration();
    conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("64m"));
    // The REST API, on the loopback interface only (port chosen by withRandomPorts), is where
    // each job's checkpoint statistics are read after it finished.
    conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
    conf.set(RestOptions.ADDRESS, "127.0.0.1");
    conf.set(WebOptions.CHECKPOINTS_HISTORY_SIZE, CHECKPOINT_HISTORY);
    this.cluster =
        new MiniCluster(
            new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(options.parallelism)
                .withRandomPorts()
                .build());
    cluster.start();
    this.rest = cluster.getRestAddress().get();
    try (BufferedWriter out =
        Files.newBufferedWriter(options.out.resolve("iterations.jsonl"), StandardCharsets.UTF_8)) {
      this.jsonl = out;
      for (String cell : options.cells) {
        int version = cell.startsWith("v3") ? 3 : 2;
        boolean keyed = cell.endsWith("keyed");
        System.out.printf(
            "%n[%s] %d warm-up + %d measured pairs, alternating stock, Frazil%n",
            cell, options.warmupPairs, options.pairs);
        for (int rep = 0; rep < options.warmupPairs; rep++) {
          trial(cell, version, keyed, "stock", "warmup", rep);
          trial(cell, version, keyed, "frazil", "warmup", rep);
        }
        for (int rep = 0; rep < options.pairs; rep++) {
          trial(cell, version, keyed, "stock", "measured", rep);
          trial(cell, version, keyed, "frazil", "measured", rep);
        }
      }
    } finally {
      cluster.close();
      if (!options.keepTables) {
        RunFacts.deleteTree(warehouse);
      }
    }
    return writeResults((System.nanoTime() - started) / 1e9);
  }

  /**
   * Expected warnings of short bounded MiniCluster jobs (declined checkpoints of finishing tasks,
   * IcebergSink's duplicate committer metric, no Hadoop config or Dropwizard, no web log file),
   * with stack traces on every trial: raised to ERROR here so the bench's output stays readable.
   * The writer loggers {@link Guards#loggingIsQuiet()} checks are not touched; Iceberg's commit
   * retries ({@code org.apache.iceberg.util.Tasks}) stay visible.
   */
  private static void quietFlinkRuntimeLoggers() {
    for (String name :
        List.of(
            "org.apache.flink.runtime.checkpoint.CheckpointFailureManager",
            "org.apache.flink.runtime.rpc.pekko.FencedPekkoRpcActor",
            "org.apache.flink.runtime.util.HadoopUtils",
            "org.apache.flink.runtime.metrics.util.MetricUtils",
            "org.apache.flink.runtime.security.token.DefaultDelegationTokenManager",
            "org.apache.flink.runtime.webmonitor.WebMonitorUtils",
            "org.apache.flink.metrics.MetricGroup",
            "org.apache.iceberg.flink.sink.IcebergStreamWriterMetrics")) {
      Configurator.setLevel(name, Level.ERROR);
    }
  }

  private HadoopCatalog catalog() {
    return new HadoopCatalog(new org.apache.hadoop.conf.Configuration(), warehouse.toString());
  }

  private CatalogLoader catalogLoader() {
    return CatalogLoader.hadoop(
        CATALOG,
        new org.apache.hadoop.conf.Configuration(),
        Map.of("warehouse", warehouse.toString()));
  }

  /** One job: create the table, time execute(), then validate what it committed. */
  private void trial(String cell, int version, boolean keyed, String arm, String phase, int rep)
      throws IOException {
    int seq = iterations.size();
    String tableName =
        String.format(Locale.ROOT, "t%03d_v%d_%s_%s", seq, version, keyed ? "keyed" : "fwd", arm);
    TableIdentifier identifier = TableIdentifier.of(DATABASE, tableName);
    Schema schema = Datasets.BID;
    PartitionSpec spec = PartitionSpec.builderFor(schema).bucket("auction", BUCKETS).build();
    Map<String, String> props = new HashMap<>(FileWriteBench.PROPERTIES);
    props.put(TableProperties.FORMAT_VERSION, String.valueOf(version));
    if ("stock".equals(arm)) {
      props.put(FrazilFlink.TABLE_PROPERTY, "false");
    }
    HadoopCatalog catalog = catalog();
    Table table = catalog.createTable(identifier, schema, spec, props);
    // The sink creates a missing branch itself, from every generator subtask at once; on a fresh
    // HadoopCatalog table they race for the same metadata version and the losers back off for up
    // to seconds (seen as 1-6 s outliers). Tables in use have their main branch already: create
    // it here, off the clock (an empty snapshot, not counted as a commit below).
    table.manageSnapshots().createBranch(SnapshotRef.MAIN_BRANCH).commit();
    Trial trial = new Trial(cell, version, keyed, tableName);

    StreamExecutionEnvironment env = new TestStreamEnvironment(cluster, options.parallelism);
    env.enableCheckpointing(options.checkpointMs, CheckpointingMode.EXACTLY_ONCE);
    // One source subtask (Iceberg 1.11 on Flink 2.1 can lose rows when parallel bounded source
    // subtasks finish at different times); the rebalance puts the row lookup, the generator and
    // (forward cells) the writers on `parallelism` subtasks.
    DataStream<RowData> rows =
        env.fromSequence(0, JobRows.input().size() - 1)
            .setParallelism(1)
            .name("sequence")
            .rebalance()
            .map(new JobRows.Lookup())
            .setParallelism(options.parallelism)
            .name("bid rows")
            .returns(InternalTypeInfo.of(FlinkSchemaUtil.convert(schema)));
    DynamicIcebergSink.forInput(rows)
        .generator(new JobRows.Generator(identifier, schema, spec, keyed, options.parallelism))
        .catalogLoader(catalogLoader())
        .writeParallelism(options.parallelism)
        .append();
    if ("frazil".equals(arm)) {
      // What a Frazil user adds: the partition-key memoizer in the writers and writer keys.
      trial.routingRewrites = FrazilRouting.accelerate(env);
    }

    long native0 = FrazilFlink.nativeDataFiles();
    long delegated0 = FrazilFlink.stockDataFiles();
    // Garbage of the previous trial (and its validation) is collected here, off the clock.
    System.gc();
    trial.loadBefore = os.getSystemLoadAverage();
    JobHeap.Reading heap0 = heap.read();
    long encoder0 = EncoderCpu.nanos();
    long cpu0 = os.getProcessCpuTime();
    long wall0 = System.nanoTime();
    Throwable jobFailure = null;
    String jobId = null;
    try {
      JobExecutionResult result =
          env.execute(
              String.format(Locale.ROOT, "job-dynamic %s %s %s #%d", cell, arm, phase, rep));
      jobId = result.getJobID().toString();
    } catch (Throwable t) {
      jobFailure = t;
      for (Throwable c = t; c != null; c = c.getCause()) {
        if (c instanceof JobExecutionException) {
          jobId = ((JobExecutionException) c).getJobID().toString();
          break;
        }
      }
    }
    long wall1 = System.nanoTime();
    long cpu1 = os.getProcessCpuTime();
    long encoder1 = EncoderCpu.nanos();
    trial.encoderCpuNs = encoder0 < 0 || encoder1 < 0 ? -1 : encoder1 - encoder0;
    JobHeap.Reading heap1 = heap.read();
    trial.loadAfter = os.getSystemLoadAverage();
    trial.nativeFiles = FrazilFlink.nativeDataFiles() - native0;
    trial.delegatedFiles = FrazilFlink.stockDataFiles() - delegated0;
    trial.allocLiveThreads = heap1.liveThreadsSince(heap0);

    long statsStart = System.nanoTime();
    if (jobId == null) {
      trial.checkpoints.error = "no job id (the job did not start)";
    } else {
      trial.checkpoints = JobCheckpoints.read(http, rest, jobId, Duration.ofSeconds(30));
    }
    trial.checkpointStatsMs = (System.nanoTime() - statsStart) / 1_000_000;

    long validateStart = System.nanoTime();
    if (jobFailure != null) {
      trial.failures.add("job failed: " + jobFailure);
      jobFailure.printStackTrace();
    }
    String prefix = "stock".equals(arm) ? "parquet-mr" : "frazil";
    JobCheck check;
    try {
      check = JobCheck.of(table, prefix);
    } catch (Exception e) {
      check = new JobCheck();
      check.fail("validation aborted: %s", e);
      e.printStackTrace();
    }
    trial.check = check;
    trial.failures.addAll(check.failures);
    validate(trial, arm, check);
    if (!trial.checkpoints.complete()) {
      trial.failures.add(trial.checkpoints.error);
    }
    if ("frazil".equals(arm) && trial.nativeFiles > 0 && nativeLibrary.startsWith("not")) {
      nativeLibrary = Guards.describeNativeLibrary(notes);
    }
    trial.validateMs = (System.nanoTime() - validateStart) / 1_000_000;
    if (!options.keepTables) {
      catalog.dropTable(identifier, true);
    }

    Iteration it =
        new Iteration(
            seq,
            COHORT,
            "bid-" + cell,
            options.rows,
            arm,
            phase,
            rep,
            wall1 - wall0,
            cpu1 - cpu0,
            -1,
            heap1.gcAccount - heap0.gcAccount,
            heap1.gcCount - heap0.gcCount,
            heap1.gcMs - heap0.gcMs,
            check.dataBytes,
            check.dataFiles,
            check.footerRows,
            check.rowGroups,
            check.createdBy);
    iterations.add(it);
    trials.put(seq, trial);
    jsonl.write(json(it, trial));
    jsonl.newLine();
    jsonl.flush();
    System.out.printf(
        Locale.ROOT,
        "  %-6s %-8s #%d  wall %7.2f s  cpu %7.2f s  alloc %6.2f GB  gc %3d (%5d ms)  data %6.1f MB"
            + " in %3d files (writers %s)  deletes eq %d / pos %d / dv %d  commits %d  %s"
            + "  (validated in %.1f s)%n",
        arm,
        phase,
        rep,
        it.wallNs / 1e9,
        it.processCpuNs / 1e9,
        it.allocatedBytes / 1e9,
        it.gcCount,
        it.gcMs,
        check.dataBytes / 1048576.0,
        check.dataFiles,
        check.writerSubtasks,
        check.equalityDeleteFiles,
        check.positionDeleteFiles,
        check.deletionVectors,
        check.snapshots,
        trial.valid() ? "OK" : "INVALID: " + String.join(" | ", trial.failures),
        trial.validateMs / 1e3);
    JobCheckpoints ck = trial.checkpoints;
    List<Long> steady = ck.steady(ck.durationMs);
    List<Long> close = ck.steady(ck.closeMs);
    System.out.printf(
        Locale.ROOT,
        "         checkpoints %d completed (%d steady), %d failed; steady: duration p50 %d / max %d"
            + " ms, close p50 %d / max %d ms (read in %.1f s)%n",
        ck.completed,
        steady.size(),
        ck.failed,
        JobCheckpoints.percentile(steady, 0.5),
        JobCheckpoints.max(steady),
        JobCheckpoints.percentile(close, 0.5),
        JobCheckpoints.max(close),
        trial.checkpointStatsMs / 1e3);
  }

  /** The checks beyond the file-level ones in {@link JobCheck}. */
  private void validate(Trial trial, String arm, JobCheck check) {
    if (!check.readBack.matches(expected)) {
      trial.failures.add(
          String.format(
              Locale.ROOT,
              "read back %s, input %s%s",
              check.readBack,
              expected,
              check.readBack.count < expected.count
                  ? " (" + (expected.count - check.readBack.count) + " rows missing)"
                  : ""));
    }
    if (check.manifestRows != expected.count && !trial.keyed) {
      trial.failures.add(
          String.format(
              Locale.ROOT,
              "data files hold %,d rows, input %,d",
              check.manifestRows,
              expected.count));
    }
    if (check.writerSubtasks.size() != options.parallelism) {
      trial.failures.add(
          String.format(
              Locale.ROOT,
              "data files come from writer subtasks %s, expected %d",
              check.writerSubtasks,
              options.parallelism));
    }
    if ("frazil".equals(arm) && trial.routingRewrites != 3) {
      // The dynamic sink, its forward-writer sink and its generator.
      trial.failures.add(
          "FrazilRouting.accelerate rewrote " + trial.routingRewrites + " components, expected 3");
    }
    if ("stock".equals(arm) && trial.nativeFiles != 0) {
      trial.failures.add(trial.nativeFiles + " native data files written for the stock table");
    }
    if ("frazil".equals(arm) && trial.nativeFiles < check.dataFiles) {
      trial.failures.add(
          String.format(
              Locale.ROOT,
              "FrazilFlink.nativeDataFiles() grew by %d for %d committed data files",
              trial.nativeFiles,
              check.dataFiles));
    }
    long arrow = io.frazil.iceberg.ArrowMemory.allocatedBytes();
    long writers = io.frazil.jni.NativeParquetWriter.liveWriterCount();
    if (arrow != 0 || writers != 0) {
      trial.failures.add(
          String.format(
              Locale.ROOT,
              "after the job: %d Arrow bytes still allocated, %d native writers open",
              arrow,
              writers));
    }
  }

  private String json(Iteration it, Trial trial) {
    String base = it.toJson();
    StringBuilder json = new StringBuilder(base.substring(0, base.length() - 1));
    JobCheck c = trial.check;
    json.append(",\"cell\":").append(quote(trial.cell));
    json.append(",\"format_version\":").append(trial.formatVersion);
    json.append(",\"mode\":").append(quote(trial.keyed ? "keyed-upsert-hash" : "forward-append"));
    json.append(",\"table\":").append(quote(trial.table));
    json.append(",\"parallelism\":").append(options.parallelism);
    json.append(",\"checkpoint_ms\":").append(options.checkpointMs);
    json.append(",\"valid\":").append(trial.valid());
    json.append(",\"failures\":[");
    for (int i = 0; i < trial.failures.size(); i++) {
      json.append(i == 0 ? "" : ",").append(quote(trial.failures.get(i)));
    }
    json.append(']');
    json.append(",\"read_back_rows\":").append(c.readBack.count);
    json.append(",\"checksum_ok\":").append(c.readBack.matches(expected));
    json.append(",\"manifest_rows\":").append(c.manifestRows);
    json.append(",\"snapshots\":").append(c.snapshots);
    json.append(",\"writer_subtasks\":").append(quote(String.join(",", c.writerSubtasks)));
    json.append(",\"equality_delete_files\":").append(c.equalityDeleteFiles);
    json.append(",\"equality_delete_rows\":").append(c.equalityDeleteRows);
    json.append(",\"position_delete_files\":").append(c.positionDeleteFiles);
    json.append(",\"position_delete_rows\":").append(c.positionDeleteRows);
    json.append(",\"deletion_vectors\":").append(c.deletionVectors);
    json.append(",\"deletion_vector_rows\":").append(c.deletionVectorRows);
    json.append(",\"delete_bytes\":").append(c.deleteBytes);
    json.append(",\"alloc_gc_account_bytes\":").append(it.allocatedBytes);
    json.append(",\"alloc_live_threads_bytes\":").append(trial.allocLiveThreads);
    json.append(",\"native_data_files\":").append(trial.nativeFiles);
    json.append(",\"delegated_data_files\":").append(trial.delegatedFiles);
    json.append(",\"validate_ms\":").append(trial.validateMs);
    json.append(",\"encoder_cpu_ns\":").append(trial.encoderCpuNs);
    json.append(",\"loadavg_1m_before\":").append(Report.fmt("%.2f", trial.loadBefore));
    json.append(",\"loadavg_1m_after\":").append(Report.fmt("%.2f", trial.loadAfter));
    checkpointJson(json, trial.checkpoints);
    json.append(",\"checkpoint_stats_ms\":").append(trial.checkpointStatsMs);
    return json.append('}').toString();
  }

  /**
   * Flink's checkpoint statistics of the job ({@link JobCheckpoints}): counts, percentiles of the
   * steady checkpoints, and per completed checkpoint (id order) every figure read.
   */
  private static void checkpointJson(StringBuilder json, JobCheckpoints ck) {
    json.append(",\"checkpoints_completed\":").append(ck.completed);
    json.append(",\"checkpoints_failed\":").append(ck.failed);
    json.append(",\"checkpoints_steady\":").append(ck.steady(ck.ids).size());
    json.append(",\"checkpoint_stats_error\":");
    json.append(ck.error == null ? "null" : quote(ck.error));
    json.append(",\"checkpoint_vertices\":").append(quote(ck.vertices));
    Map<String, List<Long>> percentiles = new LinkedHashMap<>();
    percentiles.put("checkpoint", ck.durationMs);
    percentiles.put("close", ck.closeMs);
    percentiles.put("writer_sync", ck.writerSyncMs);
    for (Map.Entry<String, List<Long>> e : percentiles.entrySet()) {
      List<Long> steady = ck.steady(e.getValue());
      json.append(",\"").append(e.getKey()).append("_p50_ms\":");
      json.append(JobCheckpoints.percentile(steady, 0.5));
      json.append(",\"").append(e.getKey()).append("_p99_ms\":");
      json.append(JobCheckpoints.percentile(steady, 0.99));
      json.append(",\"").append(e.getKey()).append("_max_ms\":");
      json.append(JobCheckpoints.max(steady));
    }
    Map<String, List<Long>> series = new LinkedHashMap<>();
    series.put("ckpt_ids", ck.ids);
    series.put("ckpt_steady", ck.steady);
    series.put("ckpt_ms", ck.durationMs);
    series.put("ckpt_close_ms", ck.closeMs);
    series.put("ckpt_writer_sync_ms", ck.writerSyncMs);
    series.put("ckpt_writer_async_ms", ck.writerAsyncMs);
    series.put("ckpt_writer_start_delay_ms", ck.writerStartDelayMs);
    series.put("ckpt_writer_alignment_ms", ck.writerAlignmentMs);
    series.put("ckpt_source_remainder_ms", ck.sourceRemainderMs);
    series.put("ckpt_precommit_remainder_ms", ck.preCommitRemainderMs);
    for (Map.Entry<String, List<Long>> e : series.entrySet()) {
      json.append(",\"").append(e.getKey()).append("\":");
      json.append(JobCheckpoints.jsonArray(e.getValue()));
    }
  }

  private static String quote(String value) {
    StringBuilder out = new StringBuilder(value.length() + 2).append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.append('"').toString();
  }

  private static String bridgeJar() {
    try {
      Path jar =
          Paths.get(FrazilFlink.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return Files.isRegularFile(jar)
          ? jar + " (sha256 " + LoadedLibrary.sha256(jar) + ")"
          : jar + " (a directory)";
    } catch (URISyntaxException | RuntimeException e) {
      return "unknown (" + e + ")";
    }
  }

  // ---------------------------------------------------------------------------------------------

  private boolean writeResults(double seconds) throws IOException {
    List<Iteration> validMeasured = new ArrayList<>();
    List<Integer> invalid = new ArrayList<>();
    for (Iteration it : iterations) {
      Trial trial = trials.get(it.seq);
      if (!trial.valid()) {
        invalid.add(it.seq);
      } else if (it.measured()) {
        validMeasured.add(it);
      }
    }
    List<Report.Cell> cells = Report.cells(validMeasured);
    RunFacts facts = RunFacts.collect();
    String bridge = bridgeAtStart;
    String bridgeAtEnd = bridgeJar();
    if (!bridgeAtEnd.equals(bridgeAtStart)) {
      notes.add(
          "WARNING: the bridge jar on the classpath was replaced during the run; at the start: "
              + bridgeAtStart
              + "; at the end: "
              + bridgeAtEnd);
    }

    StringBuilder md = new StringBuilder();
    md.append("# Stock Iceberg vs Frazil — whole Flink jobs (Dynamic Iceberg Sink)\n\n");
    md.append("| | |\n|---|---|\n");
    facts.appendHeaderRows(md);
    md.append("| native library | ").append(nativeLibrary).append(" |\n");
    md.append("| bridge jar (at start) | ").append(bridge).append(" |\n");
    md.append("| mode | ").append(options.smoke ? "smoke (not a measurement)" : "full");
    md.append(", args `").append(BenchOptions.joinArgs(options.raw)).append("` |\n");
    md.append(
        String.format(
            Locale.ROOT,
            "| plan | %,d rows per job, cells %s, %d warm-up + %d measured (stock, Frazil) pairs"
                + " per cell, seed %d, %.0f s in total |\n",
            options.rows,
            options.cells,
            options.warmupPairs,
            options.pairs,
            options.seed,
            seconds));
    md.append(
        String.format(
            Locale.ROOT,
            "| job | Flink MiniCluster (1 TaskManager, %d slots, shared by all trials, one job per"
                + " trial); sequence source at parallelism 1 → rebalance → row lookup, generator"
                + " and writers at parallelism %d; checkpoints every %d ms (exactly-once); Dynamic"
                + " Iceberg Sink, write parallelism %d; HadoopCatalog on local disk, a fresh table"
                + " per trial |\n",
            options.parallelism,
            options.parallelism,
            options.checkpointMs,
            options.parallelism));
    md.append(
        "| table | Nexmark bid schema, `bucket(auction, 4)`, `write.parquet.compression-codec=zstd`,"
            + " `write.parquet.compression-level=3`, format v2 or v3; stock arm adds"
            + " `write.parquet.frazil.enabled=false` (FrazilFlink.install() ran once for both"
            + " arms); the Frazil arm's job runs through FrazilRouting.accelerate(env) |\n");
    md.append(
        "| cells | *forward*: append, `DynamicRecord` without distribution mode (written by the"
            + " generator's own subtask, no shuffle); *keyed*: upsert on equality fields"
            + " (auction, bidder, date_time), `DistributionMode.HASH` (keyBy partition to the"
            + " writers) |\n");
    md.append(
        String.format(
            Locale.ROOT,
            "| input | Datasets.bids (seed %d), %d date_time values moved by whole microseconds so"
                + " (auction, bidder, date_time) is unique; every trial must read back exactly"
                + " this: %s |\n\n",
            options.seed,
            movedKeys,
            expected));
    double loadMin = Double.MAX_VALUE;
    double loadMax = 0;
    for (Trial trial : trials.values()) {
      loadMin = Math.min(loadMin, Math.min(trial.loadBefore, trial.loadAfter));
      loadMax = Math.max(loadMax, Math.max(trial.loadBefore, trial.loadAfter));
    }
    if (!trials.isEmpty()) {
      md.append(
          String.format(
              Locale.ROOT,
              "Host load (1-minute load average, read before and after each job): %.1f to %.1f on"
                  + " %d cores%s.\n\n",
              loadMin,
              loadMax,
              facts.cores,
              loadMax > facts.cores
                  ? " — other work shared this machine; trust CPU over wall"
                  : ""));
    }
    for (String note : notes) {
      md.append("**").append(note).append("**\n\n");
    }
    if (!invalid.isEmpty()) {
      md.append("**VALIDATION FAILURES: ").append(invalid.size());
      md.append(" trial(s) failed and are left out of the medians (seq ").append(invalid);
      md.append("); see the trial list below and `iterations.jsonl`.**\n\n");
    }
    md.append(
        "Medians of the measured trials that passed validation, [min–max] over them. Ratios are"
            + " stock / Frazil of the medians (> 1 means Frazil is faster or cheaper), bracketed"
            + " by the extreme range (stock min / Frazil max … stock max / Frazil min); allocation"
            + " is Frazil / stock.\n\n");
    md.append(table(cells));
    md.append(checkpointTable(cells));
    md.append(trialList());
    md.append(
        "Columns: *wall* = `System.nanoTime()` around `env.execute()` (job submission,"
            + " scheduling, all rows through source, lookup, generator and writers, periodic"
            + " checkpoints with their commits, the final checkpoint and commit); *process CPU* ="
            + " `OperatingSystemMXBean.getProcessCpuTime()` over the same interval (every thread"
            + " of the JVM: Flink, writers, Frazil's Rust threads, JIT, GC); *alloc* = Java heap"
            + " allocated by the whole process in that interval, GC account (heap used after −"
            + " heap used before + heap freed by the collections in between; native and Arrow"
            + " off-heap memory not included; `alloc_live_threads_bytes` in `iterations.jsonl`"
            + " is the per-thread counter summed over threads alive at the end, which misses"
            + " Flink's finished task threads and is only a floor); *data MB / files* = the live"
            + " data files of the final snapshot; *deletes* = live delete files eq / pos / DV;"
            + " *commits* = snapshots the sink committed; *M rows/s* from the median wall time;"
            + " *native encoder CPU* = CPU of the `frazil-encoder-N` threads during the job"
            + " (`/proc/self/task`, 10 ms ticks; part of process CPU): the Frazil writer's encoding,"
            + " apart from its row-to-Arrow copy on the task threads.\n");
    Files.writeString(options.out.resolve("results.md"), md.toString(), StandardCharsets.UTF_8);

    if (!cells.isEmpty()) {
      String subtitle =
          String.format(
              Locale.ROOT,
              "Flink jobs, Dynamic Iceberg Sink, %,d rows, p=%d, %d ms checkpoints; %s, %d"
                  + " cores, %.10s%s",
              options.rows,
              options.parallelism,
              options.checkpointMs,
              facts.now.substring(0, 10),
              facts.cores,
              facts.commit,
              options.smoke ? ", SMOKE run, not a measurement" : "");
      Report.writeSvg(options.out.resolve("ratios.svg"), cells, subtitle);
    }

    boolean copied =
        facts.writeRunFiles(
            options.out,
            options.raw,
            RunFacts.labels("native library", nativeLibrary, "bridge jar", bridge));

    System.out.println();
    System.out.print(table(cells));
    System.out.print(checkpointTable(cells));
    System.out.printf(
        "%d trials, %d failed validation, %.0f s; results in %s%n",
        iterations.size(), invalid.size(), seconds, options.out);
    return invalid.isEmpty();
  }

  /** The steady checkpoints' figures ({@link JobCheckpoints}) of {@code its}, pooled. */
  private List<Long> pooled(List<Iteration> its, Function<JobCheckpoints, List<Long>> series) {
    List<Long> out = new ArrayList<>();
    for (Iteration it : its) {
      JobCheckpoints ck = trials.get(it.seq).checkpoints;
      out.addAll(ck.steady(series.apply(ck)));
    }
    return out;
  }

  /**
   * Flink's checkpoint statistics per cell and arm, and the target "Frazil's checkpoint durations
   * are not longer than stock's" (met when Frazil's pooled p50 and p99 are each at most stock's).
   */
  private String checkpointTable(List<Report.Cell> cells) {
    StringBuilder md = new StringBuilder();
    md.append("## Checkpoints (Flink's statistics, REST API)\n\n");
    md.append(
        "Steady checkpoints (completed, triggered while the writers were still receiving rows:"
            + " before the source ended, its final checkpoint excluded) of the measured trials that"
            + " passed validation, pooled per cell and arm; nearest-rank percentiles, ms. Ratios"
            + " are stock / Frazil (> 1: Frazil's are shorter).\n\n");
    md.append(
        "| cell | arm | jobs | completed (steady) / failed | rows per close"
            + " | checkpoint p50 / p99 / max | close p50 / p99 / max | writer sync p50 / p99 / max"
            + " | writer start delay p50 / max | source remainder p50 / max"
            + " | pre-commit remainder p50 / max | checkpoint p50 stock/Frazil"
            + " | checkpoint max stock/Frazil | close p50 stock/Frazil | close max stock/Frazil |\n");
    md.append("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    List<String> verdicts = new ArrayList<>();
    boolean met = true;
    boolean evaluated = false;
    for (Report.Cell cell : cells) {
      checkpointRow(md, cell, cell.stock, null);
      checkpointRow(md, cell, cell.frazil, cell);
      List<Long> stock = pooled(cell.stock, ck -> ck.durationMs);
      List<Long> frazil = pooled(cell.frazil, ck -> ck.durationMs);
      if (stock.isEmpty() || frazil.isEmpty()) {
        verdicts.add(cell.schema + ": no steady checkpoints in one arm, not evaluated");
        continue;
      }
      evaluated = true;
      long s50 = JobCheckpoints.percentile(stock, 0.5);
      long f50 = JobCheckpoints.percentile(frazil, 0.5);
      long s99 = JobCheckpoints.percentile(stock, 0.99);
      long f99 = JobCheckpoints.percentile(frazil, 0.99);
      boolean cellMet = f50 <= s50 && f99 <= s99;
      met &= cellMet;
      verdicts.add(
          String.format(
              Locale.ROOT,
              "%s %s (Frazil vs stock: p50 %d vs %d ms, p99 %d vs %d ms, max %d vs %d ms; %d vs %d"
                  + " steady checkpoints)",
              cell.schema,
              cellMet ? "met" : "not met",
              f50,
              s50,
              f99,
              s99,
              JobCheckpoints.max(frazil),
              JobCheckpoints.max(stock),
              frazil.size(),
              stock.size()));
    }
    md.append('\n');
    md.append("**Target \"Frazil's checkpoint durations are not longer than stock's\"");
    md.append(" (Frazil's p50 and p99 each ≤ stock's, per cell): ");
    md.append(!evaluated ? "NOT EVALUATED" : met ? "MET" : "NOT MET").append("**");
    if (options.smoke) {
      md.append(" (smoke run: not a measurement)");
    }
    md.append(" — ").append(String.join("; ", verdicts)).append(".\n\n");
    md.append(
        "Columns: *checkpoint* = Flink's `end_to_end_duration` of a completed checkpoint (trigger"
            + " to the last acknowledgement at the JobManager); *close* = per checkpoint, the"
            + " slowest writer subtask's `end_to_end_duration − start_delay − alignment − sync −"
            + " async`: the time from the barrier's alignment to the acknowledgement that Flink"
            + " does not itemise, i.e. the operators' `prepareSnapshotPreBarrier` (where the"
            + " Dynamic Iceberg Sink's writer runs `TaskWriter.complete()`, closing every open"
            + " data and delete file, and emits the write results) plus forwarding the barrier"
            + " and the acknowledgement's trip to the JobManager; *writer sync* = Flink's"
            + " `sync` of the writer subtasks (slowest per checkpoint): the operators'"
            + " `snapshotState`, which Flink times only after the pre-barrier step, so it does"
            + " not include closing files; *writer start delay* = trigger to the barrier reaching"
            + " the writer (slowest subtask), which grows with the records queued ahead of the"
            + " barrier; *source remainder* = the same remainder as *close* for the source,"
            + " which has no pre-barrier work (the acknowledgement overhead); *pre-commit"
            + " remainder* = the same for the sink's aggregator, which writes the checkpoint's"
            + " manifests; *rows per close* = rows / (steady checkpoints + 1) per job, median"
            + " (each steady checkpoint and the end of input close a round of files). Every"
            + " completed checkpoint's figures, steady or not, are in `iterations.jsonl`"
            + " (`ckpt_*`).\n\n");
    return md.toString();
  }

  private void checkpointRow(
      StringBuilder md, Report.Cell cell, List<Iteration> its, Report.Cell ratios) {
    List<Long> duration = pooled(its, ck -> ck.durationMs);
    List<Long> close = pooled(its, ck -> ck.closeMs);
    long completed = 0;
    long failed = 0;
    double[] rowsPerClose = new double[its.size()];
    for (int i = 0; i < its.size(); i++) {
      JobCheckpoints ck = trials.get(its.get(i).seq).checkpoints;
      completed += ck.completed;
      failed += ck.failed;
      rowsPerClose[i] = cell.rows / (ck.steady(ck.ids).size() + 1.0);
    }
    md.append("| ").append(cell.schema);
    md.append(" | ").append(its.get(0).arm);
    md.append(" | ").append(its.size());
    md.append(" | ").append(completed).append(" (").append(duration.size()).append(") / ");
    md.append(failed);
    md.append(" | ").append(Report.fmt("%,.0f", new Report.Stat(rowsPerClose).median));
    md.append(" | ").append(triple(duration));
    md.append(" | ").append(triple(close));
    md.append(" | ").append(triple(pooled(its, ck -> ck.writerSyncMs)));
    md.append(" | ").append(pair(pooled(its, ck -> ck.writerStartDelayMs)));
    md.append(" | ").append(pair(pooled(its, ck -> ck.sourceRemainderMs)));
    md.append(" | ").append(pair(pooled(its, ck -> ck.preCommitRemainderMs)));
    if (ratios == null) {
      md.append(" | | | | |\n");
      return;
    }
    List<Long> stockDuration = pooled(ratios.stock, ck -> ck.durationMs);
    List<Long> stockClose = pooled(ratios.stock, ck -> ck.closeMs);
    md.append(" | **").append(ratio(stockDuration, duration, 0.5)).append("**");
    md.append(" | ").append(ratio(stockDuration, duration, 1.0));
    md.append(" | **").append(ratio(stockClose, close, 0.5)).append("**");
    md.append(" | ").append(ratio(stockClose, close, 1.0));
    md.append(" |\n");
  }

  private static String triple(List<Long> values) {
    if (values.isEmpty()) {
      return "n/a";
    }
    return JobCheckpoints.percentile(values, 0.5)
        + " / "
        + JobCheckpoints.percentile(values, 0.99)
        + " / "
        + JobCheckpoints.max(values);
  }

  private static String pair(List<Long> values) {
    if (values.isEmpty()) {
      return "n/a";
    }
    return JobCheckpoints.percentile(values, 0.5) + " / " + JobCheckpoints.max(values);
  }

  /** stock / Frazil of one percentile; n/a when either is missing or Frazil's is 0. */
  private static String ratio(List<Long> stock, List<Long> frazil, double p) {
    long s = JobCheckpoints.percentile(stock, p);
    long f = JobCheckpoints.percentile(frazil, p);
    return s < 0 || f <= 0 ? "n/a" : Report.times((double) s / f);
  }

  private String table(List<Report.Cell> cells) {
    StringBuilder md = new StringBuilder();
    md.append("## Cohort `").append(COHORT).append("`: whole Flink job, stock vs Frazil\n\n");
    md.append(
        "| cell | arm | n | wall s, median [min–max] | process CPU s, median [min–max]"
            + " | CPU s / M rows | alloc GB | data MB | data files | deletes eq/pos/DV"
            + " | commits | M rows/s | native encoder CPU s | wall stock/Frazil"
            + " | CPU stock/Frazil | alloc Frazil/stock |\n");
    md.append("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for (Report.Cell cell : cells) {
      row(md, cell, cell.stock, null);
      row(md, cell, cell.frazil, cell);
    }
    md.append('\n');
    return md.toString();
  }

  private void row(StringBuilder md, Report.Cell cell, List<Iteration> its, Report.Cell ratios) {
    Report.Stat wall = Report.stat(its, i -> i.wallNs / 1e9);
    Report.Stat cpu = Report.stat(its, i -> i.processCpuNs / 1e9);
    Report.Stat alloc = Report.stat(its, i -> i.allocatedBytes);
    Report.Stat out = Report.stat(its, i -> i.outputBytes);
    Report.Stat files = Report.stat(its, i -> i.fileCount);
    Report.Stat eq = Report.stat(its, i -> trials.get(i.seq).check.equalityDeleteFiles);
    Report.Stat pos = Report.stat(its, i -> trials.get(i.seq).check.positionDeleteFiles);
    Report.Stat dv = Report.stat(its, i -> trials.get(i.seq).check.deletionVectors);
    Report.Stat commits = Report.stat(its, i -> trials.get(i.seq).check.snapshots);
    md.append("| ").append(cell.schema);
    md.append(" | ").append(its.get(0).arm);
    md.append(" | ").append(its.size());
    md.append(" | ").append(range(wall, "%.2f"));
    md.append(" | ").append(range(cpu, "%.2f"));
    md.append(" | ").append(Report.fmt("%.2f", cpu.median / (cell.rows / 1e6)));
    md.append(" | ").append(Report.fmt("%.2f", alloc.median / 1e9));
    md.append(" | ").append(Report.fmt("%.1f", out.median / (1 << 20)));
    md.append(" | ").append(Report.fmt("%.0f", files.median));
    md.append(" | ")
        .append(Report.fmt("%.0f", eq.median))
        .append('/')
        .append(Report.fmt("%.0f", pos.median))
        .append('/')
        .append(Report.fmt("%.0f", dv.median));
    md.append(" | ").append(Report.fmt("%.0f", commits.median));
    md.append(" | ").append(Report.fmt("%.2f", cell.rows / wall.median / 1e6));
    Report.Stat encoder = Report.stat(its, i -> trials.get(i.seq).encoderCpuNs / 1e9);
    md.append(" | ").append(encoder.min < 0 ? "n/a" : range(encoder, "%.2f"));
    if (ratios == null) {
      md.append(" | | | |\n");
    } else {
      Report.Ratio w = ratios.wall();
      Report.Ratio c = ratios.cpu();
      double allocStock = Report.stat(ratios.stock, i -> i.allocatedBytes).median;
      md.append(" | **").append(Report.times(w.median)).append("** ").append(ratioRange(w));
      md.append(" | **").append(Report.times(c.median)).append("** ").append(ratioRange(c));
      md.append(" | ").append(Report.fmt("%.1f%%", 100.0 * alloc.median / allocStock));
      md.append(" |\n");
    }
  }

  /** Every trial in run order, warm-ups and failures included. */
  private String trialList() {
    StringBuilder md = new StringBuilder();
    md.append("### Every trial (run order)\n\n");
    md.append(
        "| seq | cell | arm | phase | wall s | CPU s | alloc GB | GCs | data MB | files | writers"
            + " | eq/pos/DV | commits | read back | checkpoints steady/failed | checkpoint ms p50/max"
            + " | close ms p50/max | load 1m before→after | validation |\n");
    md.append("|--:|---|---|---|--:|--:|--:|--:|--:|--:|---|---|--:|--:|--:|--:|--:|--:|---|\n");
    for (Iteration it : iterations) {
      Trial trial = trials.get(it.seq);
      JobCheck c = trial.check;
      md.append(
          String.format(
              Locale.ROOT,
              "| %d | %s | %s | %s #%d | %.2f | %.2f | %.2f | %d | %.1f | %d | %s | %d/%d/%d | %d"
                  + " | %,d | %d/%d | %s | %s | %.1f→%.1f | %s |\n",
              it.seq,
              trial.cell,
              it.arm,
              it.phase,
              it.rep,
              it.wallNs / 1e9,
              it.processCpuNs / 1e9,
              it.allocatedBytes / 1e9,
              it.gcCount,
              it.outputBytes / 1048576.0,
              it.fileCount,
              String.join(",", c.writerSubtasks),
              c.equalityDeleteFiles,
              c.positionDeleteFiles,
              c.deletionVectors,
              c.snapshots,
              c.readBack.count,
              trial.checkpoints.steady(trial.checkpoints.ids).size(),
              trial.checkpoints.failed,
              pair(trial.checkpoints.steady(trial.checkpoints.durationMs)).replace(" ", ""),
              pair(trial.checkpoints.steady(trial.checkpoints.closeMs)).replace(" ", ""),
              trial.loadBefore,
              trial.loadAfter,
              trial.valid()
                  ? "ok"
                  : "**FAILED**: " + String.join("; ", trial.failures).replace("|", "\\|")));
    }
    md.append('\n');
    return md.toString();
  }

  private static String range(Report.Stat stat, String format) {
    return Report.fmt(format, stat.median)
        + " ["
        + Report.fmt(format, stat.min)
        + "–"
        + Report.fmt(format, stat.max)
        + "]";
  }

  private static String ratioRange(Report.Ratio ratio) {
    return "[" + Report.fmt("%.2f", ratio.low) + "–" + Report.fmt("%.2f", ratio.high) + "]";
  }
}

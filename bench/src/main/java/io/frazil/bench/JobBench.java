package io.frazil.bench;

import com.sun.management.OperatingSystemMXBean;
import io.frazil.exchange.ArrowBatch;
import io.frazil.flink.FrazilFlink;
import io.frazil.flink.routing.FrazilRouting;
import io.frazil.iceberg.FrazilParquetAppender;
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
import java.util.concurrent.Callable;
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
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Whole Flink jobs, stock Iceberg against Frazil (bench/README.md, "Whole-job cohort").
 *
 * <p>One JVM, one MiniCluster (1 TaskManager, {@code parallelism} slots) shared by every trial;
 * each trial is its own job into a fresh bucket(auction, 4) table of a local Hadoop catalog: a
 * parallelism-1 sequence source, a rebalance to {@code parallelism} subtasks that look up the
 * pre-built bid rows, and the Dynamic Iceberg Sink at write parallelism {@code parallelism}, with
 * periodic checkpoints. The clock runs from {@code env.execute()} to its return, so it includes the
 * checkpoints and the final commit. The stock and Frazil (RowData) arms differ only by the table
 * property {@code write.parquet.frazil.enabled=false} on the stock arm's table ({@link
 * FrazilFlink#install()} runs once for all arms) and {@link FrazilRouting#accelerate}; the Frazil
 * Arrow arm carries Arrow batches from the source on ({@link JobArrow}). After each trial, off the
 * clock, the committed table is validated (row checksum through Iceberg's reader, footers, writer
 * subtasks, native counters, native resources); a trial that fails validation is kept in {@code
 * iterations.jsonl}, left out of the medians, listed in {@code results.md} ({@link JobReport}), and
 * makes the run exit non-zero.
 */
@Command(
    name = "JobBench",
    mixinStandardHelpOptions = true,
    versionProvider = BenchCli.Version.class,
    showDefaultValues = true,
    sortOptions = false,
    description = {
      "Whole Flink jobs through the Dynamic Iceberg Sink on a MiniCluster, stock against Frazil"
          + " (RowData) and Frazil Arrow end to end (bench/README.md, \"Whole-job cohort\")."
    })
public final class JobBench implements Callable<Integer> {
  static final String COHORT = "job-dynamic";
  static final String CATALOG = "bench";
  static final String DATABASE = "db";
  static final int BUCKETS = 4;
  static final List<String> ALL_CELLS = List.of("v2-forward", "v2-keyed", "v3-forward", "v3-keyed");

  /**
   * Stock Iceberg, Frazil on RowData, Frazil with Arrow batches from the source ({@link JobArrow}).
   */
  static final List<String> ALL_ARMS = List.of("stock", "frazil", "frazil-arrow");

  static final String ARROW = "frazil-arrow";

  /**
   * {@code web.checkpoints.history}: checkpoints whose statistics the JobManager keeps per job
   * (Flink's default, 10, would drop all but a job's last ten).
   */
  static final int CHECKPOINT_HISTORY = 1000;

  @Spec CommandSpec cli;

  @Option(
      names = "--out",
      required = true,
      paramLabel = "DIR",
      converter = BenchCli.AbsolutePath.class,
      description = "Where iterations.jsonl, results.md, ratios.svg go.")
  Path out;

  @Option(
      names = "--smoke",
      description =
          "20,000 rows, 0 warm-up pairs, 1 measured pair, all four cells, 200 ms checkpoints"
              + " (flags given with it still win): checks the harness, not a measurement.")
  boolean smoke;

  @Option(
      names = "--rows",
      paramLabel = "N",
      defaultValue = "2000000",
      converter = BenchCli.Positive.class,
      description = "Input rows per job.")
  int rows;

  @Option(
      names = "--pairs",
      paramLabel = "N",
      defaultValue = "3",
      converter = BenchCli.Positive.class,
      description = "Measured pairs (one trial of every arm) per cell.")
  int pairs;

  @Option(
      names = "--warmup-pairs",
      paramLabel = "N",
      defaultValue = "1",
      converter = BenchCli.NonNegative.class,
      description = "Warm-up pairs per cell, recorded but not summarised.")
  int warmupPairs;

  @Option(
      names = "--cells",
      split = ",",
      paramLabel = "CELL",
      defaultValue = "v2-forward,v2-keyed,v3-forward,v3-keyed",
      description = "Of v2-forward, v2-keyed, v3-forward, v3-keyed.")
  List<String> cells;

  @Option(
      names = "--arms",
      split = ",",
      paramLabel = "ARM",
      defaultValue = "stock,frazil,frazil-arrow",
      description =
          "Of stock, frazil, frazil-arrow; run in this order within each pair (a 'pair' is one"
              + " trial of every arm).")
  List<String> arms;

  @Option(
      names = "--arrow-forward-split",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true",
      description =
          "Frazil Arrow arm, forward cells: split each batch by bucket in the source step, so the"
              + " writers get one-bucket batches (--no-arrow-forward-split: whole batches).")
  boolean arrowForwardSplit;

  @Option(
      names = "--checkpoint-ms",
      paramLabel = "MS",
      defaultValue = "1000",
      converter = BenchCli.Positive.class,
      description = "Checkpoint interval.")
  int checkpointMs;

  @Option(
      names = "--parallelism",
      paramLabel = "N",
      defaultValue = "2",
      converter = BenchCli.Positive.class,
      description = "Writer parallelism and task slots.")
  int parallelism;

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
      description = "Where the Hadoop-catalog warehouse goes.")
  Path tmp;

  @Option(
      names = "--keep-tables",
      description = "Do not drop each trial's table after it is validated.")
  boolean keepTables;

  private final OperatingSystemMXBean os =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private final JobHeap heap = new JobHeap();
  private final List<Iteration> iterations = new ArrayList<>();
  private final Map<Integer, JobTrial> trials = new LinkedHashMap<>();
  final List<String> notes = new ArrayList<>();
  private BufferedWriter jsonl;
  private Path warehouse;
  private MiniCluster cluster;
  private URI rest;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  JobRows.Checksum expected;
  int movedKeys;
  String nativeLibrary = "not loaded (no Frazil trial ran)";
  String bridgeAtStart;

  public static void main(String[] args) {
    BenchCli.main(args, new JobBench());
  }

  @Override
  public Integer call() throws Exception {
    resolve();
    return run() ? 0 : 1;
  }

  /** Applies --smoke to the options not given with it, and checks the names in the lists. */
  void resolve() {
    if (smoke) {
      // The smoke plan replaces the defaults, not the flags given with it.
      rows = BenchCli.given(cli, "--rows") ? rows : 20_000;
      pairs = BenchCli.given(cli, "--pairs") ? pairs : 1;
      warmupPairs = BenchCli.given(cli, "--warmup-pairs") ? warmupPairs : 0;
      checkpointMs = BenchCli.given(cli, "--checkpoint-ms") ? checkpointMs : 200;
    }
    cells = BenchCli.oneOf(cli, "--cells", cells, ALL_CELLS);
    arms = BenchCli.oneOf(cli, "--arms", arms, ALL_ARMS);
  }

  /** The plan, as the run prints it. */
  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "rows=%d pairs=%d warmupPairs=%d cells=%s arms=%s arrowForwardSplit=%s checkpointMs=%d"
            + " parallelism=%d seed=%d tmp=%s keepTables=%s",
        rows,
        pairs,
        warmupPairs,
        cells,
        arms,
        arrowForwardSplit,
        checkpointMs,
        parallelism,
        seed,
        tmp,
        keepTables);
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
    Files.createDirectories(out);
    Files.createDirectories(tmp);
    this.warehouse = Files.createTempDirectory(tmp, "frazil-jobbench-");
    System.out.printf(
        "JobBench %s%n  %s%n  out %s%n  warehouse %s%n",
        smoke ? "(smoke)" : "", this, out, warehouse);

    long buildStart = System.nanoTime();
    this.movedKeys = JobRows.build(rows, seed);
    this.expected = JobRows.checksum(JobRows.input());
    String inUse = Guards.fixtureHeap("the input rows", notes);
    System.out.printf(
        "built %,d bid rows in %.1f s (%d date_time values moved by microseconds to make"
            + " (auction, bidder, date_time) unique; %s); input %s%n",
        JobRows.input().size(), (System.nanoTime() - buildStart) / 1e9, movedKeys, inUse, expected);
    if (arms.contains(ARROW)) {
      long arrowStart = System.nanoTime();
      int batches = JobArrow.build(JobRows.input());
      System.out.printf(
          "built %d Arrow batches of up to %,d rows in %.1f s (%.1f MB off-heap)%n",
          batches,
          io.frazil.flink.arrow.ArrowStreams.DEFAULT_BATCH_ROWS,
          (System.nanoTime() - arrowStart) / 1e9,
          JobArrow.prebuiltBytes() / 1048576.0);
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
                .setNumSlotsPerTaskManager(parallelism)
                .withRandomPorts()
                .build());
    cluster.start();
    this.rest = cluster.getRestAddress().get();
    try (BufferedWriter lines =
        Files.newBufferedWriter(out.resolve("iterations.jsonl"), StandardCharsets.UTF_8)) {
      this.jsonl = lines;
      for (String cell : cells) {
        int version = cell.startsWith("v3") ? 3 : 2;
        boolean keyed = cell.endsWith("keyed");
        System.out.printf(
            "%n[%s] %d warm-up + %d measured pairs, alternating %s%n",
            cell, warmupPairs, pairs, String.join(", ", arms));
        for (int rep = 0; rep < warmupPairs; rep++) {
          for (String arm : arms) {
            trial(cell, version, keyed, arm, "warmup", rep);
          }
        }
        for (int rep = 0; rep < pairs; rep++) {
          for (String arm : arms) {
            trial(cell, version, keyed, arm, "measured", rep);
          }
        }
      }
    } finally {
      cluster.close();
      JobArrow.close();
      if (!keepTables) {
        RunFacts.deleteTree(warehouse);
      }
    }
    return new JobReport(this, iterations, trials).write((System.nanoTime() - started) / 1e9);
  }

  /**
   * Expected warnings of short bounded MiniCluster jobs (declined checkpoints of finishing tasks,
   * IcebergSink's duplicate committer metric, no Hadoop config or Dropwizard, no web log file),
   * with stack traces on every trial: raised to ERROR here so the bench's output stays readable.
   * The writer loggers {@link Guards#loggingIsQuiet()} checks are not touched; Iceberg's commit
   * retries ({@code org.apache.iceberg.util.Tasks}) stay visible.
   */
  static void quietFlinkRuntimeLoggers() {
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
        String.format(
            Locale.ROOT,
            "t%03d_v%d_%s_%s",
            seq,
            version,
            keyed ? "keyed" : "fwd",
            arm.replace('-', '_'));
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
    JobTrial trial = new JobTrial(cell, version, keyed, tableName, mode(arm, keyed));

    StreamExecutionEnvironment env = new TestStreamEnvironment(cluster, parallelism);
    env.enableCheckpointing(checkpointMs, CheckpointingMode.EXACTLY_ONCE);
    // One source subtask (Iceberg 1.11 on Flink 2.1 can lose rows when parallel bounded source
    // subtasks finish at different times); the rebalance puts the row lookup, the generator and
    // (forward cells) the writers on `parallelism` subtasks.
    if (ARROW.equals(arm)) {
      JobArrow.addJob(
          env,
          parallelism,
          keyed,
          arrowForwardSplit,
          spec,
          new JobRows.Generator(identifier, schema, spec, keyed, parallelism, false),
          catalogLoader());
    } else {
      DataStream<RowData> input =
          env.fromSequence(0, JobRows.input().size() - 1)
              .setParallelism(1)
              .name("sequence")
              .rebalance()
              .map(new JobRows.Lookup())
              .setParallelism(parallelism)
              .name("bid rows")
              .returns(InternalTypeInfo.of(FlinkSchemaUtil.convert(schema)));
      DynamicIcebergSink.forInput(input)
          .generator(new JobRows.Generator(identifier, schema, spec, keyed, parallelism, true))
          .catalogLoader(catalogLoader())
          .writeParallelism(parallelism)
          .append();
    }
    if (!"stock".equals(arm)) {
      // What a Frazil user adds: the partition-key memoizer in the writers and writer keys.
      trial.routingRewrites = FrazilRouting.accelerate(env);
    }

    long unclosed0 = ArrowBatch.releasedUnclosed();
    long sliced0 = FrazilParquetAppender.slicedRows();
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
    trial.batchesLeftToCleaner = ArrowBatch.releasedUnclosed() - unclosed0;
    trial.slicedRows = FrazilParquetAppender.slicedRows() - sliced0;

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
    if (!"stock".equals(arm) && trial.nativeFiles > 0 && nativeLibrary.startsWith("not")) {
      nativeLibrary = Guards.describeNativeLibrary(notes);
    }
    trial.validateMs = (System.nanoTime() - validateStart) / 1_000_000;
    if (!keepTables) {
      catalog.dropTable(identifier, true);
    }

    Iteration it =
        new Iteration(
            seq,
            COHORT,
            "bid-" + cell,
            rows,
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
    jsonl.write(trial.toJson(it, parallelism, checkpointMs, expected));
    jsonl.newLine();
    jsonl.flush();
    System.out.printf(
        Locale.ROOT,
        "  %-6s %-8s #%d  wall %7.2f s  cpu %7.2f s  alloc %6.2f GB  gc %3d (%5d ms)  data %6.1f MB"
            + " in %3d files (writers %s)  deletes eq %d / pos %d / dv %d  commits %d  sliced rows"
            + " %d  %s  (validated in %.1f s)%n",
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
        trial.slicedRows,
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
  private void validate(JobTrial trial, String arm, JobCheck check) {
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
    if (check.writerSubtasks.size() != parallelism) {
      trial.failures.add(
          String.format(
              Locale.ROOT,
              "data files come from writer subtasks %s, expected %d",
              check.writerSubtasks,
              parallelism));
    }
    if (trial.keyed) {
      // Hash distribution (RowData arms) and the Arrow arm's split + partitioning both send all
      // rows of a bucket to one writer subtask.
      check.writersByPartition.forEach(
          (partition, writers) -> {
            if (writers.size() != 1) {
              trial.failures.add(
                  "partition "
                      + partition
                      + " written by writer subtasks "
                      + writers
                      + ", not one");
            }
          });
    }
    if (!"stock".equals(arm) && trial.routingRewrites != 3) {
      // The dynamic sink, its forward-writer sink and its generator.
      trial.failures.add(
          "FrazilRouting.accelerate rewrote " + trial.routingRewrites + " components, expected 3");
    }
    if ("stock".equals(arm) && trial.nativeFiles != 0) {
      trial.failures.add(trial.nativeFiles + " native data files written for the stock table");
    }
    if (!"stock".equals(arm) && trial.nativeFiles < check.dataFiles) {
      trial.failures.add(
          String.format(
              Locale.ROOT,
              "FrazilFlink.nativeDataFiles() grew by %d for %d committed data files",
              trial.nativeFiles,
              check.dataFiles));
    }
    if (ARROW.equals(arm)) {
      JobArrow.validate(trial);
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

  /** What iterations.jsonl calls a cell's write path. */
  String mode(String arm, boolean keyed) {
    boolean arrow = ARROW.equals(arm);
    if (!keyed) {
      return arrow && arrowForwardSplit ? "forward-append-split" : "forward-append";
    }
    return arrow ? "keyed-upsert-split" : "keyed-upsert-hash";
  }

  /** The bridge jar the JVM loaded Frazil from, with its SHA-256. */
  static String bridgeJar() {
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
}

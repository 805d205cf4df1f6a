package io.frazil.bench;

import io.frazil.flink.FrazilFlink;
import io.frazil.iceberg.ArrowMemory;
import io.frazil.jni.NativeParquetReader;
import io.frazil.read.ReadCounters;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.formats.ReadBuilder;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.InputFile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Stock Iceberg's Flink Parquet reader against Frazil's native reader (bench/README.md, "Read
 * cohort"), in one JVM, over files written once up front by stock Iceberg (zstd 3).
 *
 * <p>File cells ({@code scan}: every column; {@code project}: 2 of N; {@code filtered}: a predicate
 * that prunes most row groups of a file written with small row groups): warm-ups then measured
 * repetitions alternating stock, Frazil. The timed region builds the reader through {@code
 * FormatModelRegistry.readBuilder} with the settings {@code RowDataFileScanTaskReader} passes
 * (project, split, case sensitivity, filter, reuseContainers), reads every row, touches every
 * projected field ({@link ReadConsumer}) and closes it. The stock arm runs with Frazil uninstalled
 * (Iceberg's own model in the registry), the Frazil arm with it installed. Per iteration: wall,
 * process and thread CPU, thread allocation, GC, RSS (sampled every 10 ms). Guards: same row count
 * and checksum in both arms; the Frazil arm's file was read natively, the stock arm's was not.
 * Optional child-JVM RSS trials (one JVM per arm) and job cells ({@link ReadJobs}).
 */
@Command(
    name = "ReadBench",
    mixinStandardHelpOptions = true,
    versionProvider = BenchCli.Version.class,
    showDefaultValues = true,
    sortOptions = false,
    description = {
      "Stock Iceberg's Flink Parquet reader against Frazil's native reader: file scans,"
          + " projections and filtered scans, child-JVM RSS trials, and IcebergSource jobs"
          + " (bench/README.md, \"Read cohort\")."
    })
public final class ReadBench implements Callable<Integer> {
  static final List<String> ALL_SCHEMAS = List.of("bid", "wide", "nested");
  static final List<String> ALL_CELLS = List.of("scan", "project", "filtered");

  /** The two columns of the {@code project} cell, per schema. */
  static final Map<String, List<String>> PROJECTED =
      Map.of(
          "bid", List.of("auction", "url"),
          "wide", List.of("user_id", "event_type"),
          "nested", List.of("id", "tags"));

  /** The column of the {@code filtered} cell's predicate (ascending in the file), per schema. */
  static final Map<String, String> FILTER_COLUMN =
      Map.of("bid", "date_time", "wide", "id", "nested", "id");

  /** Row groups the filtered cell's file is written with (row-group size = file size / this). */
  static final int FILTER_ROW_GROUPS = 20;

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
          "20,000 rows, 1 warm-up, 2 reps, every schema and cell, one RSS trial pair (first"
              + " schema, scan), both job"
              + " cells on 20,000 rows with 0 warm-up + 1 measured pair (flags given with it still"
              + " win): checks the harness, not a measurement.")
  boolean smoke;

  @Option(
      names = "--rows",
      split = ",",
      paramLabel = "N",
      defaultValue = "262144,2000000",
      converter = BenchCli.Positive.class,
      description = "Row counts per file.")
  List<Integer> rows;

  @Option(
      names = "--warmups",
      paramLabel = "N",
      defaultValue = "2",
      converter = BenchCli.NonNegative.class,
      description = "Warm-up iterations per arm per cell.")
  int warmups;

  @Option(
      names = "--reps",
      paramLabel = "N",
      defaultValue = "5",
      converter = BenchCli.Positive.class,
      description = "Measured iterations per arm per cell.")
  int reps;

  @Option(
      names = "--reps-at",
      split = ",",
      paramLabel = "ROWS=N",
      defaultValue = "2000000=3",
      converter = {BenchCli.Positive.class, BenchCli.Positive.class},
      description = "Measured iterations for cells of ROWS rows, instead of --reps.")
  Map<Integer, Integer> repsAt;

  @Option(
      names = "--schemas",
      split = ",",
      paramLabel = "NAME",
      defaultValue = "bid,wide,nested",
      description = "Of bid, wide, nested.")
  List<String> schemas;

  @Option(
      names = "--cells",
      split = ",",
      paramLabel = "CELL",
      defaultValue = "scan,project,filtered",
      description = "File cells, of scan, project, filtered.")
  List<String> cells;

  @Option(
      names = "--rss-trials",
      paramLabel = "N",
      defaultValue = "2",
      converter = BenchCli.NonNegative.class,
      description =
          "Child-JVM RSS trials per arm for each schema's scan and project at the largest size"
              + " (0: none). Each child reads the file --rss-reads times; its VmHWM is its peak.")
  int rssTrials;

  @Option(
      names = "--rss-reads",
      paramLabel = "N",
      defaultValue = "3",
      converter = BenchCli.Positive.class,
      description = "Reads of the file in each RSS child JVM.")
  int rssReads;

  @Option(
      names = "--rss-heap",
      paramLabel = "SIZE",
      defaultValue = "2g",
      converter = BenchCli.HeapSize.class,
      description = "-Xms = -Xmx of each RSS child JVM.")
  String rssHeap;

  @Option(
      names = "--jobs",
      split = ",",
      paramLabel = "CELL",
      defaultValue = "source-discard,copy",
      description = "Job cells, of source-discard, copy, none.")
  List<String> jobs;

  @Option(
      names = "--job-rows",
      paramLabel = "N",
      defaultValue = "2000000",
      converter = BenchCli.Positive.class,
      description = "Rows of the jobs' bid source table.")
  int jobRows;

  @Option(
      names = "--job-files",
      paramLabel = "N",
      defaultValue = "4",
      converter = BenchCli.Positive.class,
      description = "Data files of the jobs' source table.")
  int jobFiles;

  @Option(
      names = "--job-pairs",
      paramLabel = "N",
      defaultValue = "3",
      converter = BenchCli.Positive.class,
      description = "Measured (stock, Frazil) job pairs per job cell.")
  int jobPairs;

  @Option(
      names = "--job-warmup-pairs",
      paramLabel = "N",
      defaultValue = "1",
      converter = BenchCli.NonNegative.class,
      description = "Warm-up job pairs per job cell.")
  int jobWarmupPairs;

  @Option(
      names = "--parallelism",
      paramLabel = "N",
      defaultValue = "2",
      converter = BenchCli.Positive.class,
      description = "Source and sink parallelism of the jobs, and task slots.")
  int parallelism;

  @Option(
      names = "--checkpoint-ms",
      paramLabel = "MS",
      defaultValue = "1000",
      converter = BenchCli.Positive.class,
      description = "Checkpoint interval of the jobs.")
  int checkpointMs;

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
      description = "Where the data files and the jobs' warehouse go.")
  Path tmp;

  @Option(names = "--no-gc", description = "Skip System.gc() before each iteration.")
  boolean noGc;

  // The RSS child's own flags (ReadBench runs itself in a child JVM; not for the command line).
  @Option(names = "--rss-child", hidden = true)
  boolean rssChild;

  @Option(names = "--child-arm", hidden = true)
  String childArm;

  @Option(names = "--child-file", hidden = true)
  Path childFile;

  final List<ReadTrial> trials = new ArrayList<>();
  final List<String> notes = new ArrayList<>();
  private BufferedWriter jsonl;
  private Path workDir;
  String nativeLibrary = "not loaded (no Frazil read ran)";

  /** Per schema and size: the scan/project file and the filtered cell's file with threshold. */
  private final Map<String, Fixture> fixtures = new LinkedHashMap<>();

  private static final class Fixture {
    File plain;
    int plainRowGroups;
    File grouped;
    int groupedRowGroups;
    long threshold;
  }

  public static void main(String[] args) {
    BenchCli.main(args, new ReadBench());
  }

  @Override
  public Integer call() throws Exception {
    if (rssChild) {
      return child();
    }
    resolve();
    return run() ? 0 : 1;
  }

  /** Applies --smoke to the options not given with it, and checks the names in the lists. */
  void resolve() {
    if (smoke) {
      rows = BenchCli.given(cli, "--rows") ? rows : List.of(20_000);
      warmups = BenchCli.given(cli, "--warmups") ? warmups : 1;
      reps = BenchCli.given(cli, "--reps") ? reps : 2;
      repsAt = BenchCli.given(cli, "--reps-at") ? repsAt : Map.of();
      rssTrials = BenchCli.given(cli, "--rss-trials") ? rssTrials : 1;
      rssReads = BenchCli.given(cli, "--rss-reads") ? rssReads : 1;
      rssHeap = BenchCli.given(cli, "--rss-heap") ? rssHeap : "512m";
      jobRows = BenchCli.given(cli, "--job-rows") ? jobRows : 20_000;
      jobPairs = BenchCli.given(cli, "--job-pairs") ? jobPairs : 1;
      jobWarmupPairs = BenchCli.given(cli, "--job-warmup-pairs") ? jobWarmupPairs : 0;
      checkpointMs = BenchCli.given(cli, "--checkpoint-ms") ? checkpointMs : 200;
    }
    schemas = BenchCli.oneOf(cli, "--schemas", schemas, ALL_SCHEMAS);
    cells = BenchCli.oneOf(cli, "--cells", cells, ALL_CELLS);
    jobs = BenchCli.oneOf(cli, "--jobs", jobs, List.of("source-discard", "copy", "none"));
    if (jobs.contains("none")) {
      jobs = List.of();
    }
  }

  int repsFor(int rowCount) {
    return repsAt.getOrDefault(rowCount, reps);
  }

  int maxRows() {
    return rows.stream().mapToInt(Integer::intValue).max().orElseThrow();
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "rows=%s warmups=%d reps=%d repsAt=%s schemas=%s cells=%s rssTrials=%d rssReads=%d"
            + " rssHeap=%s jobs=%s jobRows=%d jobFiles=%d jobPairs=%d jobWarmupPairs=%d"
            + " parallelism=%d checkpointMs=%d seed=%d gcBetween=%s tmp=%s",
        rows,
        warmups,
        reps,
        repsAt,
        schemas,
        cells,
        rssTrials,
        rssReads,
        rssHeap,
        jobs,
        jobRows,
        jobFiles,
        jobPairs,
        jobWarmupPairs,
        parallelism,
        checkpointMs,
        seed,
        !noGc,
        tmp);
  }

  private boolean run() throws Exception {
    long started = System.nanoTime();
    Guards.loggingIsQuiet();
    Clock.enable();
    Files.createDirectories(out);
    Files.createDirectories(tmp);
    this.workDir = Files.createTempDirectory(tmp, "frazil-readbench-");
    System.out.printf(
        "ReadBench %s%n  %s%n  out %s%n  data files in %s%n",
        smoke ? "(smoke)" : "", this, out, workDir);
    boolean ok;
    try (BufferedWriter lines =
        Files.newBufferedWriter(out.resolve("iterations.jsonl"), StandardCharsets.UTF_8)) {
      this.jsonl = lines;
      writeFixtures();
      for (String schemaName : schemas) {
        for (String cell : cells) {
          for (int rowCount : rows) {
            runCell(schemaName, cell, rowCount);
          }
        }
      }
      if (rssTrials > 0) {
        // The smoke run starts one pair of child JVMs (bid scan): it checks the mechanism.
        for (String schemaName : smoke ? schemas.subList(0, 1) : schemas) {
          for (String cell : smoke ? List.of("scan") : List.of("scan", "project")) {
            rssCell(schemaName, cell, maxRows());
          }
        }
      }
      ok = true;
      if (!jobs.isEmpty()) {
        ok = new ReadJobs(this, workDir.resolve("warehouse")).run();
      }
    } finally {
      FrazilFlink.uninstall();
      RunFacts.deleteTree(workDir);
    }
    ReadReport report = new ReadReport(this, trials);
    report.write((System.nanoTime() - started) / 1e9);
    return ok && report.guardsPassed();
  }

  /** Called by ReadJobs for each trial it ran. */
  void record(ReadTrial trial) throws IOException {
    trials.add(trial);
    jsonl.write(trial.toJson());
    jsonl.newLine();
    jsonl.flush();
  }

  int nextSeq() {
    return trials.size();
  }

  // ---------------------------------------------------------------------------------------------
  // fixtures: written once by stock Iceberg (zstd 3), before anything is timed

  private void writeFixtures() throws IOException {
    FrazilFlink.uninstall();
    for (String schemaName : schemas) {
      Schema schema = Datasets.schema(schemaName);
      RowType rowType = FlinkSchemaUtil.convert(schema);
      long buildStart = System.nanoTime();
      List<RowData> all = Datasets.rows(schemaName, maxRows(), seed);
      System.out.printf(
          "%n[%s] built %,d rows in %.1f s (%s)%n",
          schemaName,
          all.size(),
          (System.nanoTime() - buildStart) / 1e9,
          Guards.fixtureHeap("the " + schemaName + " rows", new ArrayList<>()));
      for (int rowCount : rows) {
        List<RowData> some = all.subList(0, rowCount);
        Fixture fixture = new Fixture();
        fixture.plain = workDir.resolve(schemaName + "-" + rowCount + ".parquet").toFile();
        Arms.stock(schema, rowType, some, FileWriteBench.PROPERTIES, MetricsConfig.getDefault())
            .write(fixture.plain);
        fixture.plainRowGroups = Guards.footer(fixture.plain).rowGroups;
        if (cells.contains("filtered")) {
          Map<String, String> grouped = new HashMap<>(FileWriteBench.PROPERTIES);
          long groupBytes = Math.max(16 * 1024, fixture.plain.length() / FILTER_ROW_GROUPS);
          grouped.put("write.parquet.row-group-size-bytes", Long.toString(groupBytes));
          fixture.grouped =
              workDir.resolve(schemaName + "-" + rowCount + "-groups.parquet").toFile();
          Arms.stock(schema, rowType, some, grouped, MetricsConfig.getDefault())
              .write(fixture.grouped);
          fixture.groupedRowGroups = Guards.footer(fixture.grouped).rowGroups;
          fixture.threshold = threshold(schemaName, some.get(rowCount / 10));
        }
        fixtures.put(schemaName + "|" + rowCount, fixture);
        System.out.printf(
            Locale.ROOT,
            "[%s %,d rows] wrote %s (%.2f MB, %d row group(s))%s%n",
            schemaName,
            rowCount,
            fixture.plain.getName(),
            fixture.plain.length() / 1048576.0,
            fixture.plainRowGroups,
            fixture.grouped == null
                ? ""
                : String.format(
                    Locale.ROOT,
                    " and %s (%.2f MB, %d row groups; %s < %d)",
                    fixture.grouped.getName(),
                    fixture.grouped.length() / 1048576.0,
                    fixture.groupedRowGroups,
                    FILTER_COLUMN.get(schemaName),
                    fixture.threshold));
      }
      all = null;
      System.gc();
    }
  }

  /** The filter column's value in {@code row} (timestamps as epoch microseconds). */
  private static long threshold(String schemaName, RowData row) {
    if ("bid".equals(schemaName)) {
      return JobRows.micros(row.getTimestamp(5, 6));
    }
    return row.getLong(0);
  }

  static Schema projection(String schemaName, String cell) {
    Schema schema = Datasets.schema(schemaName);
    return "project".equals(cell) ? schema.select(PROJECTED.get(schemaName)) : schema;
  }

  // ---------------------------------------------------------------------------------------------
  // one read

  /** What one read returned and cost the native path. */
  static final class Read {
    final ReadConsumer consumer;
    final long nativeFiles;
    final long stockFiles;
    final long nativeRowGroups;
    final long bytesFetched;

    Read(ReadConsumer consumer, long[] before) {
      this.consumer = consumer;
      this.nativeFiles = ReadCounters.nativeFiles() - before[0];
      this.stockFiles = ReadCounters.stockFiles() - before[1];
      this.nativeRowGroups = ReadCounters.nativeRowGroups() - before[2];
      this.bytesFetched = ReadCounters.bytesFetched() - before[3];
    }

    static long[] counters() {
      return new long[] {
        ReadCounters.nativeFiles(),
        ReadCounters.stockFiles(),
        ReadCounters.nativeRowGroups(),
        ReadCounters.bytesFetched()
      };
    }
  }

  /** Selects the arm: Iceberg's own model in the registry (stock) or Frazil's. */
  static void arm(String arm) {
    if ("frazil".equals(arm)) {
      Guards.check(FrazilFlink.install(), "FrazilFlink.install() failed");
    } else {
      FrazilFlink.uninstall();
    }
  }

  /**
   * The timed region: a reader built as {@code RowDataFileScanTaskReader} builds one, every row
   * read and every projected field touched, the reader closed.
   */
  static ReadConsumer read(InputFile input, Schema projection, Expression filter)
      throws IOException {
    ReadBuilder<RowData, RowType> builder =
        FormatModelRegistry.readBuilder(FileFormat.PARQUET, RowData.class, input);
    builder
        .project(projection)
        .split(0, input.getLength())
        .caseSensitive(true)
        .filter(filter)
        .reuseContainers();
    ReadConsumer consumer = new ReadConsumer(FlinkSchemaUtil.convert(projection));
    try (CloseableIterable<RowData> rows = builder.build()) {
      for (RowData row : rows) {
        consumer.accept(row);
      }
    }
    return consumer;
  }

  private void runCell(String schemaName, String cell, int rowCount) throws IOException {
    Fixture fixture = fixtures.get(schemaName + "|" + rowCount);
    File file = "filtered".equals(cell) ? fixture.grouped : fixture.plain;
    int fileGroups = "filtered".equals(cell) ? fixture.groupedRowGroups : fixture.plainRowGroups;
    Schema projection = projection(schemaName, cell);
    Expression filter =
        "filtered".equals(cell)
            ? Expressions.lessThan(FILTER_COLUMN.get(schemaName), fixture.threshold)
            : Expressions.alwaysTrue();
    int measured = repsFor(rowCount);
    System.out.printf(
        "[read-%s %s %,d rows] %d warm-up + %d measured per arm, alternating (%s, %d row"
            + " group(s)%s)%n",
        cell,
        schemaName,
        rowCount,
        warmups,
        measured,
        file.getName(),
        fileGroups,
        "filtered".equals(cell) ? ", " + filter : "");
    ReadConsumer stockResult = null;
    for (int rep = 0; rep < warmups + measured; rep++) {
      String phase = rep < warmups ? "warmup" : "measured";
      int index = rep < warmups ? rep : rep - warmups;
      for (String arm : List.of("stock", "frazil")) {
        ReadTrial trial =
            timed(
                schemaName,
                cell,
                rowCount,
                arm,
                phase,
                index,
                file,
                fileGroups,
                projection,
                filter);
        String where =
            String.format(
                Locale.ROOT,
                "[read-%s %s %,d %s %s #%d]",
                cell,
                schemaName,
                rowCount,
                arm,
                phase,
                index);
        ReadConsumer got = lastConsumer;
        if (stockResult == null) {
          stockResult = got;
        }
        Guards.check(
            got.sameAs(stockResult),
            "%s returned %s, stock returned %s",
            where,
            got.text(),
            stockResult.text());
        if ("filtered".equals(cell)) {
          Guards.check(
              got.count < rowCount && got.count > 0,
              "%s the filter returned %,d of %,d rows (expected some, not all)",
              where,
              got.count,
              rowCount);
        } else {
          Guards.check(
              got.count == rowCount, "%s returned %,d rows of %,d", where, got.count, rowCount);
        }
        if ("frazil".equals(arm)) {
          Guards.check(
              trial.nativeFiles == 1 && trial.stockFiles == 0,
              "%s read natively %d file(s), by Iceberg's reader %d (expected 1 and 0)",
              where,
              trial.nativeFiles,
              trial.stockFiles);
        } else {
          Guards.check(
              trial.nativeFiles == 0,
              "%s the stock arm read %d file(s) natively",
              where,
              trial.nativeFiles);
        }
        Guards.check(
            ArrowMemory.allocatedBytes() == 0 && NativeParquetReader.openReaders() == 0,
            "%s left %d Arrow bytes and %d native readers open",
            where,
            ArrowMemory.allocatedBytes(),
            NativeParquetReader.openReaders());
        if ("frazil".equals(arm) && nativeLibrary.startsWith("not")) {
          nativeLibrary = Guards.describeNativeLibrary(notes);
          System.out.println("  native library: " + nativeLibrary);
        }
      }
    }
  }

  private ReadConsumer lastConsumer;

  private ReadTrial timed(
      String schemaName,
      String cell,
      int rowCount,
      String arm,
      String phase,
      int rep,
      File file,
      int fileGroups,
      Schema projection,
      Expression filter)
      throws IOException {
    arm(arm);
    InputFile input = org.apache.iceberg.Files.localInput(file);
    long preGcMs = Clock.collectGarbage(!noGc);
    double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    long rssBefore = MemoryProbes.procStatusKb("VmRSS");
    MemoryProbes.Sampler sampler = new MemoryProbes.Sampler(10);
    sampler.start();
    long[] counters = Read.counters();
    long faultsBefore = MemoryProbes.minorFaults();
    long poolBefore = EncoderCpu.nanos();
    Clock started = Clock.start();

    ReadConsumer consumer = read(input, projection, filter);

    Clock took = started.stop();
    long poolAfter = EncoderCpu.nanos();
    long faultsAfter = MemoryProbes.minorFaults();
    Read read = new Read(consumer, counters);
    try {
      sampler.stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    this.lastConsumer = consumer;
    Iteration it =
        new Iteration(
            nextSeq(),
            "read-" + cell,
            schemaName,
            rowCount,
            arm,
            phase,
            rep,
            took.wallNs,
            took.processCpuNs,
            took.threadCpuNs,
            took.allocatedBytes,
            took.gcCount,
            took.gcMs,
            file.length(),
            1,
            consumer.count,
            fileGroups,
            "parquet-mr (stock Iceberg)");
    ReadTrial trial = new ReadTrial(it);
    trial.rowsReturned = consumer.count;
    trial.checksumSum = consumer.sum;
    trial.checksumXor = consumer.xor;
    trial.nativeFiles = read.nativeFiles;
    trial.stockFiles = read.stockFiles;
    trial.nativeRowGroups = read.nativeRowGroups;
    trial.bytesFetched = read.bytesFetched;
    trial.rssBeforeKb = rssBefore;
    trial.minorFaults = faultsBefore < 0 || faultsAfter < 0 ? -1 : faultsAfter - faultsBefore;
    trial.poolCpuNs = poolBefore < 0 || poolAfter < 0 ? -1 : poolAfter - poolBefore;
    trial.rssPeakKb = sampler.maxRssKb;
    trial.rssAfterKb = MemoryProbes.procStatusKb("VmRSS");
    trial.rssSamples = sampler.samples;
    trial.heapPeakBytes = sampler.maxHeapUsed;
    trial.arrowPeakBytes = sampler.maxArrow;
    trial.loadBefore = loadBefore;
    trial.loadAfter = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    record(trial);
    System.out.printf(
        Locale.ROOT,
        "  %-6s %-8s #%d  wall %9.1f ms  cpu %9.1f ms  thread %9.1f ms  alloc %8.1f MB  gc %2d"
            + "  rows %,d  rss %,d→%,d MB  row groups %d  faults %,d  pool %.0f ms  (pre-gc %d ms)%n",
        arm,
        phase,
        rep,
        it.wallNs / 1e6,
        it.processCpuNs / 1e6,
        it.threadCpuNs / 1e6,
        it.allocatedBytes / 1048576.0,
        it.gcCount,
        consumer.count,
        rssBefore >> 10,
        trial.rssPeakKb >> 10,
        read.nativeRowGroups,
        trial.minorFaults,
        trial.poolCpuNs / 1e6,
        preGcMs);
    return trial;
  }

  // ---------------------------------------------------------------------------------------------
  // RSS trials: one child JVM per arm and trial, reading the file --rss-reads times

  private void rssCell(String schemaName, String cell, int rowCount) throws IOException {
    Fixture fixture = fixtures.get(schemaName + "|" + rowCount);
    System.out.printf(
        "[rss-%s %s %,d rows] %d child JVM(s) per arm (-Xms/-Xmx %s), %d read(s) each,"
            + " alternating%n",
        cell, schemaName, rowCount, rssTrials, rssHeap, rssReads);
    for (int rep = 0; rep < rssTrials; rep++) {
      for (String arm : List.of("stock", "frazil")) {
        rssTrial(schemaName, cell, rowCount, arm, rep, fixture.plain, fixture.plainRowGroups);
      }
    }
  }

  private void rssTrial(
      String schemaName, String cell, int rowCount, String arm, int rep, File file, int groups)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (!arg.startsWith("-Xms")
          && !arg.startsWith("-Xmx")
          && !arg.startsWith("-agentlib")
          && !arg.startsWith("-XX:StartFlightRecording")) {
        command.add(arg);
      }
    }
    command.add("-Xms" + rssHeap);
    command.add("-Xmx" + rssHeap);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(ReadBench.class.getName());
    command.addAll(
        List.of(
            "--rss-child",
            "--out",
            out.toString(),
            "--child-arm",
            arm,
            "--schemas",
            schemaName,
            "--cells",
            cell,
            "--rss-reads",
            Integer.toString(rssReads),
            "--child-file",
            file.toString()));
    double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    Map<String, Long> result = new HashMap<>();
    StringBuilder log = new StringBuilder();
    try (BufferedReader reader =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        log.append(line).append('\n');
        if (line.startsWith("RSS-CHILD ")) {
          for (String pair : line.substring(10).trim().split(" ")) {
            String[] kv = pair.split("=");
            result.put(kv[0], Long.parseLong(kv[1]));
          }
        }
      }
    }
    int exit;
    try {
      exit = process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
    String where =
        String.format(Locale.ROOT, "[rss-%s %s %,d %s #%d]", cell, schemaName, rowCount, arm, rep);
    Guards.check(
        exit == 0 && result.containsKey("hwm_kb"), "%s child JVM exited %d:%n%s", where, exit, log);
    Iteration it =
        new Iteration(
            nextSeq(),
            "rss-" + cell,
            schemaName,
            rowCount,
            arm,
            "measured",
            rep,
            result.get("wall_ns"),
            result.get("cpu_ns"),
            result.get("thread_cpu_ns"),
            result.get("alloc_bytes"),
            result.get("gc_count"),
            result.get("gc_ms"),
            file.length(),
            1,
            result.get("rows"),
            groups,
            "parquet-mr (stock Iceberg)");
    ReadTrial trial = new ReadTrial(it);
    trial.rowsReturned = result.get("rows");
    trial.nativeFiles = result.get("native_files");
    trial.stockFiles = result.get("stock_files");
    trial.rssBeforeKb = result.get("rss_before_kb");
    trial.rssPeakKb = result.get("rss_peak_kb");
    trial.rssAfterKb = result.get("rss_after_kb");
    trial.childHwmKb = result.get("hwm_kb");
    trial.childHeap = rssHeap;
    trial.loadBefore = loadBefore;
    trial.loadAfter = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    Guards.check(
        trial.rowsReturned == (long) rowCount * rssReads,
        "%s child read %,d rows, expected %,d",
        where,
        trial.rowsReturned,
        (long) rowCount * rssReads);
    Guards.check(
        "frazil".equals(arm) ? trial.nativeFiles == rssReads : trial.nativeFiles == 0,
        "%s child read %d file(s) natively",
        where,
        trial.nativeFiles);
    record(trial);
    System.out.printf(
        Locale.ROOT,
        "  %-6s #%d  VmHWM %,d MB  (RSS before the reads %,d MB, sampled peak %,d MB)  last read"
            + " %.1f ms%n",
        arm,
        rep,
        trial.childHwmKb >> 10,
        trial.rssBeforeKb >> 10,
        trial.rssPeakKb >> 10,
        it.wallNs / 1e6);
  }

  /** The RSS child: reads the file --rss-reads times and prints its figures on one line. */
  private int child() throws IOException {
    Guards.loggingIsQuiet();
    Clock.enable();
    String schemaName = schemas.get(0);
    String cell = cells.get(0);
    arm(childArm);
    Schema projection = projection(schemaName, cell);
    InputFile input = org.apache.iceberg.Files.localInput(childFile.toFile());
    long rssBefore = MemoryProbes.procStatusKb("VmRSS");
    MemoryProbes.Sampler sampler = new MemoryProbes.Sampler(10);
    sampler.start();
    long[] counters = Read.counters();
    long rowsRead = 0;
    Clock last = null;
    for (int i = 0; i < rssReads; i++) {
      Clock started = Clock.start();
      rowsRead += read(input, projection, Expressions.alwaysTrue()).count;
      last = started.stop();
    }
    Read read = new Read(null, counters);
    try {
      sampler.stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    System.out.printf(
        Locale.ROOT,
        "RSS-CHILD hwm_kb=%d rss_before_kb=%d rss_peak_kb=%d rss_after_kb=%d rows=%d"
            + " native_files=%d stock_files=%d wall_ns=%d cpu_ns=%d thread_cpu_ns=%d"
            + " alloc_bytes=%d gc_count=%d gc_ms=%d%n",
        MemoryProbes.procStatusKb("VmHWM"),
        rssBefore,
        sampler.maxRssKb,
        MemoryProbes.procStatusKb("VmRSS"),
        rowsRead,
        read.nativeFiles,
        read.stockFiles,
        last.wallNs,
        last.processCpuNs,
        last.threadCpuNs,
        last.allocatedBytes,
        last.gcCount,
        last.gcMs);
    return 0;
  }
}

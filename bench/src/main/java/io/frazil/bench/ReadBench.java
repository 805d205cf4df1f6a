package io.frazil.bench;

import io.frazil.flink.FrazilFlink;
import io.frazil.read.ReadCounters;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
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

  public static void main(String[] args) {
    BenchCli.main(args, new ReadBench());
  }

  @Override
  public Integer call() throws Exception {
    if (rssChild) {
      return ReadRssTrials.child(this);
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
      ReadFixtures fixtures = new ReadFixtures(this, workDir);
      fixtures.write();
      ReadFileCells fileCells = new ReadFileCells(this, fixtures);
      for (String schemaName : schemas) {
        for (String cell : cells) {
          for (int rowCount : rows) {
            fileCells.run(schemaName, cell, rowCount);
          }
        }
      }
      if (rssTrials > 0) {
        ReadRssTrials rss = new ReadRssTrials(this, fixtures);
        // The smoke run starts one pair of child JVMs (bid scan): it checks the mechanism.
        for (String schemaName : smoke ? schemas.subList(0, 1) : schemas) {
          for (String cell : smoke ? List.of("scan") : List.of("scan", "project")) {
            rss.run(schemaName, cell, maxRows());
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
}

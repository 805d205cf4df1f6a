package io.frazil.bench;

import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Stock Iceberg's Parquet writer against Frazil, in one JVM, on identical pre-built rows.
 *
 * <p>For each cohort × schema × row count ("cell"): one verification write per arm whose footers
 * and contents are compared, then warm-ups and measured repetitions alternating stock and each
 * Frazil arm (the arrow-input cohort has two: the caller keeping its batches, and handing them
 * over). Each timed write builds an appender, adds all rows (or Arrow batches), closes it and
 * returns its Metrics; every file is then checked (footer {@code created_by}, row count, one file)
 * and deleted. Every iteration, warm-ups included, goes to {@code iterations.jsonl}; the medians of
 * the measured ones go to {@code results.md} and {@code ratios.svg}. See bench/README.md.
 */
@Command(
    name = "FileWriteBench",
    mixinStandardHelpOptions = true,
    versionProvider = BenchCli.Version.class,
    showDefaultValues = true,
    sortOptions = false,
    description = {
      "Stock Iceberg's Parquet writer against Frazil: one closed data file per timed write, both"
          + " arms in this JVM on the same pre-built rows (bench/README.md)."
    })
public final class FileWriteBench implements Callable<Integer> {
  /** Both arms: zstd level 3, set explicitly (arrow-rs defaults to 1, parquet-java to 3). */
  static final Map<String, String> PROPERTIES =
      Map.of(
          "write.parquet.compression-codec", "zstd",
          "write.parquet.compression-level", "3");

  static final String FILE_WRITE = "file-write";
  static final String ARROW_INPUT = "arrow-input";
  static final List<String> ALL_SCHEMAS = List.of("bid", "wide", "nested");
  static final List<String> ALL_COHORTS = List.of(FILE_WRITE, ARROW_INPUT);

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
          "20,000 rows, 1 warm-up, 2 reps, bid only, both cohorts, no --reps-at (flags given"
              + " with it still win): checks the harness, not a measurement.")
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
      description =
          "Measured iterations for cells of ROWS rows, instead of --reps (the default keeps"
              + " `make bench` under 15 minutes on 2 cores).")
  Map<Integer, Integer> repsAt;

  @Option(
      names = "--schemas",
      split = ",",
      paramLabel = "NAME",
      defaultValue = "bid,wide,nested",
      description = "Of bid, wide, nested.")
  List<String> schemas;

  @Option(
      names = "--cohorts",
      split = ",",
      paramLabel = "NAME",
      defaultValue = "file-write,arrow-input",
      description = "Of file-write, arrow-input.")
  List<String> cohorts;

  @Option(
      names = "--seed",
      paramLabel = "N",
      defaultValue = "42",
      description = "Data generator seed.")
  long seed;

  @Option(
      names = "--batch-rows",
      paramLabel = "N",
      defaultValue = "8192",
      converter = BenchCli.Positive.class,
      description = "Rows per Arrow batch (arrow-input cohort).")
  int batchRows;

  @Option(
      names = "--tmp",
      paramLabel = "DIR",
      defaultValue = "${sys:java.io.tmpdir}",
      converter = BenchCli.AbsolutePath.class,
      description = "Where the data files are written.")
  Path tmp;

  @Option(names = "--no-gc", description = "Skip System.gc() before each iteration.")
  boolean noGc;

  @Option(
      names = "--no-verify-content",
      description = "Skip reading both verification files back row by row.")
  boolean noVerifyContent;

  private final List<Iteration> iterations = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private BufferedWriter jsonl;
  private Path workDir;
  private String nativeLibrary = null;

  public static void main(String[] args) {
    BenchCli.main(args, new FileWriteBench());
  }

  @Override
  public Integer call() throws IOException {
    resolve();
    run();
    return 0;
  }

  /** Applies --smoke to the options not given with it, and checks the names in the lists. */
  void resolve() {
    if (smoke) {
      // The smoke plan replaces the defaults, not the flags given with it.
      rows = BenchCli.given(cli, "--rows") ? rows : List.of(20_000);
      warmups = BenchCli.given(cli, "--warmups") ? warmups : 1;
      reps = BenchCli.given(cli, "--reps") ? reps : 2;
      schemas = BenchCli.given(cli, "--schemas") ? schemas : List.of("bid");
      repsAt = BenchCli.given(cli, "--reps-at") ? repsAt : Map.of();
    }
    schemas = BenchCli.oneOf(cli, "--schemas", schemas, ALL_SCHEMAS);
    cohorts = BenchCli.oneOf(cli, "--cohorts", cohorts, ALL_COHORTS);
  }

  private int repsFor(int rowCount) {
    return repsAt.getOrDefault(rowCount, reps);
  }

  private int maxRows() {
    return rows.stream().mapToInt(Integer::intValue).max().orElseThrow();
  }

  /** "5 (262,144 rows), 3 (2,000,000 rows)". */
  private String repsText() {
    List<String> parts = new ArrayList<>();
    for (int rowCount : rows) {
      parts.add(String.format(Locale.ROOT, "%d (%,d rows)", repsFor(rowCount), rowCount));
    }
    return String.join(", ", parts);
  }

  /** The plan, as the run prints it. */
  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "rows=%s warmups=%d reps=%d repsAt=%s schemas=%s cohorts=%s seed=%d batchRows=%d"
            + " gcBetween=%s verifyContent=%s tmp=%s",
        rows,
        warmups,
        reps,
        repsAt,
        schemas,
        cohorts,
        seed,
        batchRows,
        !noGc,
        !noVerifyContent,
        tmp);
  }

  private void run() throws IOException {
    long started = System.nanoTime();
    Guards.loggingIsQuiet();
    Clock.enable();

    Files.createDirectories(out);
    Files.createDirectories(tmp);
    this.workDir = Files.createTempDirectory(tmp, "frazil-bench-");
    System.out.printf(
        "FileWriteBench %s%n  %s%n  out %s%n  data files in %s%n",
        smoke ? "(smoke)" : "", this, out, workDir);

    MetricsConfig metricsConfig = MetricsConfig.getDefault();
    try (BufferedWriter lines =
            Files.newBufferedWriter(out.resolve("iterations.jsonl"), StandardCharsets.UTF_8);
        BufferAllocator allocator = new RootAllocator(Long.MAX_VALUE)) {
      this.jsonl = lines;
      for (String schemaName : schemas) {
        Schema schema = Datasets.schema(schemaName);
        RowType rowType = FlinkSchemaUtil.convert(schema);
        long buildStart = System.nanoTime();
        List<RowData> all = Datasets.rows(schemaName, maxRows(), seed);
        String heap = Guards.fixtureHeap("the " + schemaName + " rows", notes);
        System.out.printf(
            "%n[%s] built %,d rows in %.1f s (%s)%n",
            schemaName, all.size(), (System.nanoTime() - buildStart) / 1e9, heap);

        for (String cohort : cohorts) {
          Arms.ArrowBatches batches = null;
          try {
            if (ARROW_INPUT.equals(cohort)) {
              long arrowStart = System.nanoTime();
              batches =
                  new Arms.ArrowBatches(schema, rowType, all, maxRows(), batchRows, allocator);
              System.out.printf(
                  "[%s] arrow batches of %,d rows built in %.1f s (%,d MB off-heap)%n",
                  schemaName,
                  batchRows,
                  (System.nanoTime() - arrowStart) / 1e9,
                  batches.allocatedBytes() >> 20);
            }
            boolean verified = false;
            for (int rowCount : rows) {
              List<RowData> rows = all.subList(0, rowCount);
              Arms.Arm stock = Arms.stock(schema, rowType, rows, PROPERTIES, metricsConfig);
              List<Arms.Arm> frazil;
              if (batches == null) {
                frazil =
                    List.of(Arms.frazilRowData(schema, rowType, rows, PROPERTIES, metricsConfig));
              } else {
                List<org.apache.arrow.vector.VectorSchemaRoot> first = batches.first(rowCount);
                frazil =
                    List.of(
                        Arms.frazilArrow(schema, first, PROPERTIES, metricsConfig),
                        Arms.frazilArrowOwned(
                            schema, first, batches.allocator(), PROPERTIES, metricsConfig));
              }
              if (!verified || warmups == 0) {
                verify(cohort, schemaName, schema, rowCount, stock, frazil);
                verified = true;
              }
              runCell(cohort, schemaName, rowCount, stock, frazil);
            }
          } finally {
            if (batches != null) {
              batches.close();
            }
          }
        }
      }
    } finally {
      RunFacts.deleteTree(workDir);
    }

    writeResults((System.nanoTime() - started) / 1e9);
  }

  /**
   * Before any timed write of a cohort × schema: each arm writes once, the footers must name the
   * right writer and the same row count, and (unless disabled) Iceberg's reader must return the
   * same records from each Frazil arm's file as from stock's.
   */
  private void verify(
      String cohort,
      String schemaName,
      Schema schema,
      int rowCount,
      Arms.Arm stock,
      List<Arms.Arm> frazilArms)
      throws IOException {
    File stockFile = workDir.resolve("verify-stock.parquet").toFile();
    Iteration a = timed(cohort, schemaName, rowCount, stock, "verify", 0, stockFile, false);
    for (Arms.Arm frazil : frazilArms) {
      File frazilFile = workDir.resolve("verify-" + frazil.name() + ".parquet").toFile();
      Iteration b = timed(cohort, schemaName, rowCount, frazil, "verify", 0, frazilFile, false);
      Guards.check(
          a.footerRows == b.footerRows,
          "[%s %s] stock wrote %d rows, %s %d",
          cohort,
          schemaName,
          a.footerRows,
          frazil.name(),
          b.footerRows);
      String content = "content not compared (--no-verify-content)";
      if (!noVerifyContent) {
        long same = Guards.sameContent(stockFile, frazilFile, schema);
        content = String.format(Locale.ROOT, "%,d records read back identical", same);
      }
      Files.deleteIfExists(frazilFile.toPath());
      System.out.printf(
          "[%s %s] verified: stock created_by '%s', %s created_by '%s', %,d rows each, %s%n",
          cohort, schemaName, a.createdBy, frazil.name(), b.createdBy, a.footerRows, content);
    }
    Files.deleteIfExists(stockFile.toPath());

    if (nativeLibrary == null) {
      this.nativeLibrary = Guards.describeNativeLibrary(notes);
      System.out.println("  native library: " + nativeLibrary);
    }
  }

  /** Warm-ups then measured repetitions, alternating stock and each Frazil arm. */
  private void runCell(
      String cohort, String schemaName, int rowCount, Arms.Arm stock, List<Arms.Arm> frazilArms)
      throws IOException {
    int reps = repsFor(rowCount);
    System.out.printf(
        "[%s %s %,d rows] %d warm-up + %d measured per arm, alternating%n",
        cohort, schemaName, rowCount, warmups, reps);
    for (int rep = 0; rep < warmups + reps; rep++) {
      String phase = rep < warmups ? "warmup" : "measured";
      int index = rep < warmups ? rep : rep - warmups;
      timed(cohort, schemaName, rowCount, stock, phase, index, file(stock), true);
      for (Arms.Arm frazil : frazilArms) {
        timed(cohort, schemaName, rowCount, frazil, phase, index, file(frazil), true);
      }
    }
  }

  private File file(Arms.Arm arm) {
    return workDir.resolve(arm.name() + ".parquet").toFile();
  }

  /** One timed write, then (off the clock) its checks, its record and the file's deletion. */
  private Iteration timed(
      String cohort,
      String schemaName,
      int rowCount,
      Arms.Arm arm,
      String phase,
      int rep,
      File file,
      boolean delete)
      throws IOException {
    arm.prepare();
    // Garbage left by the previous arm is collected here, not during this arm's clock.
    long preGcMs = Clock.collectGarbage(!noGc);
    Clock started = Clock.start();

    Arms.Written written = arm.write(file);

    Clock took = started.stop();

    int fileCount;
    try (Stream<Path> files = Files.list(workDir)) {
      fileCount = (int) files.filter(p -> p.getFileName().toString().contains(arm.name())).count();
    }
    long outputBytes = Files.size(file.toPath());
    Guards.Footer footer = Guards.footer(file);
    String where =
        String.format(
            Locale.ROOT,
            "[%s %s %,d rows %s %s #%d]",
            cohort,
            schemaName,
            rowCount,
            arm.name(),
            phase,
            rep);
    Guards.check(
        footer.createdBy != null && footer.createdBy.startsWith(arm.createdByPrefix()),
        "%s footer created_by is '%s', expected '%s...'",
        where,
        footer.createdBy,
        arm.createdByPrefix());
    Guards.check(
        footer.rows == rowCount,
        "%s footer has %d rows, expected %d",
        where,
        footer.rows,
        rowCount);
    Guards.check(
        written.metrics.recordCount() != null && written.metrics.recordCount() == rowCount,
        "%s Metrics.recordCount() is %s, expected %d",
        where,
        written.metrics.recordCount(),
        rowCount);
    Guards.check(fileCount == 1, "%s produced %d files, expected 1", where, fileCount);
    if (delete) {
      Files.delete(file.toPath());
    }

    Iteration it =
        new Iteration(
            iterations.size(),
            cohort,
            schemaName,
            rowCount,
            arm.name(),
            phase,
            rep,
            took.wallNs,
            took.processCpuNs,
            took.threadCpuNs,
            took.allocatedBytes,
            took.gcCount,
            took.gcMs,
            outputBytes,
            fileCount,
            footer.rows,
            footer.rowGroups,
            footer.createdBy);
    iterations.add(it);
    jsonl.write(it.toJson());
    jsonl.newLine();
    jsonl.flush();
    System.out.printf(
        Locale.ROOT,
        "  %-6s %-8s #%d  wall %9.1f ms  cpu %9.1f ms  thread %9.1f ms  alloc %8.1f MB"
            + "  gc %2d  out %7.2f MB  (pre-gc %d ms)%n",
        arm.name(),
        phase,
        rep,
        it.wallNs / 1e6,
        it.processCpuNs / 1e6,
        it.threadCpuNs / 1e6,
        it.allocatedBytes / 1048576.0,
        it.gcCount,
        it.outputBytes / 1048576.0,
        preGcMs);
    return it;
  }

  // ---------------------------------------------------------------------------------------------

  private void writeResults(double seconds) throws IOException {
    List<Report.Cell> cells = Report.cells(iterations);
    RunFacts facts = RunFacts.collect();

    StringBuilder md = new StringBuilder();
    md.append("# Stock Iceberg Parquet writer vs Frazil — file-write benchmark\n\n");
    md.append("| | |\n|---|---|\n");
    facts.appendHeaderRows(md);
    md.append("| native library | ").append(nativeLibrary).append(" |\n");
    md.append("| mode | ").append(smoke ? "smoke (not a measurement)" : "full");
    md.append(", args `").append(BenchCli.joinArgs(BenchCli.args(cli))).append("` |\n");
    md.append("| plan | rows ").append(rows).append(", ").append(warmups);
    md.append(" warm-up(s) + measured repetitions per arm per cell: ").append(repsText());
    md.append(", seed ").append(seed);
    md.append(String.format(Locale.ROOT, ", %.0f s in total |\n", seconds));
    md.append("| writer settings | `write.parquet.compression-codec=zstd`,");
    md.append(" `write.parquet.compression-level=3` on both arms; default row-group, page and");
    md.append(" dictionary sizes; `MetricsConfig.getDefault()` (truncate(16)) |\n\n");
    for (String note : notes) {
      md.append("**").append(note).append("**\n\n");
    }
    md.append(
        "Each cell: one verification write per arm (footers and read-back records compared), then"
            + " warm-ups and measured repetitions alternating stock, Frazil (each Frazil arm), stock …, all"
            + " in one JVM on the same pre-built rows; `System.gc()` before every write. Medians"
            + " of the measured repetitions, [min–max] over them. Ratios are stock / Frazil of"
            + " the medians (> 1 means Frazil is faster), bracketed by the extreme range (stock"
            + " min / Frazil max … stock max / Frazil min); allocation is Frazil / stock. Every"
            + " iteration, warm-ups included, is in `iterations.jsonl`.\n\n");
    md.append(Report.tables(cells, cohorts));
    md.append("Columns: *wall* = `System.nanoTime()` around build-appender + add all + close;");
    md.append(" *process CPU* = `OperatingSystemMXBean.getProcessCpuTime()` (all threads: the");
    md.append(" writer, JIT, GC; Frazil encodes on the calling thread); *thread CPU* = the");
    md.append(" writing thread only; *alloc* = Java heap bytes allocated by the writing thread");
    md.append(" (`ThreadMXBean.getThreadAllocatedBytes`; native and Arrow off-heap memory is not");
    md.append(" included); *output MB* = size of the closed data file; *M rows/s* from the median");
    md.append(" wall time.\n");
    Files.writeString(out.resolve("results.md"), md.toString(), StandardCharsets.UTF_8);

    if (!cells.isEmpty()) {
      String subtitle =
          String.format(
              Locale.ROOT,
              "%s, %d cores, Java %s, commit %.10s%s; %s",
              facts.now.substring(0, 10),
              facts.cores,
              System.getProperty("java.version"),
              facts.commit,
              smoke ? ", SMOKE run, not a measurement" : "",
              "zstd-3; measured reps: " + repsText());
      Report.writeSvg(out.resolve("ratios.svg"), cells, subtitle);
    }

    boolean copied =
        facts.writeRunFiles(
            out, BenchCli.args(cli), RunFacts.labels("native library", nativeLibrary));

    System.out.println();
    System.out.print(Report.tables(cells, cohorts));
    System.out.printf(
        "%d iterations, all guards passed, %.0f s; results in %s%n",
        iterations.size(), seconds, out);
  }
}

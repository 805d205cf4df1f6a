package io.frazil.bench;

import io.frazil.partition.BucketTupleMemo;
import io.frazil.partition.FrazilPartitionKeySelector;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.flink.FlinkSchemaUtil;
import org.apache.iceberg.flink.RowDataWrapper;
import org.apache.iceberg.flink.sink.PartitionKeySelector;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The routing cohort: what it costs to find a row's partition, with stock Iceberg and with Frazil's
 * bucket-tuple memo ({@link BucketTupleMemo}), without writing any file.
 *
 * <ul>
 *   <li>{@code routing-writer}: what the fan-out task writer does per row. Stock: {@code
 *       PartitionKey.partition(RowDataWrapper.wrap(row))}, then {@code HashMap<PartitionKey,
 *       Slot>.get}, on a miss {@code key.copy()} + put (as {@code PartitionedFanoutWriter.write}).
 *       Frazil: {@code memo.ordinal(row)} indexes a {@code Slot[]}; when the spec is not eligible
 *       the Frazil arm does exactly the stock thing.
 *   <li>{@code routing-selector}: the hash-distribution {@code keyBy}. Stock {@code
 *       PartitionKeySelector.getKey} against {@link FrazilPartitionKeySelector#getKey} (which falls
 *       back to the stock selector for ineligible specs); each key's {@code hashCode()}, which
 *       Flink computes to pick the key group, goes into a checksum.
 * </ul>
 *
 * <p>Fixtures: "cold", the {@code bid} rows of {@link Datasets} (2,000,000 distinct rows by
 * default), and "hot", the first 4,096 of them cycled to as many routes (rows a writer meets right
 * after the upstream operator built them: in cache). Specs {@code bucket(auction, 4)} (eligible: 5
 * tuples) and {@code bucket(auction, 16384)} (not eligible). Before any timing, both arms route the
 * whole fixture once and every row's stock and Frazil partition key (and selector string) must be
 * equal, or the run fails. Then warm-ups and measured repetitions alternate stock, Frazil, ... in
 * this JVM; every iteration goes to {@code iterations.jsonl}, medians to {@code results.md} (via
 * {@link Report}). See bench/README.md, "Routing cohort".
 */
@Command(
    name = "RoutingBench",
    mixinStandardHelpOptions = true,
    versionProvider = BenchCli.Version.class,
    showDefaultValues = true,
    sortOptions = false,
    description = {
      "Partition routing only, no files: stock Iceberg against Frazil's bucket-tuple memo, on"
          + " the bid rows (bench/README.md, \"Routing cohort\")."
    })
public final class RoutingBench implements Callable<Integer> {
  static final String WRITER = "routing-writer";
  static final String SELECTOR = "routing-selector";
  static final List<String> ALL_COHORTS = List.of(WRITER, SELECTOR);

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
          "20,000 rows, 1 warm-up, 2 reps (flags given with it still win): checks the harness in"
              + " seconds.")
  boolean smoke;

  @Option(
      names = "--rows",
      paramLabel = "N",
      defaultValue = "2000000",
      converter = BenchCli.Positive.class,
      description = "Rows routed per iteration; the 'cold' fixture has this many distinct rows.")
  int rows;

  @Option(
      names = "--hot-rows",
      paramLabel = "N",
      defaultValue = "4096",
      converter = BenchCli.NonNegative.class,
      description = "Distinct rows of the 'hot' fixture, cycled to --rows; 0 drops it.")
  int hotRows;

  @Option(
      names = "--warmups",
      paramLabel = "N",
      defaultValue = "3",
      converter = BenchCli.NonNegative.class,
      description = "Warm-up iterations per arm per cell.")
  int warmups;

  @Option(
      names = "--reps",
      paramLabel = "N",
      defaultValue = "7",
      converter = BenchCli.Positive.class,
      description = "Measured iterations per arm per cell.")
  int reps;

  @Option(
      names = "--buckets",
      split = ",",
      paramLabel = "N",
      defaultValue = "4,16384",
      converter = BenchCli.Positive.class,
      description = "bucket(auction, N) specs.")
  List<Integer> bucketCounts;

  @Option(
      names = "--cohorts",
      split = ",",
      paramLabel = "NAME",
      defaultValue = "routing-writer,routing-selector",
      description = "Of routing-writer, routing-selector.")
  List<String> cohorts;

  @Option(
      names = "--seed",
      paramLabel = "N",
      defaultValue = "42",
      description = "Data generator seed.")
  long seed;

  @Option(names = "--no-gc", description = "Skip System.gc() before each iteration.")
  boolean noGc;

  private final List<Iteration> iterations = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private BufferedWriter jsonl;
  private String loadAtStart;

  /** Keeps results alive so no arm's work is dead code. */
  static volatile long blackhole;

  public static void main(String[] args) {
    BenchCli.main(args, new RoutingBench());
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
      rows = BenchCli.given(cli, "--rows") ? rows : 20_000;
      warmups = BenchCli.given(cli, "--warmups") ? warmups : 1;
      reps = BenchCli.given(cli, "--reps") ? reps : 2;
    }
    cohorts = BenchCli.oneOf(cli, "--cohorts", cohorts, ALL_COHORTS);
  }

  /** The plan, as the run prints it. */
  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "rows=%d warmups=%d reps=%d buckets=%s cohorts=%s seed=%d gcBetween=%s",
        rows,
        warmups,
        reps,
        bucketCounts,
        cohorts,
        seed,
        !noGc);
  }

  private void run() throws IOException {
    long started = System.nanoTime();
    this.loadAtStart = RunFacts.loadAverage();
    Guards.loggingIsQuiet();
    Clock.enable();
    Files.createDirectories(out);
    System.out.printf("RoutingBench %s%n  %s%n  out %s%n", smoke ? "(smoke)" : "", this, out);

    Schema schema = Datasets.BID;
    RowType rowType = FlinkSchemaUtil.convert(schema);
    long buildStart = System.nanoTime();
    RowData[] cold = Datasets.bids(rows, seed).toArray(new RowData[0]);
    // Two fixtures. cold: every routed row is a distinct object, read once per pass, so most of an
    // arm's time is cache misses on the row, its field array and boxed values. hot: a few
    // thousand distinct rows cycled, the way a writer sees a row the upstream operator just built;
    // what remains is the routing work itself.
    Map<String, RowData[]> fixtures = new java.util.LinkedHashMap<>();
    fixtures.put("cold", cold);
    if (hotRows > 0) {
      RowData[] distinct = Arrays.copyOf(cold, Math.min(hotRows, cold.length));
      RowData[] hot = new RowData[rows];
      for (int i = 0; i < hot.length; i++) {
        hot[i] = distinct[i % distinct.length];
      }
      fixtures.put("hot " + distinct.length, hot);
    }
    RowData[] rows = cold;
    String heap = Guards.fixtureHeap("the fixtures", notes);
    System.out.printf(
        "[bid] built %,d rows in %.1f s (%s)%n",
        rows.length, (System.nanoTime() - buildStart) / 1e9, heap);

    try (BufferedWriter lines =
        Files.newBufferedWriter(out.resolve("iterations.jsonl"), StandardCharsets.UTF_8)) {
      this.jsonl = lines;
      for (String cohort : cohorts) {
        for (Map.Entry<String, RowData[]> fixture : fixtures.entrySet()) {
          rows = fixture.getValue();
          for (int buckets : bucketCounts) {
            PartitionSpec spec =
                PartitionSpec.builderFor(schema).bucket("auction", buckets).build();
            String cell = "bid " + fixture.getKey() + " bucket[" + buckets + "](auction)";
            boolean eligible = BucketTupleMemo.isEligible(spec);
            String route =
                eligible ? "memo, " + tuples(spec) + " tuples" : "not eligible: stock path";
            notes.add(
                String.format(Locale.ROOT, "`%s` / `%s`: Frazil arm = %s.", cohort, cell, route));
            Arm stock;
            Arm frazil;
            if (WRITER.equals(cohort)) {
              stock = () -> new StockWriterRouting(spec, schema, rowType);
              frazil =
                  eligible
                      ? () -> new MemoWriterRouting(spec, schema, rowType)
                      : () -> new StockWriterRouting(spec, schema, rowType);
              verifyWriter(cell, rows, stock.newRouting(), frazil.newRouting());
            } else {
              stock = () -> new StockSelectorRouting(spec, schema, rowType);
              frazil = () -> new FrazilSelectorRouting(spec, schema, rowType);
              verifySelector(
                  cell,
                  rows,
                  new PartitionKeySelector(spec, schema, rowType),
                  new FrazilPartitionKeySelector(spec, schema, rowType));
            }
            runCell(cohort, cell, rows, stock, frazil);
          }
        }
      }
    }
    writeResults((System.nanoTime() - started) / 1e9);
  }

  private static int tuples(PartitionSpec spec) {
    return BucketTupleMemo.create(Datasets.BID, spec, FlinkSchemaUtil.convert(Datasets.BID)).size();
  }

  // ---------------------------------------------------------------------------------------------
  // Verification: every row, before timing

  private static void verifyWriter(String cell, RowData[] rows, Routing stock, Routing frazil) {
    Map<PartitionKey, Integer> tuples = new HashMap<>();
    for (int i = 0; i < rows.length; i++) {
      Slot a = stock.route(rows[i]);
      Slot b = frazil.route(rows[i]);
      a.rows++;
      b.rows++;
      Guards.check(
          a.key.equals(b.key) && b.key.equals(a.key) && a.key.hashCode() == b.key.hashCode(),
          "[%s %s] row %d: stock slot key %s, Frazil slot key %s",
          WRITER,
          cell,
          i,
          a.key,
          b.key);
      Guards.check(
          a.rows == b.rows,
          "[%s %s] row %d: stock slot has %d rows, Frazil slot %d (different grouping)",
          WRITER,
          cell,
          i,
          a.rows,
          b.rows);
      tuples.merge(a.key, 1, Integer::sum);
    }
    Guards.check(
        stock.slots() == frazil.slots() && stock.slots() == tuples.size(),
        "[%s %s] stock opened %d slots, Frazil %d, distinct keys %d",
        WRITER,
        cell,
        stock.slots(),
        frazil.slots(),
        tuples.size());
    System.out.printf(
        "[%s %s] verified: %,d rows, identical partition keys row by row, %d slots each%n",
        WRITER, cell, rows.length, stock.slots());
  }

  private static void verifySelector(
      String cell, RowData[] rows, PartitionKeySelector stock, FrazilPartitionKeySelector frazil) {
    for (int i = 0; i < rows.length; i++) {
      String a = stock.getKey(rows[i]);
      String b = frazil.getKey(rows[i]);
      Guards.check(
          a.equals(b), "[%s %s] row %d: stock key '%s', Frazil key '%s'", SELECTOR, cell, i, a, b);
    }
    System.out.printf(
        "[%s %s] verified: %,d rows, identical key strings (Frazil selector %s)%n",
        SELECTOR, cell, rows.length, frazil.isMemoized() ? "memoized" : "delegating to stock");
  }

  // ---------------------------------------------------------------------------------------------
  // Timing

  private void runCell(String cohort, String cell, RowData[] rows, Arm stock, Arm frazil)
      throws IOException {
    System.out.printf(
        "[%s %s %,d rows] %d warm-up + %d measured per arm, alternating%n",
        cohort, cell, rows.length, warmups, reps);
    for (int rep = 0; rep < warmups; rep++) {
      timed(cohort, cell, rows, "stock", stock, "warmup", rep);
      timed(cohort, cell, rows, "frazil", frazil, "warmup", rep);
    }
    for (int rep = 0; rep < reps; rep++) {
      timed(cohort, cell, rows, "stock", stock, "measured", rep);
      timed(cohort, cell, rows, "frazil", frazil, "measured", rep);
    }
  }

  /** One pass of an arm over all rows: routing state built inside the clock, as a new writer. */
  private void timed(
      String cohort, String cell, RowData[] rows, String armName, Arm arm, String phase, int rep)
      throws IOException {
    // Garbage left by the previous arm is collected here, not during this arm's clock.
    long preGcMs = Clock.collectGarbage(!noGc);
    Clock started = Clock.start();

    Routing routing = arm.newRouting();
    long checksum = routing.routeAll(rows);

    Clock took = started.stop();
    blackhole += checksum;

    String where =
        String.format(Locale.ROOT, "[%s %s %s %s #%d]", cohort, cell, armName, phase, rep);
    Guards.check(
        routing.routedRows() == rows.length,
        "%s routed %d rows, expected %d",
        where,
        routing.routedRows(),
        rows.length);

    Iteration it =
        new Iteration(
            iterations.size(),
            cohort,
            cell,
            rows.length,
            armName,
            phase,
            rep,
            took.wallNs,
            took.processCpuNs,
            took.threadCpuNs,
            took.allocatedBytes,
            took.gcCount,
            took.gcMs,
            0L,
            routing.slots(),
            rows.length,
            0,
            null);
    iterations.add(it);
    jsonl.write(it.toJson());
    jsonl.newLine();
    jsonl.flush();
    System.out.printf(
        Locale.ROOT,
        "  %-6s %-8s #%d  wall %8.1f ms  cpu %8.1f ms  thread %8.1f ms  alloc %8.1f MB"
            + " (%6.1f B/row)  gc %2d  slots %d  (pre-gc %d ms)%n",
        armName,
        phase,
        rep,
        it.wallNs / 1e6,
        it.processCpuNs / 1e6,
        it.threadCpuNs / 1e6,
        it.allocatedBytes / 1048576.0,
        it.allocatedBytes / (double) rows.length,
        it.gcCount,
        routing.slots(),
        preGcMs);
  }

  // ---------------------------------------------------------------------------------------------
  // The arms

  /** Creates fresh routing state, as a new task writer or a freshly deserialized key selector. */
  interface Arm {
    Routing newRouting();
  }

  /** A writer's partition slot (stands in for its RollingFileWriter). */
  static final class Slot {
    final PartitionKey key;
    long rows;

    Slot(PartitionKey key) {
      this.key = key;
    }
  }

  abstract static class Routing {
    long routed;
    int slots;

    /** Routes one row (verification only). */
    abstract Slot route(RowData row);

    /** Routes every row; returns a checksum that depends on every routing decision. */
    abstract long routeAll(RowData[] rows);

    long routedRows() {
      return routed;
    }

    int slots() {
      return slots;
    }
  }

  /** PartitionedFanoutWriter.write: partition(wrap(row)), HashMap probe, copy + put on a miss. */
  static final class StockWriterRouting extends Routing {
    private final PartitionKey partitionKey;
    private final RowDataWrapper wrapper;
    private final Map<PartitionKey, Slot> writers = new HashMap<>();

    StockWriterRouting(PartitionSpec spec, Schema schema, RowType rowType) {
      this.partitionKey = new PartitionKey(spec, schema);
      this.wrapper = new RowDataWrapper(rowType, schema.asStruct());
    }

    @Override
    Slot route(RowData row) {
      partitionKey.partition(wrapper.wrap(row));
      Slot slot = writers.get(partitionKey);
      if (slot == null) {
        PartitionKey copy = partitionKey.copy();
        slot = new Slot(copy);
        writers.put(copy, slot);
        slots++;
      }
      routed++;
      return slot;
    }

    @Override
    long routeAll(RowData[] rows) {
      long checksum = 0;
      for (RowData row : rows) {
        Slot slot = route(row);
        slot.rows++;
        checksum += slot.rows;
      }
      return checksum;
    }
  }

  /** Frazil's fan-out writer: memo.ordinal(row) indexes an array of slots. */
  static final class MemoWriterRouting extends Routing {
    private final BucketTupleMemo memo;
    private final Slot[] writers;

    MemoWriterRouting(PartitionSpec spec, Schema schema, RowType rowType) {
      this.memo = BucketTupleMemo.create(schema, spec, rowType);
      this.writers = new Slot[memo.size()];
    }

    @Override
    Slot route(RowData row) {
      int ordinal = memo.ordinal(row);
      Slot slot = writers[ordinal];
      if (slot == null) {
        slot = new Slot(memo.key(ordinal));
        writers[ordinal] = slot;
        slots++;
      }
      routed++;
      return slot;
    }

    @Override
    long routeAll(RowData[] rows) {
      long checksum = 0;
      for (RowData row : rows) {
        Slot slot = route(row);
        slot.rows++;
        checksum += slot.rows;
      }
      return checksum;
    }
  }

  /**
   * Stock keyBy: PartitionKeySelector.getKey(row), whose String Flink then hashes. It and {@link
   * FrazilSelectorRouting} stay two classes on purpose: one loop over a shared selector field would
   * see both arms' receiver types, and the JIT would compile the measured call differently from a
   * sink's, where only one selector type ever runs.
   */
  static final class StockSelectorRouting extends Routing {
    private final PartitionKeySelector selector;

    StockSelectorRouting(PartitionSpec spec, Schema schema, RowType rowType) {
      this.selector = new PartitionKeySelector(spec, schema, rowType);
    }

    @Override
    Slot route(RowData row) {
      throw new UnsupportedOperationException();
    }

    @Override
    long routeAll(RowData[] rows) {
      long checksum = 0;
      for (RowData row : rows) {
        checksum += selector.getKey(row).hashCode();
      }
      routed += rows.length;
      return checksum;
    }
  }

  /** Frazil keyBy: FrazilPartitionKeySelector.getKey(row) (memoized path or stock fallback). */
  static final class FrazilSelectorRouting extends Routing {
    private final FrazilPartitionKeySelector selector;

    FrazilSelectorRouting(PartitionSpec spec, Schema schema, RowType rowType) {
      this.selector = new FrazilPartitionKeySelector(spec, schema, rowType);
    }

    @Override
    Slot route(RowData row) {
      throw new UnsupportedOperationException();
    }

    @Override
    long routeAll(RowData[] rows) {
      long checksum = 0;
      for (RowData row : rows) {
        checksum += selector.getKey(row).hashCode();
      }
      routed += rows.length;
      return checksum;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // results.md (tables from Report), ratios.svg

  private void writeResults(double seconds) throws IOException {
    List<Report.Cell> cells = Report.cells(iterations);
    RunFacts facts = RunFacts.collect();
    boolean environment = RunFacts.copyEnvironment(facts.repo, out);
    StringBuilder md = new StringBuilder();
    md.append("# Partition routing: stock Iceberg vs Frazil's bucket-tuple memo\n\n");
    md.append("| | |\n|---|---|\n");
    facts.appendHeaderRows(md);
    md.append("| load average (1, 5, 15 min) | at start ").append(loadAtStart);
    md.append(", at end ").append(RunFacts.loadAverage());
    md.append(" (other work on the machine competes with both arms) |\n");
    md.append("| environment.json | ")
        .append(environment ? "copied next to this file" : "not present in the repository root")
        .append(" |\n");
    md.append("| mode | ").append(smoke ? "smoke (not a measurement)" : "full");
    md.append(", args `").append(BenchCli.joinArgs(BenchCli.args(cli))).append("` |\n");
    md.append(
        String.format(
            Locale.ROOT,
            "| plan | bid fixture %,d rows, %d warm-up(s) + %d measured per arm per cell,"
                + " seed %d, %.0f s in total |\n\n",
            rows,
            warmups,
            reps,
            seed,
            seconds));
    for (String note : notes) {
      md.append("- ").append(note).append('\n');
    }
    md.append('\n');
    md.append(
        "Before timing, both arms routed every row of the fixture and produced equal partition"
            + " keys (writer) or identical key strings (selector) row by row. Each iteration builds"
            + " fresh routing state (a new writer's map, memo and slots; a new key selector) and"
            + " routes all rows; nothing is written. Medians of the measured repetitions, [min–max];"
            + " ratios are stock / Frazil (> 1 means Frazil is faster); allocation is Frazil / stock."
            + " The `output MB` column does not apply here (always 0). Every iteration, warm-ups"
            + " included, is in `iterations.jsonl`.\n\n");
    String tables = Report.tables(cells, cohorts);
    // Report titles non-file-write cohorts as arrow-input; give the routing cohorts their own.
    tables =
        tables.replaceAll(
            "(## Cohort `" + WRITER + "`: )[^\n]*",
            "$1fan-out task writer: partition key per row + writer lookup (no file writing)");
    tables =
        tables.replaceAll(
            "(## Cohort `" + SELECTOR + "`: )[^\n]*",
            "$1`keyBy` key selector: partition path String per row + its hashCode()");
    md.append(tables);
    md.append(
        "Columns: *wall* = `System.nanoTime()` around building the routing state and routing");
    md.append(" every row; *process CPU* = all threads (JIT and GC included); *thread CPU* = the");
    md.append(" routing thread; *alloc* = Java heap bytes allocated by the routing thread");
    md.append(" (`ThreadMXBean.getThreadAllocatedBytes`).\n");
    Files.writeString(out.resolve("results.md"), md.toString(), StandardCharsets.UTF_8);
    boolean finite = !cells.isEmpty();
    for (Report.Cell cell : cells) {
      // Process CPU has 10 ms resolution: a smoke run can measure 0 ms and an infinite ratio,
      // which the chart cannot scale to.
      finite &= Double.isFinite(cell.wall().high) && Double.isFinite(cell.cpu().high);
      finite &= Double.isFinite(cell.wall().low) && Double.isFinite(cell.cpu().low);
    }
    if (!finite) {
      System.out.println(
          "ratios.svg not written: a ratio is not finite (timings below resolution)");
    } else {
      String subtitle =
          String.format(
              Locale.ROOT,
              "routing only, %s, %d cores, Java %s, commit %.10s%s",
              facts.now.substring(0, 10),
              facts.cores,
              System.getProperty("java.version"),
              facts.commit,
              smoke ? ", SMOKE run, not a measurement" : "");
      Report.writeSvg(out.resolve("ratios.svg"), cells, subtitle);
    }
    System.out.println();
    System.out.print(tables);
    System.out.printf(
        "%d iterations, all guards passed, %.0f s; results in %s%n",
        iterations.size(), seconds, out);
  }
}
